// Runs attnlib.live's frame and run_exercise in Pyodide under Node, as the book's worker does
// in the browser (the same files: the built book's _static/live/):
//     node scripts/live/run_in_pyodide.mjs BOOK_HTML JOBS.json  > RESULTS.json
// JOBS.json: {"frames": [{"spec": <spec.python>, "values": {...}}, ...],
//             "exercises": [{"code": ..., "check": ...}, ...]}
// RESULTS.json: {"frames": [{"values", "images", "ms"} | {"error"}], "exercises": [text, ...],
//                "load_ms": ..., "bytecode": {"used": N, "compiled": [module, ...]}}
import fs from "node:fs";
import path from "node:path";
import { nodeLive } from "./node_live.mjs";

const [root, jobsFile] = process.argv.slice(2);
const t0 = performance.now();
const { py } = await nodeLive(path.join(root, "_static", "live"));
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
// Which imported modules ran from the book's bytecode.zip, and which Python compiled here.
const bytecode = JSON.parse(py.runPython(`
import importlib.util, json, sys

used, compiled = [], []
for name, mod in sorted(sys.modules.items()):
    spec = getattr(mod, "__spec__", None)
    origin = getattr(spec, "origin", None) or ""
    if not origin.endswith((".py", ".pyc")):
        continue
    archive = getattr(spec.loader, "archive", None)  # a zipimporter's
    if archive is not None:
        ok = archive.endswith("-bytecode.zip")
    else:
        try:
            with open(importlib.util.cache_from_source(origin), "rb") as fh:
                head = fh.read(16)
            with open(origin, "rb") as fh:
                ok = head[4:8] == b"\\x03\\0\\0\\0" and head[8:16] == importlib.util.source_hash(fh.read())
        except OSError:
            ok = False
    (used if ok else compiled).append(name)
json.dumps({"used": len(used), "compiled": compiled})
`));
process.stdout.write(JSON.stringify({ load_ms, frames, exercises, bytecode }));
