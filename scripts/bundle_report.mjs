// What an esbuild bundle is made of, for the vendoring scripts (scripts/widgets/build.mjs,
// scripts/live/build.mjs): the npm packages that went into one output, largest first, with
// their bytes in the output, versions and licenses (read from node_modules).
import fs from "node:fs";
import path from "node:path";

// [[package or "(the book's own code)", bytes], …] for the metafile's single output.
export function packageBytes(metafile) {
  const [output] = Object.values(metafile.outputs);
  const bytes = new Map();
  for (const [file, info] of Object.entries(output.inputs)) {
    const m = file.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    const key = m ? m[1] : "(the book's own code)";
    bytes.set(key, (bytes.get(key) || 0) + info.bytesInOutput);
  }
  return [...bytes].sort((a, b) => b[1] - a[1]);
}

// Writes LICENSES.txt-style lines ("name@version (license): n bytes") under a heading.
export function writeLicenses(file, heading, ranked) {
  const lines = ranked.map(([name, n]) => {
    if (name.startsWith("(")) return `${name}: ${n} bytes`;
    const pkg = JSON.parse(fs.readFileSync(path.join("node_modules", name, "package.json"), "utf8"));
    return `${name}@${pkg.version} (${pkg.license}): ${n} bytes`;
  });
  fs.writeFileSync(file, `${heading}\n${lines.join("\n")}\n`);
}
