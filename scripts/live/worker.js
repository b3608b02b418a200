// The live book's Python: Pyodide with NumPy, matplotlib and attnlib, in a Web Worker, so
// that computing a frame or grading an exercise never blocks the page.  Every file comes
// from the book itself (`base`, the book's _static/live/): no CDN, no other site.
//
// Messages in:  {type: "init", base}                       -> progress..., ready | failed
//               {type: "frame", id, spec, values}            -> frame {id, result | error}
//               {type: "exercise", id, code, check}          -> exercise {id, text | error}
// Python runs one message at a time; the page keeps at most one frame per explorer queued.
/* global importScripts, loadPyodide */
let py = null;
let live = null;

const T0 = performance.now();
function progress(text, fraction) {
  self.postMessage({ type: "progress", text, fraction, ms: performance.now() - T0 });
}

async function init(base) {
  const t0 = performance.now();
  const manifest = await (await fetch(base + "manifest.json")).json();
  progress("Python(Pyodide) 불러오는 중", 0.05);
  importScripts(base + "pyodide/pyodide.js");
  const fontlist = manifest.fontlist && fetch(base + manifest.fontlist).then((r) => r.arrayBuffer());
  py = await loadPyodide({ indexURL: base + "pyodide/", env: { MPLBACKEND: "agg" } });
  progress("NumPy, matplotlib 불러오는 중", 0.35);
  let loaded = 0;
  const names = ["numpy", "matplotlib", "pillow"];
  await py.loadPackage(names, {
    messageCallback: (msg) => {
      if (msg.startsWith("Loaded")) loaded += 1;
      progress(`NumPy, matplotlib 불러오는 중 (${msg.replace(/^Loading /, "")})`,
               0.35 + 0.4 * Math.min(1, loaded / 12));
    },
    errorCallback: (msg) => console.warn(msg),
  });
  if (fontlist) { // matplotlib's font list, made at build time (scripts/live/font_cache.mjs)
    const site = py.runPython("import sysconfig; sysconfig.get_path('purelib')");
    py.FS.writeFile(`${site}/matplotlib/fontlist.json`, new Uint8Array(await fontlist));
  }
  progress("attnlib 불러오는 중", 0.8);
  await py.loadPackage(manifest.wheels.map((w) => base + w), { messageCallback: () => {} });
  progress("attnlib 준비 중", 0.9);
  py.runPython("import attnlib.live as live\nlive.browser_setup()");
  live = py.pyimport("attnlib.live");
  progress("준비됨", 1);
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
