// Compiled Python (.pyc) for the live book, made when the book is built, in Pyodide under Node:
//     node scripts/live/bytecode.mjs LIVE_DIR JOBS.json     (writes LIVE_DIR/bytecode.zip)
// LIVE_DIR: the built book's _static/live/; JOBS.json: {"frames": [{"spec", "values"}],
// "exercises": [{"code", "check"}]}, every explorer's first frame and every exercise
// (_ext/live.py writes it).
//
// Pyodide 0.27.7 ships Python sources only (its standard library zip and every wheel), so a
// reader's browser compiles each module it imports: on 2 cores about 2 s of Pyodide's own
// start and 3 s of NumPy's and matplotlib's imports.  Here the modules that the jobs import
// are compiled once, by the same Pyodide, into hash-checked .pyc files (PEP 552: Python reads
// the source and uses the .pyc only if the source has the hash it was compiled from;
// otherwise it compiles the source, as without this file):
//   stdlib/…          .pyc of standard-library modules (and Pyodide's own), without their
//                     sources (those stay in Pyodide's own zip, made from them here, with the
//                     book): start.mjs puts ".../stdlib" of this zip first on PYTHONPATH
//   site-packages/…   __pycache__/*.pyc of the wheels' modules (NumPy, matplotlib, Pillow,
//                     their dependencies, attnlib): start.mjs unpacks them by the sources
import fs from "node:fs";
import path from "node:path";
import { nodeLive } from "./node_live.mjs";

const [liveDir, jobsFile] = process.argv.slice(2);
if (!jobsFile) throw new Error("usage: node bytecode.mjs LIVE_DIR JOBS.json");
const { py } = await nodeLive(liveDir, { bytecode: false });
py.globals.set("jobs", py.toPy(JSON.parse(fs.readFileSync(jobsFile, "utf8"))));
const report = py.runPython(`
import importlib.util
import sys
import sysconfig
import zipfile
from importlib import _bootstrap_external

import attnlib.live as live

failed = 0
for job in jobs["frames"]:
    try:  # the frames are tested elsewhere (tests/book/test_live.py): here, their imports
        live.frame(job["spec"], job["values"])
    except Exception:
        failed += 1
for job in jobs["exercises"]:
    live.run_exercise(job["code"], job["check"])

STDLIB = next(p for p in sys.path if p.endswith(".zip"))
SITE = "/" + sysconfig.get_path("purelib").lstrip("/")


def pyc(source: bytes, origin: str) -> bytes:
    code = compile(source, origin, "exec", dont_inherit=True)
    return bytes(_bootstrap_external._code_to_hash_pyc(
        code, importlib.util.source_hash(source), checked=True))


entries = {}
with zipfile.ZipFile(STDLIB) as std:
    for mod in list(sys.modules.values()):
        origin = getattr(getattr(mod, "__spec__", None), "origin", None) or ""
        if not origin.endswith(".py"):
            continue
        if origin.startswith(STDLIB + "/"):
            rel = origin[len(STDLIB) + 1:]
            source = std.read(rel)
            entries["stdlib/" + rel + "c"] = pyc(source, origin)
        elif origin.startswith(SITE + "/"):
            with open(origin, "rb") as fh:
                source = fh.read()
            rel = importlib.util.cache_from_source(origin)[len(SITE) + 1:]
            entries["site-packages/" + rel] = pyc(source, origin)

with zipfile.ZipFile("/tmp/bytecode.zip", "w") as z:
    for name in sorted(entries):  # a fixed order and date
        z.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), entries[name],
                   compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
n_std = sum(1 for n in entries if n.startswith("stdlib/") and n.endswith(".pyc"))
n_site = len(entries) - n_std
(f"{n_std} standard-library and {n_site} package modules from {len(jobs['frames'])} frames "
 f"and {len(jobs['exercises'])} exercises" + (f" ({failed} frames failed)" if failed else ""))
`);
const out = path.join(liveDir, "bytecode.zip");
fs.writeFileSync(out, py.FS.readFile("/tmp/bytecode.zip"));
console.log(`bytecode.zip: ${report}, ${(fs.statSync(out).size / 1024).toFixed(0)} kB`);
