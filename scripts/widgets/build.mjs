// Bundle the book's widget manager (entry.js) with esbuild into one minified script, and
// its CSS (ipywidgets' controls, Lumino, JupyterLab's variables) into one stylesheet:
//     node scripts/widgets/build.mjs OUT.js      (writes OUT.js, OUT.css, OUT.LICENSES.txt)
// Prints the bundle's largest inputs, so a new import that drags in a library shows at
// vendoring time.
import * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";
import fs from "node:fs";
import path from "node:path";
import { packageBytes, writeLicenses } from "../bundle_report.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) throw new Error("usage: node build.mjs OUT.js");

await esbuild.build({
  entryPoints: [path.join(here, "widgets.css")],
  bundle: true,
  minify: true,
  outfile: out.replace(/\.js$/, ".css"),
  logLevel: "warning",
  loader: { ".svg": "dataurl" },
});

// base-manager imports sanitize-html for HTML descriptions; the book has none (entry.js
// shows descriptions as text), so a stand-in that refuses keeps it out of the bundle.
const noSanitizer = {
  name: "no-sanitize-html",
  setup(build) {
    build.onResolve({ filter: /^sanitize-html$/ }, (a) => ({ path: a.path, namespace: "stub" }));
    build.onLoad({ filter: /.*/, namespace: "stub" }, () => ({
      contents: 'export default function sanitize() { throw new Error("not bundled"); }\n',
      loader: "js",
    }));
  },
};

const result = await esbuild.build({
  entryPoints: [path.join(here, "entry.js")],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  legalComments: "eof",
  outfile: out,
  metafile: true,
  logLevel: "warning",
  plugins: [noSanitizer],
});

// Which npm packages went in, how many bytes each: printed, and written with their
// licenses next to the bundle.
const ranked = packageBytes(result.metafile);
writeLicenses(out.replace(/\.js$/, ".LICENSES.txt"),
  "Bundled into widgets.js (license texts in the file's closing comments):", ranked);
console.log(`widgets.js: ${(fs.statSync(out).size / 1024).toFixed(0)} kB; `
  + ranked.slice(0, 6).map(([k, v]) => `${k} ${(v / 1024).toFixed(0)}k`).join(", "));
