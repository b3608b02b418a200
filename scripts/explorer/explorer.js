// The book's explorers (attnlib.explorer_page writes their HTML): native controls over frames
// that are files.
//
// An explorer's block in the page holds its controls (a labelled <input type=range> per
// slider with an <output> readout, a named group of aria-pressed buttons per toggle), its
// first frame, a polite live region and its data (<script type=
// "application/vnd.attnlib.explorer+json">: the controls, one frame file per combination of
// values, row-major, and the live spec).  Moving a control shows the frame of the new values:
// from memory when it was prefetched (the pictures decoded already, so the page changes within
// the same animation frame), else from its file, _static/frames/<name>.js, a script that calls
// attnlibFrame(name, {outputs}) (a script and not fetch(), so a page opened as a file works
// too).  The neighbours of the current frame are prefetched when the explorer comes near the
// screen, and after each move in idle moments.  The page's first explorer carries the frames
// of a reader's first move (<script type="application/vnd.attnlib.first-moves+json">, put in
// by the build): they are ready as soon as it is wired, with no file to wait for.
//
// A classic script right before the page's first explorer (_ext/explorers.py): the parser runs
// it there, and each explorer's block queues itself as the parser reads it and is wired then
// (see the end of this file).
//
// Live mode (live.js) keeps these controls: explorer.goLive(source) makes a slider with a
// range take any value in it (a number box beside it, listed values outside the range as
// buttons) and asks `source(values)` for each frame instead of the files.
(() => {
  "use strict";
  const DATA = 'script[type="application/vnd.attnlib.explorer+json"]';
  const FIRST_MOVES = 'script[type="application/vnd.attnlib.first-moves+json"]';
  const HERE = document.currentScript ? document.currentScript.src : location.href;
  const FRAMES = new URL("../frames/", HERE).href; // _static/vendor/ -> _static/frames/
  const IMAGES = ["image/webp", "image/png", "image/jpeg", "image/gif", "image/svg+xml"];
  const KEEP = 48; // prepared frames kept per explorer (decoded pictures cost memory)
  const stats = (window.attnlibExplorerStats = { shown: [], fetched: 0, errors: [] });

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v);
    }
    node.append(...children);
    return node;
  }

  // ------------------------------------------------------------ frame files ----
  const loading = new Map(); // frame name -> Promise<outputs>
  const waiters = new Map(); // frame name -> resolve
  window.attnlibFrame = (name, frame) => {
    const resolve = waiters.get(name);
    if (resolve) { waiters.delete(name); resolve(frame.outputs); }
  };

  function load(name) {
    if (!loading.has(name)) {
      loading.set(name, new Promise((resolve, reject) => {
        waiters.set(name, resolve);
        const script = el("script", { src: `${FRAMES}${name}.js`, async: "" });
        script.onerror = () => {
          loading.delete(name);
          waiters.delete(name);
          reject(new Error(`그림 파일을 불러오지 못했습니다 (${name})`));
        };
        script.onload = () => script.remove();
        stats.fetched++;
        document.head.append(script);
      }));
    }
    return loading.get(name);
  }

  // ---------------------------------------------------------------- drawing ----
  const join = (t) => (Array.isArray(t) ? t.join("") : t || "");

  function image(data, mime, meta) {
    const img = el("img");
    img.src = mime === "image/svg+xml"
      ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(data)}`
      : `data:${mime};base64,${data}`;
    meta = meta || {};
    if (meta.text_px != null && Number.isFinite(meta.text_px)) {
      img.className = `attn-tile attn-text-px-${Math.floor(meta.text_px)}`;
    }
    if (meta.width) img.width = meta.width;
    if (meta.height) img.height = meta.height;
    img.alt = meta.alt || "";
    img.decoding = "async";
    return img;
  }

  // A frame's outputs as nodes: what attnlib.explorer_page.outputs_html writes for the first.
  function render(outputs) {
    const nodes = [];
    let figure = null;
    const merged = [];
    for (const out of outputs) {
      const last = merged[merged.length - 1];
      if (out.output_type === "stream" && last && last.output_type === "stream" && last.name === out.name) {
        merged[merged.length - 1] = { ...last, text: join(last.text) + join(out.text) };
      } else merged.push(out);
    }
    for (const out of merged) {
      const data = out.data || {};
      const mime = IMAGES.find((m) => m in data);
      if (mime && out.output_type !== "stream") {
        if (!figure) nodes.push((figure = el("div", { class: "attn-figure" })));
        figure.append(image(join(data[mime]), mime, (out.metadata || {})[mime]));
        continue;
      }
      figure = null;
      if (out.output_type === "stream") {
        nodes.push(el("pre", { class: "attn-text", text: join(out.text).replace(/\s+$/, "") }));
      } else if ("text/html" in data) {
        const div = el("div", { class: "attn-html" });
        div.innerHTML = join(data["text/html"]); // the book's own build output
        nodes.push(div);
      } else if ("text/plain" in data) {
        nodes.push(el("pre", { class: "attn-text", text: join(data["text/plain"]) }));
      }
    }
    return nodes;
  }

  // Nodes ready to show: every picture decoded off the main thread first.
  const pictures = (nodes) => nodes.flatMap(
    (n) => (n.tagName === "IMG" ? [n] : [...n.querySelectorAll("img")]));

  async function prepare(outputs) {
    const nodes = render(outputs);
    await Promise.all(pictures(nodes).map((img) => img.decode().catch(() => {})));
    return nodes;
  }

  // Nodes of a frame the page carries (a first move), ready at once: while the page is
  // still being parsed, a decode's promise would wait behind the parser, so the pictures
  // are decoded in the background now and painted when decoded (decoding="sync": the
  // browser shows the old frame until then, never a blank one).
  function prepareNow(outputs) {
    const nodes = render(outputs);
    pictures(nodes).forEach((img) => {
      img.decoding = "sync";
      const later = () => { img.decoding = "async"; }; // decoded: no need to wait any more
      img.decode().then(later, later);
    });
    return nodes;
  }

  // The text a frame says: its printed lines, else its pictures' alt texts.
  function frameText(nodes) {
    const pres = nodes.filter((n) => n.tagName === "PRE").map((n) => n.textContent.trim());
    if (pres.length) return pres.join(" ");
    return nodes.flatMap((n) => [...n.querySelectorAll("img")]).map((i) => i.alt).join(" ");
  }

  const idle = window.requestIdleCallback
    ? (f) => requestIdleCallback(f, { timeout: 1500 })
    : (f) => setTimeout(f, 200);

  // ------------------------------------------------------------- an explorer ----
  class Explorer {
    constructor(root) {
      this.root = root;
      this.data = JSON.parse(root.querySelector(DATA).textContent);
      this.frameBox = root.querySelector(".attn-frame");
      this.live = root.querySelector(".attn-announce");
      this.index = this.data.controls.map((c) => c.initial);
      this.values = null; // live: {name: number | {index}}
      this.ready = new Map(); // frame position -> Promise<nodes>
      this.shownKey = this.key();
      this.seq = 0;
      this.source = null; // live: values -> Promise<{outputs, alt}>
      this.status = null;
      const rows = root.querySelectorAll(".attn-control");
      this.controls = this.data.controls.map((c, k) => this.wire(c, k, rows[k]));
      const shown = Promise.resolve([...this.frameBox.childNodes]);
      const firstName = this.data.frames[this.shownKey];
      this.data.frames.forEach((name, key) => {
        if (name === firstName) this.ready.set(key, shown); // the same frame elsewhere too
      });
      this.carried(root.querySelector(FIRST_MOVES));
      this.prefetched = null; // Promise: the neighbours of the current frame are ready
      // Neighbours are fetched as soon as the explorer comes near the screen (a reader who
      // never scrolls to it downloads none of its frames); the requests and the pictures'
      // decoding run off the main thread.
      // A reader who focuses or touches a control is about to move it: its neighbours are
      // fetched at once, without waiting for the next intersection update.
      const soon = () => {
        root.removeEventListener("focusin", soon);
        root.removeEventListener("pointerdown", soon);
        if (this.near) return;
        this.near = true;
        this.prefetch();
      };
      root.addEventListener("focusin", soon);
      root.addEventListener("pointerdown", soon);
      if (window.IntersectionObserver) {
        const seen = new IntersectionObserver((entries) => {
          if (!entries.some((e) => e.isIntersecting)) return;
          seen.disconnect();
          soon();
        }, { rootMargin: "300px" });
        seen.observe(root);
      } else {
        this.near = true;
        idle(() => this.prefetch());
      }
    }

    // The page's first explorer carries the frames of a reader's first move (the build puts
    // them there: attnlib.explorer_page.first_moves_html): ready before any move.
    carried(script) {
      if (!script) return;
      let frames;
      try {
        frames = JSON.parse(script.textContent);
      } catch (err) { // the files are still there
        stats.errors.push(`first moves: ${err}`);
        return;
      }
      const byName = new Map(); // a frame at several positions is drawn once
      this.data.frames.forEach((name, key) => {
        if (!Object.prototype.hasOwnProperty.call(frames, name) || this.ready.has(key)) return;
        if (!byName.has(name)) byName.set(name, Promise.resolve(prepareNow(frames[name].outputs)));
        this.ready.set(key, byName.get(name));
      });
    }

    wire(c, k, row) {
      const control = { spec: c, row };
      if (c.kind === "slider") {
        const input = row.querySelector("input[type=range]");
        const readout = row.querySelector("output");
        Object.assign(control, { input, readout });
        input.addEventListener("input", () => this.onSlider(k));
      } else {
        const buttons = [...row.querySelectorAll("button")];
        control.buttons = buttons;
        buttons.forEach((b, i) => b.addEventListener("click", () => this.select(k, i)));
      }
      return control;
    }

    key(index = this.index) {
      let flat = 0;
      this.data.controls.forEach((c, k) => { flat = flat * c.labels.length + index[k]; });
      return flat;
    }

    label(k) {
      const c = this.data.controls[k];
      if (this.values && typeof this.values[c.name] === "number") return String(this.values[c.name]);
      return c.labels[this.index[k]];
    }

    onSlider(k) {
      const control = this.controls[k];
      if (this.source && control.spec.range) { control.onRange(); return; }
      this.setIndex(k, Number(control.input.value));
    }

    select(k, i) {
      this.setIndex(k, i);
    }

    setIndex(k, i) {
      const control = this.controls[k];
      this.index[k] = i;
      if (control.input) {
        if (!this.source || !control.spec.range) control.input.value = String(i);
      }
      if (this.values) this.values[control.spec.name] = { index: i };
      this.showValue(k);
      this.update(k);
    }

    // The readout, the slider's spoken value and the pressed button follow control k.
    showValue(k) {
      const control = this.controls[k];
      const text = this.label(k);
      if (control.input) {
        control.readout.textContent = text;
        control.input.setAttribute("aria-valuetext", text);
      } else {
        control.buttons.forEach((b, j) => b.setAttribute("aria-pressed", String(j === this.index[k])));
      }
    }

    update(k) {
      if (this.source) { this.request(k); return; }
      const key = this.key();
      if (key === this.shownKey) return;
      const seq = ++this.seq;
      const t0 = performance.now();
      const nodes = this.frame(key);
      nodes.then((ready) => {
        if (seq !== this.seq) return; // a later move won
        this.draw(ready, k, t0);
        this.near = true;
        idle(() => this.prefetch());
      }, (err) => this.fail(err));
      this.shownKey = key;
    }

    frame(key) {
      if (!this.ready.has(key)) {
        const p = load(this.data.frames[key]).then(prepare);
        p.catch(() => this.ready.delete(key));
        this.ready.set(key, p);
        if (this.ready.size > KEEP) { // forget the oldest (never the one shown)
          for (const old of this.ready.keys()) {
            if (old !== this.shownKey && old !== key) { this.ready.delete(old); break; }
          }
        }
      }
      return this.ready.get(key);
    }

    draw(nodes, k, t0) {
      this.frameBox.replaceChildren(...nodes);
      stats.shown.push({ id: this.root.id, ms: performance.now() - t0 });
      this.announce(k, frameText(nodes));
      this.root.dispatchEvent(new CustomEvent("attnlib-frame"));
    }

    announce(k, text) {
      clearTimeout(this.timer);
      // a drag announces where it stops; a new text node so the same words are read again
      this.timer = setTimeout(() => {
        this.live.textContent = "";
        setTimeout(() => {
          this.live.textContent = `${this.data.controls[k].label} ${this.label(k)}. ${text}`;
        }, 30);
      }, 350);
    }

    fail(err) {
      stats.errors.push(String(err.message || err));
      this.say(String(err.message || err));
    }

    say(text) {
      if (!this.status) {
        this.status = el("p", { class: "attn-explorer-status", role: "status" });
        this.frameBox.before(this.status);
      }
      this.status.textContent = text;
    }

    // The frames one step away from the current one, along each control.
    prefetch() {
      if (this.source || !this.near) return;
      const next = [];
      this.data.controls.forEach((c, k) => {
        for (const step of [1, -1]) {
          const i = this.index[k] + step;
          if (i < 0 || i >= c.labels.length) continue;
          const index = this.index.slice();
          index[k] = i;
          next.push(this.frame(this.key(index)).catch(() => {}));
        }
      });
      this.prefetched = Promise.all(next);
    }

    // ---------------------------------------------------------- live mode ----
    // `source(values)` computes a frame: {outputs, alt} or {error}/{stopped}.  Sliders with a
    // range take any value in it; the others keep their listed values.
    goLive(source) {
      if (this.source) return;
      this.source = source;
      this.values = {};
      this.inflight = false;
      this.pending = null;
      this.data.controls.forEach((c, k) => {
        this.values[c.name] = { index: this.index[k] };
        if (c.range) this.liveRange(k);
      });
      this.root.classList.add("attn-explorer-live");
      this.request(0);
    }

    liveRange(k) {
      const control = this.controls[k];
      const c = control.spec;
      const r = c.range;
      const toPos = (v) => (r.log ? (Math.log(v / r.min) / Math.log(r.max / r.min)) * 1000
                                  : ((v - r.min) / (r.max - r.min)) * 1000);
      const fromPos = (p) => (r.log ? r.min * Math.pow(r.max / r.min, p / 1000)
                                    : r.min + (p / 1000) * (r.max - r.min));
      const round = (v) => {
        const x = Math.round(Math.min(Math.max(v, r.min), r.max) / r.step) * r.step;
        return r.integer ? Math.round(x) : Number(x.toPrecision(12));
      };
      const input = control.input;
      const box = el("input", { type: "number", min: String(r.min), max: String(r.max),
                                step: String(r.step), class: "attn-number",
                                "aria-label": `${c.label} 값` });
      const set = (v, from) => {
        v = round(v);
        if (from !== input) input.value = String(toPos(v));
        if (from !== box) box.value = String(v);
        this.values[c.name] = v;
        this.showValue(k);
        this.request(k);
      };
      input.min = "0";
      input.max = "1000";
      input.step = "any";
      control.onRange = () => set(fromPos(Number(input.value)), input);
      box.addEventListener("input", () => { if (box.value !== "" && box.checkValidity()) set(Number(box.value), box); });
      // once the reader is done typing, the box shows the value computed (clipped, rounded)
      box.addEventListener("change", () => set(Number(box.value), null));
      // Listed values the range leaves out (-inf, -1e9): a click away, as buttons.
      const picks = (c.outside || []).map((i) => {
        const b = el("button", { type: "button", class: "attn-outside", text: c.labels[i] });
        b.addEventListener("click", () => { box.value = ""; this.setIndex(k, i); });
        return b;
      });
      control.readout.before(box, ...picks);
      const i = this.index[k];
      if ((c.outside || []).includes(i)) {
        input.value = "0";
        this.values[c.name] = { index: i };
      } else {
        const v = round(Number(c.labels[i]));
        input.value = String(toPos(v));
        box.value = String(v);
        this.values[c.name] = v;
      }
      this.showValue(k);
    }

    request(k) {
      const key = JSON.stringify(this.values);
      if (key === this.lastAsked) return; // the same frame again (input and change events)
      this.lastAsked = key;
      this.pending = { values: { ...this.values }, k };
      if (!this.inflight) this.send();
    }

    send() {
      if (!this.pending) return;
      const { values, k } = this.pending;
      this.pending = null;
      this.inflight = true;
      const t0 = performance.now();
      this.say("계산 중…");
      this.source(values).then(async (msg) => {
        if (msg.stopped) this.say("계산을 멈췄습니다");
        else if (msg.error) this.fail(new Error(`오류: ${String(msg.error).split("\n").filter(Boolean).pop()}`));
        else {
          const nodes = await prepare(msg.outputs);
          this.draw(nodes, k, t0);
          this.say("");
        }
        this.inflight = false;
        this.send();
      });
    }
  }

  const explorers = (window.attnlibExplorers = new Map());

  function wire(root) {
    if (explorers.has(root) || !root.querySelector(DATA)) return;
    try {
      explorers.set(root, new Explorer(root));
    } catch (err) {
      stats.errors.push(String(err));
      console.error("explorer:", err);
    }
  }

  // Each explorer's block ends with a script that queues it (attnlib.explorer_page): this
  // script runs before the page's first explorer (the build puts it there), so an explorer
  // works as soon as it is parsed, before the rest of a long chapter.  Once the page is
  // parsed every explorer is wired, and "attnlib-explorers" tells live.js.
  const queue = window.attnlibExplorerQueue || [];
  window.attnlibExplorerQueue = { push: wire };
  queue.forEach(wire);

  function setUp() {
    document.querySelectorAll(".attn-explorer").forEach(wire);
    document.dispatchEvent(new CustomEvent("attnlib-explorers"));
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
