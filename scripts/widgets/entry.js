// The book's widget manager: renders the saved widget state of a page (frozen explorers:
// sliders and toggle buttons over a stack of outputs) without a kernel.
//
// It replaces @jupyter-widgets/html-manager's embed-amd.js, which carries every ipywidgets
// control, JupyterLab's output area and rendermime, a JSON-schema validator, RequireJS
// glue and two icon fonts.  Here only the models the book saves are bundled, and the
// explorers are drawn as soon as the page is parsed (the script is deferred, ahead of the
// theme's scripts at the end of the page), not at the window's load event.  The widgets' CSS is a
// stylesheet of its own (widgets.css, linked by _ext/book_html.py), so it is styled with
// the page instead of restyling it afterwards.  A model outside MODULES fails loudly in
// the console; scripts/widgets/build.mjs lists the bundle's contents at vendoring time.
import * as base from "@jupyter-widgets/base";
import { ManagerBase } from "@jupyter-widgets/base-manager";
import { VBoxModel, VBoxView, HBoxModel, HBoxView } from "@jupyter-widgets/controls/lib/widget_box";
import { LinkModel } from "@jupyter-widgets/controls/lib/widget_link";
import { SliderStyleModel } from "@jupyter-widgets/controls/lib/widget_int";
import {
  SelectionSliderModel,
  ToggleButtonsModel,
  ToggleButtonsStyleModel,
} from "@jupyter-widgets/controls/lib/widget_selection";
import { StackModel, StackView } from "@jupyter-widgets/controls/lib/widget_selectioncontainer";
import { MessageLoop } from "@lumino/messaging";
import { Widget } from "@lumino/widgets";
import { OutputModel, OutputView } from "./output.js";
import { BookSelectionSliderView, BookToggleButtonsView, wireExplorer } from "./access.js";

const MODULES = {
  "@jupyter-widgets/base": base,
  "@jupyter-widgets/controls": {
    HBoxModel, HBoxView, VBoxModel, VBoxView, LinkModel, SliderStyleModel,
    SelectionSliderModel, SelectionSliderView: BookSelectionSliderView,
    ToggleButtonsModel, ToggleButtonsStyleModel, ToggleButtonsView: BookToggleButtonsView,
    StackModel, StackView,
  },
  "@jupyter-widgets/output": { OutputModel, OutputView },
};

const STATE = 'script[type="application/vnd.jupyter.widget-state+json"]';
const VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]';

function escapeHtml(text) {
  const div = document.createElement("div");
  div.textContent = text;
  return div.innerHTML;
}

// Descriptions are plain text in this book: the book typesets its math at build time and
// ships no math JavaScript, so a description with $…$ would show raw TeX.
const noMathTypesetter = {
  typeset(element) {
    if (/\$[^$]+\$|\\\(/.test(element.textContent)) {
      console.error(`widget description with TeX, not typeset: ${element.textContent}`);
    }
  },
};

class BookWidgetManager extends ManagerBase {
  constructor() {
    super();
    this._rendermime = { latexTypesetter: noMathTypesetter };
    this.views = new Set();
  }

  loadClass(className, moduleName, moduleVersion) {
    const cls = (MODULES[moduleName] || {})[className];
    if (cls) return Promise.resolve(cls);
    return Promise.reject(new Error(
      `${moduleName}@${moduleVersion} ${className} is not in the book's widget bundle`));
  }

  // No HTML descriptions in saved state: shown as text (no sanitizer bundled).
  inline_sanitize(source) {
    return escapeHtml(source);
  }

  _get_comm_info() {
    return Promise.resolve({});
  }

  _create_comm() {
    return Promise.resolve({ on_close() {}, on_msg() {}, close() {} });
  }

  async display(model, tag) {
    const area = document.createElement("div");
    area.className = "widget-subarea";
    tag.parentElement.insertBefore(area, tag);
    const view = await this.create_view(model);
    Widget.attach(view.luminoWidget, area);
    wireExplorer(model, view);
    this.views.add(view);
    view.once("remove", () => this.views.delete(view));
  }
}

async function renderState(stateTag, viewTags) {
  const manager = new BookWidgetManager();
  const models = await manager.set_state(JSON.parse(stateTag.textContent));
  const byId = new Map(models.map((m) => [m.model_id, m]));
  window.addEventListener("resize", () => {
    for (const view of manager.views) {
      MessageLoop.postMessage(view.luminoWidget, Widget.ResizeMessage.UnknownSize);
    }
  });
  await Promise.all(viewTags.map((tag) => {
    const model = byId.get(JSON.parse(tag.textContent).model_id);
    return model && tag.parentElement ? manager.display(model, tag) : null;
  }));
}

function renderAll() {
  const viewTags = Array.from(document.querySelectorAll(VIEW));
  for (const stateTag of document.querySelectorAll(STATE)) {
    renderState(stateTag, viewTags).catch((err) => console.error("widgets:", err));
  }
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", renderAll);
} else {
  renderAll();
}
