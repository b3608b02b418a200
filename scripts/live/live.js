// 「실시간 계산 켜기」: explorers and exercises computed in the reader's browser.
//
// This small script is all a page loads until a reader asks.  It puts a button under every
// explorer that carries a live spec (attnlib.live.explorer, a
// <script type="application/vnd.attnlib.live+json"> next to the frozen widget) and under every
// exercise's stub cell (marked by _ext/live.py).  A click starts one Web Worker for the page
// (worker.js: Pyodide, NumPy, matplotlib and attnlib, from the book's own _static/live/),
// with its progress shown, and then:
//   - an explorer gets native controls in place of its frozen ones: a slider with a range
//     takes any value in it (a range input and a number box), the others keep their values;
//     each frame is computed in the worker by the library code the chapter's cell ran, and
//     drawn into the <img> the frozen widget shows (its alt names the values).  At most one
//     frame per explorer is in flight; the newest value waits, older ones are dropped.
//   - an exercise's stub becomes a code editor (CodeMirror, editor.js, loaded then); 「실행하고
//     채점」 runs it and the chapter's attnlib.check call, and the verdict shows below.  The
//     code is kept in localStorage, so it survives a reload.
(() => {
  "use strict";
  const SPEC = 'script[type="application/vnd.attnlib.live+json"]';
  const HERE = document.currentScript ? document.currentScript.src : location.href;
  const BASE = new URL("../../live/", HERE).href; // _static/vendor/live/ -> _static/live/
  const stats = (window.attnlibLive = { frames: [], progress: [], ready: null, clicked: null, errors: [] });

  const CSS = `
.attnlib-live{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;margin:.4rem 0;font-size:.9rem}
.attnlib-live button{font:inherit;padding:.2rem .7rem;border:1px solid var(--pst-color-border,#888);border-radius:4px;background:var(--pst-color-surface,#f6f6f6);color:var(--pst-color-text-base,#222);cursor:pointer}
.attnlib-live button[disabled]{opacity:.6;cursor:default}
.attnlib-live progress{width:10rem}
.attnlib-live-status,.attnlib-live-frame{contain:content;min-width:12rem}
.attnlib-live-controls{display:flex;flex-direction:column;gap:.3rem;margin:.3rem 0}
.attnlib-live-controls .attnlib-live-row{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem}
.attnlib-live-controls input[type=range]{width:min(20rem,60vw)}
.attnlib-live-controls input[type=number]{width:6.5rem}
.attnlib-live-controls .toggles button{color:var(--pst-color-text-base,#222);background:var(--pst-color-surface,#f6f6f6);border:1px solid var(--pst-color-border,#888)}
.attnlib-live-controls .toggles button[aria-pressed=true]{background:var(--pst-color-primary-bg,#dbe7f5);border-color:var(--pst-color-primary,#4C72B0)}
.attnlib-live-editor{border:1px solid var(--pst-color-border,#ccc);border-radius:4px;margin:.3rem 0;font-size:13px}
html[data-theme=dark] .attnlib-live-editor .cm-editor{background:#fff;color:#222;filter:invert(1) hue-rotate(180deg)}
.attnlib-live-verdict{white-space:pre-wrap;margin:.3rem 0;padding:.4rem;background:var(--pst-color-surface,#f8f8f8);color:var(--pst-color-text-base,#222);border-left:3px solid var(--pst-color-primary,#4C72B0)}
.attnlib-live-hidden{display:none!important}`;

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    node.append(...children);
    return node;
  }

  // ------------------------------------------------------------------ the worker ----
  let worker = null;
  let readyPromise = null;
  let abortStart = null; // rejects readyPromise while Python is loading (stop())
  const STOPPED = new Error("계산을 멈췄습니다");
  // A page opened from disk: browsers refuse it a Web Worker and a module import.
  const FILE_PAGE = "책을 웹 서버로 열어야 켜집니다(파일로 연 페이지에서는 브라우저가 막습니다)";
  const bars = new Set(); // the bars a reader has clicked: they show the worker's progress
  const waiting = new Map(); // request id -> resolve
  let nextId = 1;

  function showProgress(text, fraction, done) {
    for (const bar of bars) {
      bar.status.textContent = text;
      bar.progress.hidden = done;
      if (fraction != null) bar.progress.value = fraction;
    }
  }

  function start() {
    if (readyPromise) return readyPromise;
    stats.clicked = performance.now();
    readyPromise = new Promise((resolve, reject) => {
      if (location.protocol === "file:") {
        reject(new Error(FILE_PAGE));
        return;
      }
      abortStart = reject;
      worker = new Worker(new URL("worker.js", HERE));
      worker.onmessage = (event) => {
        const msg = event.data;
        if (msg.type === "progress") {
          stats.progress.push([msg.text, Math.round(msg.ms)]);
          showProgress(msg.text, msg.fraction, false);
        }
        else if (msg.type === "ready") {
          stats.ready = performance.now();
          showProgress("실시간 계산 켜짐", 1, true);
          abortStart = null;
          resolve();
        } else if (msg.type === "failed") {
          stats.errors.push(msg.error);
          showProgress(`불러오지 못했습니다: ${msg.error}`, null, true);
          abortStart = null;
          reject(new Error(msg.error));
        } else if (waiting.has(msg.id)) {
          waiting.get(msg.id)(msg);
          waiting.delete(msg.id);
        }
      };
      worker.postMessage({ type: "init", base: BASE });
    });
    return readyPromise;
  }

  // A request's answer; {stopped: true} or {error} when Python was stopped or failed to load.
  async function ask(message) {
    try {
      await start(); // again after stop(): a fresh worker
    } catch (err) {
      return err === STOPPED ? { stopped: true } : { error: String(err.message || err) };
    }
    const id = nextId++;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      worker.postMessage({ ...message, id });
    });
  }

  // A reader's code that never returns would hold the worker: stop it, and the next
  // request loads Python again.
  function stop() {
    if (!worker) return;
    worker.terminate();
    worker = null;
    readyPromise = null;
    if (abortStart) abortStart(STOPPED); // a stop while Python was still loading
    abortStart = null;
    for (const resolve of waiting.values()) resolve({ stopped: true });
    waiting.clear();
    showProgress("계산을 멈췄습니다. 다시 실행하면 Python 을 새로 불러옵니다.", null, true);
  }

  function makeBar(label) {
    const button = el("button", { type: "button", class: "attnlib-live-on", text: label });
    const status = el("span", { class: "attnlib-live-status", role: "status", "aria-live": "polite" });
    const progress = el("progress", { max: "1", value: "0" });
    progress.hidden = true;
    const bar = { node: el("div", { class: "attnlib-live" }, button, progress, status), button, status, progress };
    return bar;
  }

  // ------------------------------------------------------------------ explorers ----
  function visibleOutput(root) {
    return [...root.querySelectorAll(".widget-output")].find((o) => o.getClientRects().length);
  }

  function currentIndex(root, control, k) {
    // The frozen control's position, so going live starts where the reader left it.
    if (control.kind === "slider") {
      const readout = root.querySelectorAll(".widget-hslider .widget-readout")[k];
      const i = readout ? control.labels.indexOf(readout.textContent.trim()) : -1;
      return i >= 0 ? i : control.initial;
    }
    const group = root.querySelectorAll(".widget-toggle-buttons")[k];
    const active = group && group.querySelector("button.mod-active");
    const i = active ? control.labels.indexOf(active.textContent.trim()) : -1;
    return i >= 0 ? i : control.initial;
  }

  function rangeControl(control, index, onValue) {
    const r = control.range;
    const toPos = (v) => (r.log ? (Math.log(v / r.min) / Math.log(r.max / r.min)) * 1000
                                : ((v - r.min) / (r.max - r.min)) * 1000);
    const fromPos = (p) => (r.log ? r.min * Math.pow(r.max / r.min, p / 1000)
                                  : r.min + (p / 1000) * (r.max - r.min));
    const round = (v) => {
      const k = Math.round(Math.min(Math.max(v, r.min), r.max) / r.step) * r.step;
      return r.integer ? Math.round(k) : Number(k.toPrecision(12));
    };
    const start = Number(control.labels[index]);
    const slider = el("input", { type: "range", min: "0", max: "1000", step: "any",
                                 "aria-label": control.label });
    const box = el("input", { type: "number", min: String(r.min), max: String(r.max),
                              step: String(r.step), "aria-label": `${control.label} 값` });
    const readout = el("output", { class: "attnlib-live-readout" });
    const set = (v, from) => {
      v = round(v);
      if (from !== slider) slider.value = String(toPos(v));
      if (from !== box) box.value = String(v);
      slider.setAttribute("aria-valuetext", String(v));  // the label names the control
      readout.textContent = String(v);
      onValue(v);
    };
    slider.addEventListener("input", () => set(fromPos(Number(slider.value)), slider));
    box.addEventListener("input", () => { if (box.value !== "" && box.checkValidity()) set(Number(box.value), box); });
    box.addEventListener("change", () => set(Number(box.value), box));
    // Listed values the range leaves out (-inf, -1e9): a click away, as buttons.
    const picks = (control.outside || []).map((i) => el("button", {
      type: "button", text: control.labels[i], onclick: () => {
        box.value = ""; // the number box holds values of the range only
        readout.textContent = control.labels[i];
        slider.setAttribute("aria-valuetext", readout.textContent);
        onValue({ index: i });
      },
    }));
    const row = el("div", { class: "attnlib-live-row" }, el("span", { text: `${control.label} ` }), slider, box,
                   ...picks, readout);
    const init = () => {
      if ((control.outside || []).includes(index)) picks[control.outside.indexOf(index)].click();
      else set(start, null);
    };
    return { row, init };
  }

  function listControl(control, index, onValue) {
    let row;
    let init;
    if (control.kind === "slider") {
      const slider = el("input", { type: "range", min: "0", max: String(control.labels.length - 1),
                                   step: "1", "aria-label": control.label });
      const readout = el("output", { class: "attnlib-live-readout" });
      const set = (i) => {
        slider.value = String(i);
        slider.setAttribute("aria-valuetext", control.labels[i]);
        readout.textContent = control.labels[i];
        onValue({ index: i });
      };
      slider.addEventListener("input", () => set(Number(slider.value)));
      row = el("div", { class: "attnlib-live-row" }, el("span", { text: `${control.label} ` }), slider, readout);
      init = () => set(index);
    } else {
      const buttons = control.labels.map((label, i) =>
        el("button", { type: "button", text: label, "aria-pressed": "false", onclick: () => set(i) }));
      const set = (i) => {
        buttons.forEach((b, j) => b.setAttribute("aria-pressed", String(i === j)));
        onValue({ index: i });
      };
      row = el("div", { class: "attnlib-live-row toggles", role: "group", "aria-label": control.label },
               el("span", { text: `${control.label} ` }), ...buttons);
      init = () => set(index);
    }
    return { row, init };
  }

  const IMAGES = ["image/webp", "image/png", "image/jpeg", "image/svg+xml"];
  const imageOf = (o) => {
    const mime = IMAGES.find((m) => (o.data || {})[m]);
    if (!mime) return null;
    const data = o.data[mime];
    const src = mime === "image/svg+xml"
      ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(data)}`
      : `data:${mime};base64,${data}`;
    return { src, meta: (o.metadata || {})[mime] || {} };
  };

  // The pictures of a frame decoded off the main thread before they are shown.
  async function decoded(result) {
    for (const o of result.outputs) {
      const image = imageOf(o);
      if (!image) continue;
      const img = new Image();
      img.src = image.src;
      try { await img.decode(); } catch (_) { /* shown anyway */ }
    }
  }

  function drawFrame(area, result) {
    // Into the frozen output's own elements, in order: each <img> gets the new picture (or
    // tile), its size and its alt text (from the output's metadata, as the frozen build
    // writes it, else live.frame_alt); each text block the new text.
    const imgs = [...area.querySelectorAll("img")];
    const pres = [...area.querySelectorAll("pre")];
    let i = 0;
    let t = 0;
    for (const out of result.outputs) {
      const data = out.data || {};
      const image = imageOf(out);
      if (image) {
        const img = imgs[i++] || area.appendChild(el("img"));
        img.src = image.src;
        if (image.meta.width) img.width = image.meta.width;
        if (image.meta.height) img.height = image.meta.height;
        img.alt = image.meta.alt || result.alt;
      } else if (out.output_type === "stream" || data["text/plain"]) {
        const text = out.output_type === "stream" ? out.text : data["text/plain"];
        const pre = pres[t++] || area.appendChild(el("pre"));
        pre.textContent = (Array.isArray(text) ? text.join("") : text).replace(/\n$/, "");
      }
    }
  }

  async function goLiveExplorer(tag, bar) {
    const spec = JSON.parse(tag.textContent);
    const cell = tag.closest(".cell_output") || tag.parentElement;
    const root = cell.querySelector(".widget-subarea");
    if (!root) throw new Error("no rendered explorer next to the live spec");
    const area = visibleOutput(root);
    const values = {};
    let inflight = false;
    let pending = null;
    let sentAt = 0;
    const status = el("span", { class: "attnlib-live-frame", role: "status" });
    const send = () => {
      if (!pending) return;
      const request = pending;
      pending = null;
      inflight = true;
      sentAt = performance.now();
      status.textContent = "계산 중…";
      ask({ type: "frame", spec: spec.python, values: request }).then(async (msg) => {
        inflight = false;
        const ms = performance.now() - sentAt;
        if (msg.stopped) {
          status.textContent = "계산을 멈췄습니다";
        } else if (msg.error) {
          status.textContent = `오류: ${msg.error.split("\n").filter(Boolean).pop()}`;
          stats.errors.push(msg.error);
        } else {
          await decoded(msg.result);
          drawFrame(area, msg.result);
          status.textContent = msg.result.alt;  // a polite status: the new frame is announced
          stats.frames.push({ ms, worker_ms: msg.ms, values: msg.result.values, at: performance.now() });
          root.dispatchEvent(new CustomEvent("attnlib-live-frame", { detail: msg.result }));
        }
        send();
      });
    };
    let last = "";
    const request = () => {
      const key = JSON.stringify(values);
      if (key === last) return; // the same frame again (a range's input and change events)
      last = key;
      pending = { ...values };
      if (!inflight) send();
    };
    const panel = el("div", { class: "attnlib-live-controls" });
    const inits = spec.controls.map((control, k) => {
      const index = currentIndex(root, control, control.kind === "slider"
        ? spec.controls.filter((c) => c.kind === "slider").indexOf(control)
        : spec.controls.filter((c) => c.kind === "toggle").indexOf(control));
      const onValue = (v) => { values[control.name] = v; if (ready) request(); };
      const made = control.range ? rangeControl(control, index, onValue)
                                 : listControl(control, index, onValue);
      panel.append(made.row);
      return made.init;
    });
    let ready = false;
    inits.forEach((f) => f());
    ready = true;
    // The frozen controls give way to the live ones (the frozen frames stay for the picture).
    root.querySelectorAll(".widget-hslider, .widget-toggle-buttons").forEach((c) =>
      c.classList.add("attnlib-live-hidden"));
    root.prepend(panel);
    panel.append(status);
    bar.button.textContent = "실시간 계산 켜짐";
    request();
  }

  // ------------------------------------------------------------------ exercises ----
  let editorModule = null;
  const loadEditor = () => (editorModule ||= import(new URL("editor.js", HERE).href));

  // An exercise's code in an editor: a stub with its checker cell (`check`: the checker's
  // source, `outputCell`: the checker cell, whose built output the verdict replaces), or a
  // solution run as it is (`check` empty, `outputCell`: the solution cell itself).
  async function goLiveExercise(codeCell, outputCell, key, bar, { check, kind }) {
    const storageKey = `attnlib-live:${location.pathname}:${key}${kind === "solution" ? ":sol" : ""}`;
    const input = codeCell.querySelector(".cell_input");
    const original = (input.querySelector("pre") || input).textContent.replace(/\n$/, "");
    let saved = null;
    try { saved = localStorage.getItem(storageKey); } catch (_) { /* private mode */ }
    const { createEditor, setText } = await loadEditor();
    const holder = el("div", { class: "attnlib-live-editor" });
    input.classList.add("attnlib-live-hidden");
    input.after(holder);
    const verdict = el("pre", { class: "attnlib-live-verdict", role: "status", "aria-live": "polite" });
    verdict.hidden = true;
    const runText = kind === "solution" ? "실행" : "실행하고 채점";
    const run = el("button", { type: "button", class: "attnlib-live-run", text: runText });
    const reset = el("button", { type: "button", class: "attnlib-live-reset", text: "처음 코드로" });
    const runBar = el("div", { class: "attnlib-live" }, run, reset);
    holder.after(runBar);
    outputCell.after(verdict);
    const save = (text) => { try { localStorage.setItem(storageKey, text); } catch (_) { /* full */ } };
    const halt = el("button", { type: "button", class: "attnlib-live-stop", text: "멈추기" });
    halt.hidden = true;
    halt.addEventListener("click", stop);
    runBar.append(halt);
    const runIt = async () => {
      if (run.disabled) return;
      run.disabled = true;
      halt.hidden = false;
      verdict.hidden = false;
      verdict.textContent = kind === "solution" ? "실행 중…" : "채점 중…";
      // What the reader's run prints replaces what the book's build printed there.
      const built = outputCell.querySelector(".cell_output");
      if (built) built.classList.add("attnlib-live-hidden");
      const msg = await ask({ type: "exercise", code: view.state.doc.toString(), check });
      verdict.textContent = (msg.stopped ? "계산을 멈췄습니다"
        : msg.error ? `오류: ${msg.error}` : msg.text).replace(/\n$/, "");
      run.disabled = false;
      halt.hidden = true;
    };
    const what = kind === "solution" ? `해답 ${key}의 코드` : `연습 ${key}의 코드`;
    const view = createEditor(holder, saved ?? original, {
      onChange: save, onRun: runIt, label: `${what} (Shift+Enter: ${runText})`,
    });
    run.addEventListener("click", runIt);
    reset.addEventListener("click", () => { setText(view, original); save(original); });
    bar.button.hidden = true; // the bar stays: it shows the loading progress
    return view;
  }

  // ------------------------------------------------------------------ set up ----
  // A bar with its button after `node`; a click disables the button, joins the bars that show
  // the worker's progress, and runs `go(bar)`, whose failure the bar says.
  function offer(node, label, go) {
    const bar = makeBar(label);
    node.after(bar.node);
    bar.button.addEventListener("click", async () => {
      bars.add(bar);
      bar.button.disabled = true;
      try {
        if (location.protocol === "file:") throw new Error(FILE_PAGE);
        await go(bar);
      } catch (err) {
        stats.errors.push(String(err));
        bar.status.textContent = `실시간 계산을 켜지 못했습니다: ${err.message || err}`;
      }
    }, { once: true });
  }

  function setUp() {
    if (!document.querySelector(`${SPEC}, .attnlib-ex-stub, .attnlib-ex-sol`)) return;
    document.head.append(el("style", { text: CSS }));
    for (const tag of document.querySelectorAll(SPEC)) {
      offer(tag, "실시간 계산 켜기", async (bar) => {
        await start();
        await goLiveExplorer(tag, bar);
      });
    }
    for (const stub of document.querySelectorAll(".cell.attnlib-ex-stub")) {
      const key = [...stub.classList].find((c) => c.startsWith("attnlib-ex-id-"));
      const check = key && document.querySelector(`.cell.attnlib-ex-check.${key}`);
      if (!check) continue;
      const source = (check.querySelector(".cell_input pre") || check).textContent;
      offer(stub, "실시간 계산 켜기: 여기서 풀고 채점", (bar) => {
        start().catch(() => {});  // the editor opens at once; running waits for Python
        return goLiveExercise(stub, check, key.slice("attnlib-ex-id-".length), bar,
                              { check: source, kind: "stub" });
      });
    }
    // A derivation's solution, edited and run as it is: the build marks only those that can
    // be (_ext/live.py offered_solution: no stub, no PyTorch).
    for (const sol of document.querySelectorAll(".cell.attnlib-ex-sol")) {
      const key = [...sol.classList].find((c) => c.startsWith("attnlib-ex-id-"));
      if (!key) continue;
      offer(sol, "실시간 계산 켜기: 이 코드를 고쳐 실행", (bar) => {
        start().catch(() => {});
        return goLiveExercise(sol, sol, key.slice("attnlib-ex-id-".length), bar,
                              { check: "", kind: "solution" });
      });
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
