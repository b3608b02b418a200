// The live book's Python: Pyodide with NumPy, matplotlib and attnlib, in a Web Worker, so
// that computing a frame or grading an exercise never blocks the page.  Every file comes
// from the book itself (`base`, the book's _static/live/): no CDN, no other site.
//
// Messages in:  {type: "init", base}                       -> progress..., ready | failed
//               {type: "frame", id, spec, values}            -> frame {id, result | error}
//               {type: "exercise", id, code, check}          -> exercise {id, text | error}
// Python runs one message at a time; the page keeps at most one frame per explorer queued.
/* global importScripts, loadPyodide */
import { startPython } from "./start.mjs";

let py = null;
let live = null;

const T0 = performance.now();
function progress(text, fraction, detail) {
  self.postMessage({ type: "progress", text: detail ? `${text} (${detail})` : text, fraction,
                     ms: performance.now() - T0 });
}

async function init(base) {
  const t0 = performance.now();
  const manifest = await (await fetch(base + "manifest.json")).json();
  const read = async (rel) => {
    const response = await fetch(base + rel);
    if (!response.ok) throw new Error(`${rel}: HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  };
  importScripts(base + "pyodide/pyodide.js");
  py = await startPython({ loadPyodide, indexURL: base + "pyodide/", url: (rel) => base + rel,
                           read, manifest, progress });
  live = py.pyimport("attnlib.live");
  self.postMessage({ type: "ready", ms: performance.now() - t0 });
}

self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.type === "init") {
    try {
      await init(msg.base);
    } catch (err) {
      self.postMessage({ type: "failed", error: String(err && err.message || err) });
    }
    return;
  }
  const t0 = performance.now();
  try {
    if (msg.type === "frame") {
      const values = py.toPy(msg.values);
      const result = JSON.parse(live.frame(msg.spec, values));
      values.destroy();
      self.postMessage({ type: "frame", id: msg.id, result, ms: performance.now() - t0 });
    } else if (msg.type === "exercise") {
      const text = live.run_exercise(msg.code, msg.check);
      self.postMessage({ type: "exercise", id: msg.id, text, ms: performance.now() - t0 });
    }
  } catch (err) {
    self.postMessage({ type: msg.type, id: msg.id, error: String(err && err.message || err) });
  }
};
