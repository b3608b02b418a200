// How the live book starts its Python, the same in the page's Web Worker (worker.js) and in
// the Node scripts (run_in_pyodide.mjs, bytecode.mjs): Pyodide, then NumPy, matplotlib and
// Pillow, matplotlib's font list made at build time, attnlib's wheel, and attnlib.live set up.
//
// The book's compiled Python (bytecode.zip, made by bytecode.mjs when the book is built) is
// fetched while Pyodide's core starts: its standard-library part goes first on PYTHONPATH
// (so Pyodide's own start uses it), its package part is unpacked next to the wheels' sources.
// Every .pyc in it is hash-checked (PEP 552): a source that differs is compiled as before.
export const PACKAGES = ["numpy", "matplotlib", "pillow"];
const BYTECODE = "/lib/attnlib-bytecode.zip";

async function checked(bytesPromise, sha256, name) {
  const bytes = await bytesPromise;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  if (hex !== sha256) throw new Error(`${name}: sha256 ${hex}, the book's manifest says ${sha256}`);
  return bytes;
}

// loadPyodide: Pyodide's loader; indexURL: where its files are; url(rel): a file of the live
// folder (a URL in the browser, a path in Node); read(rel): its bytes (Promise<Uint8Array>);
// manifest: the live folder's manifest.json; progress(text, fraction, detail).
export async function startPython({ loadPyodide, indexURL, url, read, manifest,
                                    progress = () => {}, bytecode = true }) {
  const code = bytecode && manifest.bytecode
    ? checked(read(manifest.bytecode.path), manifest.bytecode.sha256, manifest.bytecode.path)
    : null;
  const fontlist = manifest.fontlist ? read(manifest.fontlist) : null;
  for (const p of [code, fontlist]) p?.catch(() => {}); // awaited below, and reported there
  progress("파이썬(Pyodide) 불러오는 중", 0.05);
  const env = { MPLBACKEND: "agg" };
  if (code) env.PYTHONPATH = `${BYTECODE}/stdlib`;
  const py = await loadPyodide({
    indexURL, env,
    fsInit: code ? async (FS) => FS.writeFile(BYTECODE, await code) : undefined,
  });
  progress("NumPy, matplotlib 불러오는 중", 0.35);
  let loaded = 0;
  await py.loadPackage(PACKAGES, {
    messageCallback: (msg) => {
      if (msg.startsWith("Loaded")) loaded += 1;
      progress("NumPy, matplotlib 불러오는 중", 0.35 + 0.4 * Math.min(1, loaded / 12),
               msg.replace(/^Loading /, ""));
    },
    errorCallback: (msg) => console.warn(msg),
  });
  progress("attnlib 불러오는 중", 0.8);
  await py.loadPackage(manifest.wheels.map(url), { messageCallback: () => {} });
  const site = String(py.runPython("import sysconfig; sysconfig.get_path('purelib')"));
  if (fontlist) py.FS.writeFile(`${site}/matplotlib/fontlist.json`, await fontlist);
  if (code) { // before Python imports anything from the wheels
    py.runPython(`
import os, zipfile
with zipfile.ZipFile("${BYTECODE}") as z:
    for name in z.namelist():
        if name.startswith("site-packages/"):  # …/__pycache__/*.pyc next to the sources
            path = os.path.join("${site}", name.removeprefix("site-packages/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as fh:
                fh.write(z.read(name))
`);
  }
  progress("attnlib 준비 중", 0.9);
  py.runPython("import attnlib.live as live\nlive.browser_setup()");
  progress("준비됨", 1);
  return py;
}
