#!/usr/bin/env bash
# Build the JavaScript and CSS the offline book needs from npm packages (versions pinned by
# package-lock.json) into _assets/vendor/; Sphinx copies it to _build/html/_static/vendor/.
# (Not _static/: Jupyter Book adds every .js under a root _static/ folder to every page.)
#   vendor/explorer.js       the book's explorers (scripts/explorer/, minified by esbuild):
#                            native controls over frames that are files (attnlib.explorer_page)
#   vendor/live/             the live book's page script, Web Worker and code editor
#                            (scripts/live/; the Python they load comes from `make pyodide`)
# (The math font is not vendored: _ext/math_font.py cuts it from node_modules at each build.)
# Licenses travel with them (vendor/*/LICENSE, vendor/live/LICENSES.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
out=_assets/vendor
rm -rf "$out"
mkdir -p "$out"

node scripts/explorer/build.mjs "$out/explorer.js"
node scripts/live/build.mjs "$out/live"

echo "vendored into $out: $(du -sh "$out" | cut -f1)"
