// The live book's scripts, into OUT (scripts/vendor_js.sh: _assets/vendor/live/):
//     node scripts/live/build.mjs OUT
//   live.js    the page's button and controls (small: the only live file a page loads
//              before a click)
//   worker.js  the Web Worker that runs Pyodide (loads _static/live/ after the click)
//   editor.js  CodeMirror 6 with Python, an ES module imported after the click
// and LICENSES.txt for what editor.js bundles.
import * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";
import fs from "node:fs";
import path from "node:path";
import { packageBytes, writeLicenses } from "../bundle_report.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) throw new Error("usage: node build.mjs OUT");
fs.mkdirSync(out, { recursive: true });

const common = { bundle: true, minify: true, target: ["es2020"], logLevel: "warning",
                 legalComments: "eof" };
for (const name of ["live", "worker"]) {
  await esbuild.build({ ...common, entryPoints: [path.join(here, `${name}.js`)], format: "iife",
                        outfile: path.join(out, `${name}.js`) });
}
const result = await esbuild.build({ ...common, entryPoints: [path.join(here, "editor.js")],
                                     format: "esm", metafile: true,
                                     outfile: path.join(out, "editor.js") });
writeLicenses(path.join(out, "LICENSES.txt"),
  "Bundled into editor.js (license texts in the file's closing comments):",
  packageBytes(result.metafile));
const size = (f) => `${(fs.statSync(path.join(out, f)).size / 1024).toFixed(0)} kB`;
console.log(`live/: live.js ${size("live.js")}, worker.js ${size("worker.js")}, editor.js ${size("editor.js")}`);
