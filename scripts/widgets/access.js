// What the explorers say to a screen reader and a keyboard, beyond ipywidgets' controls:
//
// - a slider's handle is named by its label and announces the value the readout shows
//   (aria-valuetext), not the position's index;
// - the readout box is a text box that works: typing one of the slider's values (Enter or
//   leaving the box) moves the slider there; anything else is refused visibly (the box shows
//   the current value again and a message under the slider lists the values) and aloud;
// - toggle buttons form a named group and say which one is pressed (aria-pressed);
// - no label carries title="null" (ipywidgets writes the model's missing tooltip);
// - an explorer (the VBox of controls over the frames) is a named group with a live region
//   that announces, after a control changes, the new value and what the frame shows (its
//   printed text, or its pictures' alt texts).
import noUiSlider from "nouislider";
import {
  SelectionSliderView,
  ToggleButtonsView,
} from "@jupyter-widgets/controls/lib/widget_selection";

let uid = 0;
const nextId = (prefix) => `${prefix}-${++uid}`;

function untitle(view) {
  // DescriptionView.updateTooltip writes title = tooltip, "null" when the model has none.
  const tip = view.model.get("tooltip");
  if (!view.label) return;
  if (tip) view.label.title = tip;
  else view.label.removeAttribute("title");
}

function labelId(view) {
  if (!view.label.id) view.label.id = nextId("book-label");
  return view.label.id;
}

// A value typed into the readout, as a number where it reads as one ("−1", "1e-9", "-inf").
function parseValue(text) {
  const s = text.trim().replace(/\u2212/g, "-").toLowerCase();
  if (/^\+?(inf|infinity|∞)$/.test(s)) return Infinity;
  if (/^-(inf|infinity|∞)$/.test(s)) return -Infinity;
  if (s === "" || !/^[-+]?[0-9.]+(e[-+]?[0-9]+)?$/.test(s)) return null;
  const n = Number(s);
  return Number.isNaN(n) ? null : n;
}

function findLabel(labels, text) {
  const exact = labels.indexOf(text.trim());
  if (exact >= 0) return exact;
  const n = parseValue(text);
  if (n === null) return -1;
  return labels.findIndex((label) => parseValue(label) === n);
}

export function announce(el, text) {
  const explorer = el.closest(".book-explorer");
  const live = explorer && explorer.querySelector(":scope > .book-live");
  if (!live) return;
  live.textContent = "";
  // a new text node, a moment later: screen readers announce a change, even to the same words
  setTimeout(() => { live.textContent = text; }, 30);
}

export class BookSelectionSliderView extends SelectionSliderView {
  render() {
    super.render();
    const ro = this.readout;
    ro.setAttribute("role", "textbox");
    ro.setAttribute("aria-multiline", "false");
    ro.spellcheck = false;
    this.message = document.createElement("div");
    this.message.className = "book-readout-message";
    this.message.id = nextId("book-msg");
    this.message.hidden = true;  // placed after the slider once that is on the page
    ro.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        this.commitReadout();
      } else if (e.key === "Escape") {
        this.updateReadout(this.model.get("index"));
        ro.blur();
      }
    });
    ro.addEventListener("blur", () => this.commitReadout());
    this.label_aria();
  }

  label_aria() {
    if (!this.label || !this.message) return;  // render() calls it once both exist
    const handle = this.$slider.querySelector(".noUi-handle");
    const id = labelId(this);
    if (handle) handle.setAttribute("aria-labelledby", id);
    this.readout.setAttribute("aria-label", `${this.model.get("description")}: 직접 입력`);
    this.readout.setAttribute("aria-describedby", this.message.id);
    untitle(this);
  }

  updateTooltip() {
    untitle(this);
  }

  // As ipywidgets' createSlider, with aria-valuetext = the value's label (the readout).
  createSlider() {
    const labels = this.model.get("_options_labels");
    const orientation = this.model.get("orientation");
    noUiSlider.create(this.$slider, {
      start: this.model.get("index"),
      connect: true,
      behaviour: this.model.get("behavior"),
      range: { min: 0, max: labels.length - 1 },
      step: 1,
      animate: false,
      orientation,
      direction: orientation === "horizontal" ? "ltr" : "rtl",
      format: { from: (value) => Number(value), to: (value) => Math.round(value) },
      ariaFormat: {
        from: (value) => Number(value),
        to: (value) => this.model.get("_options_labels")[Math.round(value)] ?? String(value),
      },
    });
    this.$slider.noUiSlider.on("update", (values, handle) => {
      this.handleSliderUpdateEvent(values, handle);
    });
    this.$slider.noUiSlider.on("change", (values, handle) => {
      this.handleSliderChangeEvent(values, handle);
    });
    this.label_aria();
  }

  attachMessage() {
    if (!this.message.isConnected && this.el.parentNode) this.el.after(this.message);
  }

  commitReadout() {
    this.attachMessage();
    const labels = this.model.get("_options_labels");
    const typed = this.readout.textContent;
    const current = this.model.get("index");
    const index = findLabel(labels, typed);
    if (index >= 0) {
      this.refuse(null);
      this.updateReadout(index);
      if (index !== current) {
        this.model.set("index", index);  // moves the handle (updateSliderValue) and the frames
        this.touch();
      }
      return;
    }
    this.updateReadout(current);
    if (typed.trim() === labels[current]) return;
    this.refuse(`「${typed.trim()}」은(는) 고를 수 있는 값이 아닙니다. `
                + `${this.model.get("description")}: ${labels.join(", ")}`);
  }

  refuse(text) {
    const ro = this.readout;
    if (!text) {
      ro.classList.remove("mod-invalid");
      ro.removeAttribute("aria-invalid");
      this.message.hidden = true;
      this.message.textContent = "";
      return;
    }
    ro.classList.add("mod-invalid");
    ro.setAttribute("aria-invalid", "true");
    this.message.textContent = text;
    this.message.hidden = false;
    announce(this.el, text);
  }

  updateReadout(index) {
    super.updateReadout(index);
    if (this.message && !this.message.hidden && this.readout.textContent) {
      // a value reached by the handle clears an earlier refusal
      if (document.activeElement !== this.readout) this.refuse(null);
    }
  }
}

export class BookToggleButtonsView extends ToggleButtonsView {
  render() {
    super.render();
    this.buttongroup.setAttribute("role", "group");
    this.buttongroup.setAttribute("aria-labelledby", labelId(this));
    untitle(this);
  }

  updateTooltip() {
    untitle(this);
  }

  update(options) {
    super.update(options);
    if (!this.buttongroup) return;
    const index = this.model.get("index");
    for (const button of this.buttongroup.querySelectorAll("button")) {
      button.setAttribute("aria-pressed", String(Number(button.value) === index));
    }
  }
}

// The text a frame shows: its printed lines, else its pictures' alt texts.
function frameText(el) {
  const texts = Array.from(el.querySelectorAll(".widget-output pre"))
    .filter((pre) => pre.getClientRects().length)
    .map((pre) => pre.textContent.trim());
  if (texts.length) return texts.join(" ");
  return Array.from(el.querySelectorAll(".widget-output img"))
    .filter((img) => img.getClientRects().length)
    .map((img) => img.alt).join(" ");
}

export function wireExplorer(model, view) {
  if (!/^VBox/.test(model.get("_view_name") || "")) return;
  const controls = (model.get("children") || []).filter((m) => m.get("_options_labels"));
  if (!controls.length) return;
  const el = view.el;
  el.classList.add("book-explorer");
  el.setAttribute("role", "group");
  el.setAttribute("aria-label",
                  `탐색기: ${controls.map((m) => m.get("description")).join(", ")}`);
  const live = document.createElement("div");
  live.className = "book-live book-visually-hidden";
  live.setAttribute("role", "status");
  live.setAttribute("aria-live", "polite");
  el.append(live);
  let timer = null;
  for (const control of controls) {
    control.on("change:index", () => {
      clearTimeout(timer);
      // after the stacks have switched frames; a drag announces where it stops
      timer = setTimeout(() => {
        const value = control.get("_options_labels")[control.get("index")];
        announce(el, `${control.get("description")} ${value}. ${frameText(el)}`);
      }, 350);
    });
  }
}
