// matplotlib's font list for the live book, made once at build time in Pyodide under Node, so
// that the reader's browser does not scan every font file when it first imports matplotlib:
//     node scripts/live/font_cache.mjs PYODIDE_DIR     (writes PYODIDE_DIR/fontlist.json)
// The paths in it are those of Pyodide's file system, the same in the browser.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const dir = path.resolve(process.argv[2]);
const { loadPyodide } = createRequire(import.meta.url)(path.join(dir, "pyodide.js"));
const py = await loadPyodide({ indexURL: dir + "/", env: { MPLBACKEND: "agg" } });
await py.loadPackage(["matplotlib"], { messageCallback: () => {} });
const cache = py.runPython(`
import json
import os

from matplotlib import font_manager

# Pyodide's matplotlib keeps it next to font_manager.py (its _load_fontmanager), not in
# MPLCONFIGDIR; written as json_dump writes it, without the lock file.
path = os.path.join(os.path.dirname(font_manager.__file__), "fontlist.json")
with open(path, "w") as fh:
    json.dump(font_manager.fontManager, fh, cls=font_manager._JSONEncoder, indent=2)
path
`);
const name = path.basename(String(cache));
fs.writeFileSync(path.join(dir, name), py.FS.readFile(String(cache)));
console.log(`${name}: ${py.runPython("len(font_manager.fontManager.ttflist)")} faces`);
