// Runs attnlib.live's frame and run_exercise in Pyodide under Node, as the book's worker does
// in the browser (the same files: the built book's _static/live/):
//     node scripts/live/run_in_pyodide.mjs BOOK_HTML JOBS.json  > RESULTS.json
// JOBS.json: {"frames": [{"spec": <spec.python>, "values": {...}}, ...],
//             "exercises": [{"code": ..., "check": ...}, ...]}
// RESULTS.json: {"frames": [{"values", "images", "ms"} | {"error"}], "exercises": [text, ...],
//                "load_ms": ...}
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [root, jobsFile] = process.argv.slice(2);
const live = path.join(root, "_static", "live");
const { loadPyodide } = createRequire(import.meta.url)(path.resolve(live, "pyodide", "pyodide.js"));
const t0 = performance.now();
const py = await loadPyodide({ indexURL: path.join(live, "pyodide") + "/", env: { MPLBACKEND: "agg" } });
await py.loadPackage(["numpy", "matplotlib", "pillow"], { messageCallback: () => {} });
const manifest = JSON.parse(fs.readFileSync(path.join(live, "manifest.json"), "utf8"));
await py.loadPackage(manifest.wheels.map((w) => path.join(live, w)), { messageCallback: () => {} });
py.runPython("import attnlib.live as live\nlive.browser_setup()");
const mod = py.pyimport("attnlib.live");
const load_ms = performance.now() - t0;
const jobs = JSON.parse(fs.readFileSync(jobsFile, "utf8"));
const frames = (jobs.frames || []).map((job) => {
  const t = performance.now();
  try {
    const values = py.toPy(job.values);
    const result = JSON.parse(mod.frame(job.spec, values));
    values.destroy();
    const images = result.outputs.filter((o) => o.data && (o.data["image/webp"] || o.data["image/png"])).length;
    return { values: result.values, alt: result.alt, images, ms: performance.now() - t };
  } catch (err) {
    return { error: String(err.message || err) };
  }
});
const exercises = (jobs.exercises || []).map((job) => mod.run_exercise(job.code, job.check));
process.stdout.write(JSON.stringify({ load_ms, frames, exercises }));
