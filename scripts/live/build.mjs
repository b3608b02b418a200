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
const [output] = Object.values(result.metafile.outputs);
const bytes = new Map();
for (const [file, info] of Object.entries(output.inputs)) {
  const m = file.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  const key = m ? m[1] : "(the book's own code)";
  bytes.set(key, (bytes.get(key) || 0) + info.bytesInOutput);
}
const lines = [...bytes].sort((a, b) => b[1] - a[1]).map(([name, n]) => {
  if (name.startsWith("(")) return `${name}: ${n} bytes`;
  const pkg = JSON.parse(fs.readFileSync(path.join("node_modules", name, "package.json"), "utf8"));
  return `${name}@${pkg.version} (${pkg.license}): ${n} bytes`;
});
fs.writeFileSync(path.join(out, "LICENSES.txt"),
  "Bundled into editor.js (license texts in the file's closing comments):\n" + lines.join("\n") + "\n");
const size = (f) => `${(fs.statSync(path.join(out, f)).size / 1024).toFixed(0)} kB`;
console.log(`live/: live.js ${size("live.js")}, worker.js ${size("worker.js")}, editor.js ${size("editor.js")}`);
