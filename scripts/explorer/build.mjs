// The book's explorer script (explorer.js: native controls over frame files), minified:
//     node scripts/explorer/build.mjs OUT.js
// It bundles no npm package; its size is printed (issue 33: at most 20 kB gzip).
import * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) throw new Error("usage: node build.mjs OUT.js");
await esbuild.build({
  entryPoints: [path.join(here, "explorer.js")], bundle: true, minify: true, format: "iife",
  target: ["es2020"], legalComments: "none", outfile: out, logLevel: "warning",
});
const data = fs.readFileSync(out);
const gz = zlib.gzipSync(data, { level: 6 }).length;
console.log(`explorer.js: ${(data.length / 1024).toFixed(1)} kB, ${(gz / 1024).toFixed(1)} kB gzip`);
if (gz > 20 * 1024) throw new Error(`explorer.js is ${gz} bytes gzip: over its 20 kB budget`);
