// 「실시간 계산 켜기」: explorers and exercises computed in the reader's browser.
//
// This small script is all a page loads until a reader asks.  It puts a button under every
// explorer that carries a live spec (attnlib.live.explorer: the explorer's page data names the
// class and inputs to rebuild) and under every exercise's stub cell (marked by _ext/live.py).
// A click starts one Web Worker for the page (worker.js: Pyodide, NumPy, matplotlib and
// attnlib, from the book's own _static/live/), with its progress shown, and then:
//   - an explorer keeps its controls (explorer.js) and takes its frames from the worker: a
//     slider with a range takes any value in it, the others keep their values.  At most one
//     frame per explorer is in flight; the newest value waits, older ones are dropped.
//   - an exercise's stub becomes a code editor (CodeMirror, editor.js, loaded then); 「실행하고
//     채점」 runs it and the chapter's attnlib.check call, and the verdict shows below.  The
//     code is kept in localStorage, so it survives a reload.
// A reader who turned an explorer live is remembered (localStorage): on the next page with
// explorers, Python starts in an idle moment and they go live by themselves, until the reader
// presses 「다음 페이지부터 자동으로 켜지 않기」.
(() => {
  "use strict";
  const SPEC = 'script[type="application/vnd.attnlib.explorer+json"]';
  const AUTO = "attnlib-live-auto"; // a reader who went live once: the next pages start Python
  const HERE = document.currentScript ? document.currentScript.src : location.href;
  const BASE = new URL("../../live/", HERE).href; // _static/vendor/live/ -> _static/live/
  const stats = (window.attnlibLive = { frames: [], progress: [], ready: null, clicked: null, errors: [], auto: false });

  const CSS = `
.attnlib-live{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;margin:.4rem 0;font-size:.9rem}
.attnlib-live button{font:inherit;padding:.2rem .7rem;border:1px solid var(--pst-color-border,#888);border-radius:4px;background:var(--pst-color-surface,#f6f6f6);color:var(--pst-color-text-base,#222);cursor:pointer}
.attnlib-live button[disabled]{opacity:.6;cursor:default}
.attnlib-live progress{width:10rem}
.attnlib-live-status,.attnlib-live-frame{contain:content;min-width:12rem}
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
    showProgress("계산을 멈췄습니다. 다시 실행하면 파이썬을 새로 불러옵니다.", null, true);
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
  // The explorer keeps its controls (explorer.js); going live changes where its frames come
  // from: the worker, by the library code the chapter's cell ran.
  // A frame counts (window.attnlibLive.frames) when the explorer has drawn it.
  function frameSource(root, spec) {
    let last = null;
    root.addEventListener("attnlib-frame", () => {
      if (!last) return;
      const at = performance.now();
      stats.frames.push({ ms: at - last.t0, worker_ms: last.ms, values: last.values, at });
      last = null;
    });
    return (values) => {
      const t0 = performance.now();
      return ask({ type: "frame", spec: spec.python, values }).then((msg) => {
        if (msg.stopped || msg.error) return msg;
        last = { t0, ms: msg.ms, values: msg.result.values };
        return msg.result;
      });
    };
  }

  async function goLiveExplorer(root, bar) {
    const explorer = window.attnlibExplorers && window.attnlibExplorers.get(root);
    if (!explorer) throw new Error("이 탐색기의 조절기를 찾지 못했습니다");
    explorer.goLive(frameSource(root, explorer.data));
    bar.button.hidden = true; // its status says so instead
    bar.progress.hidden = true;
    bar.status.textContent = "실시간 계산 켜짐";
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
    const run = async () => {
      if (bar.button.disabled) return;
      bars.add(bar);
      bar.button.disabled = true;
      try {
        if (location.protocol === "file:") throw new Error(FILE_PAGE);
        await go(bar);
      } catch (err) {
        stats.errors.push(String(err));
        bar.status.textContent = `실시간 계산을 켜지 못했습니다: ${err.message || err}`;
      }
    };
    bar.button.addEventListener("click", run, { once: true });
    return { bar, run };
  }

  // ------------------------------------------------------------ remembered ----
  function remembered() {
    try { return localStorage.getItem(AUTO) === "1"; } catch (_) { return false; }
  }

  function remember(on) {
    try {
      if (on) localStorage.setItem(AUTO, "1");
      else localStorage.removeItem(AUTO);
    } catch (_) { /* private mode: nothing is remembered */ }
  }

  // A reader who went live on an earlier page: Python starts in this page's first idle
  // moment and its explorers go live; each bar says so and offers to stop doing it.
  function autoLive(goes) {
    if (location.protocol === "file:") return;
    stats.auto = true;
    for (const { bar } of goes) {
      const off = el("button", { type: "button", class: "attnlib-live-auto-off",
                                 text: "다음 페이지부터 자동으로 켜지 않기" });
      off.addEventListener("click", () => {
        remember(false);
        off.remove();
        bar.status.textContent = "다음 페이지부터는 단추를 눌러야 켜집니다";
      }, { once: true });
      bar.node.append(off);
    }
    const go = () => goes.forEach(({ run }) => run());
    if (window.requestIdleCallback) requestIdleCallback(go, { timeout: 2000 });
    else setTimeout(go, 500);
  }

  function setUp() {
    if (!document.querySelector(`${SPEC}, .attnlib-ex-stub, .attnlib-ex-sol`)) return;
    if (!window.attnlibExplorers && document.querySelector(".attn-explorer")) {
      // explorer.js has run before (the parser runs it before the first explorer); wait
      // for it otherwise
      document.addEventListener("attnlib-explorers", setUp, { once: true });
      return;
    }
    document.head.append(el("style", { text: CSS }));
    const roots = [...document.querySelectorAll(".attn-explorer")].filter(
      (root) => JSON.parse(root.querySelector(SPEC).textContent).python);
    const goes = roots.map((root) => offer(root, "실시간 계산 켜기", async (bar) => {
      remember(true);
      await start();
      await goLiveExplorer(root, bar);
    }));
    if (roots.length && remembered()) autoLive(goes);
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
