// The built book's live Python under Node, started as the page's worker starts it
// (start.mjs), from a live folder (the book's _static/live/): for the Node scripts.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { startPython } from "./start.mjs";

export async function nodeLive(liveDir, { bytecode = true } = {}) {
  const live = path.resolve(liveDir);
  const manifest = JSON.parse(fs.readFileSync(path.join(live, "manifest.json"), "utf8"));
  const { loadPyodide } = createRequire(import.meta.url)(path.join(live, "pyodide", "pyodide.js"));
  const py = await startPython({
    loadPyodide, indexURL: path.join(live, "pyodide") + "/", manifest, bytecode,
    url: (rel) => path.join(live, rel),
    read: async (rel) => new Uint8Array(fs.readFileSync(path.join(live, rel))),
  });
  return { py, manifest };
}
