// The Output widget for saved state: draws the outputs it holds (images, text, streams)
// as plain DOM in JupyterLab's output-area markup (jp-OutputArea-child / -output, with the
// mime type in data-mime-type), instead of @jupyterlab/outputarea and rendermime, which
// would bring a sanitizer, a markdown parser and a typesetter the book's frames never use.
// An output with none of the mime types below shows its text/plain, as a console would.
// Pictures (attnlib.pictures) carry their alt text, CSS size and smallest text size in the
// output metadata; consecutive pictures (the tiles of one figure) share one
// div.attn-figure, which lays them side by side or stacks them (book.css).
import {
  OutputModel as BaseOutputModel,
  OutputView as BaseOutputView,
} from "@jupyter-widgets/output";

const IMAGES = ["image/webp", "image/png", "image/jpeg", "image/gif", "image/svg+xml"];
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

export class OutputModel extends BaseOutputModel {
  defaults() {
    return { ...super.defaults(), msg_id: "", outputs: [] };
  }
}

function el(tag, className) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}

function textNode(text, mime) {
  const node = el("div", "lm-Widget jp-RenderedText jp-OutputArea-output");
  node.dataset.mimeType = mime;
  const pre = el("pre");
  pre.textContent = text.replace(ANSI, "");
  node.append(pre);
  return node;
}

function imageNode(data, mime, meta) {
  const node = el("div", "lm-Widget jp-RenderedImage jp-OutputArea-output");
  node.dataset.mimeType = mime;
  const img = el("img");
  img.src =
    mime === "image/svg+xml"
      ? "data:image/svg+xml;charset=utf-8," + encodeURIComponent(data)
      : `data:${mime};base64,${data}`;
  meta = meta || {};
  if (meta.width) img.width = meta.width;
  if (meta.height) img.height = meta.height;
  img.alt = meta.alt || "";
  img.decoding = "async";
  if (meta.text_px) {
    img.classList.add("attn-tile", `attn-text-px-${Math.floor(meta.text_px)}`);
  }
  node.append(img);
  return node;
}

function join(text) {
  return Array.isArray(text) ? text.join("") : text || "";
}

// One output (nbformat 4) as DOM, or null when it has nothing to show.
function render(out) {
  if (out.output_type === "stream") {
    return textNode(join(out.text), `application/vnd.jupyter.${out.name}`);
  }
  if (out.output_type === "error") {
    return textNode((out.traceback || []).join("\n"), "application/vnd.jupyter.stderr");
  }
  const data = out.data || {};
  const image = IMAGES.find((m) => m in data);
  if (image) return imageNode(join(data[image]), image, (out.metadata || {})[image]);
  if ("text/plain" in data) return textNode(join(data["text/plain"]), "text/plain");
  return null;
}

// Consecutive stream outputs of one stream show as one block, as in JupyterLab.
function mergeStreams(outputs) {
  const merged = [];
  for (const out of outputs) {
    const last = merged[merged.length - 1];
    if (out.output_type === "stream" && last && last.output_type === "stream"
        && last.name === out.name) {
      merged[merged.length - 1] = { ...last, text: join(last.text) + join(out.text) };
    } else {
      merged.push(out);
    }
  }
  return merged;
}

export class OutputView extends BaseOutputView {
  render() {
    super.render();
    this.el.classList.add("jupyter-widgets", "widget-output");
    this.area = el("div", "lm-Widget jp-OutputArea");
    this.el.append(this.area);
    this.listenTo(this.model, "change:outputs", this.draw);
    this.draw();
    this.update();
  }

  draw() {
    const children = [];
    let figure = null;  // the div.attn-figure that collects consecutive pictures
    for (const out of mergeStreams(this.model.get("outputs") || [])) {
      const node = render(out);
      if (!node) continue;
      if (node.classList.contains("jp-RenderedImage")) {
        if (!figure) {
          figure = el("div", "attn-figure");
          const child = el("div", "lm-Widget lm-Panel jp-OutputArea-child");
          child.append(el("div", "lm-Widget jp-OutputPrompt jp-OutputArea-prompt"), figure);
          children.push(child);
        }
        figure.append(node);
        continue;
      }
      figure = null;
      const child = el("div", "lm-Widget lm-Panel jp-OutputArea-child");
      child.append(el("div", "lm-Widget jp-OutputPrompt jp-OutputArea-prompt"), node);
      children.push(child);
    }
    this.area.replaceChildren(...children);
  }
}
