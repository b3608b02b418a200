#!/usr/bin/env bash
# Build the JavaScript and CSS the offline book needs from npm packages (versions pinned by
# package-lock.json) into _assets/vendor/; Sphinx copies it to _build/html/_static/vendor/.
# (Not _static/: Jupyter Book adds every .js under a root _static/ folder to every page.)
#   vendor/explorer.js       the book's explorers (scripts/explorer/, minified by esbuild):
#                            native controls over frames that are files (attnlib.explorer_page)
#   vendor/live/             the live book's page script, Web Worker and code editor
#                            (scripts/live/; the Python they load comes from `make pyodide`)
#   vendor/katex/            KaTeX's stylesheet and its woff2 fonts; the formulas themselves
#                            are typeset at build time (_ext/katex_math.py), no math script
# Licenses travel with them (vendor/*/LICENSE, vendor/live/LICENSES.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
out=_assets/vendor
rm -rf "$out"
mkdir -p "$out/katex/fonts"
nm=node_modules

node scripts/explorer/build.mjs "$out/explorer.js"
node scripts/live/build.mjs "$out/live"

kx="$nm/katex/dist"
# Every browser the book supports reads woff2: the stylesheet names only those files.
sed -e 's/,url(fonts\/[A-Za-z0-9_-]*\.woff) format("woff")//g' \
    -e 's/,url(fonts\/[A-Za-z0-9_-]*\.ttf) format("truetype")//g' \
    "$kx/katex.min.css" > "$out/katex/katex.min.css"
if grep -q 'format("woff")\|format("truetype")' "$out/katex/katex.min.css"; then
    echo "katex.min.css still names woff/ttf fonts: update the sed above" >&2
    exit 1
fi
cp "$kx"/fonts/*.woff2 "$out/katex/fonts/"
cp "$nm/katex/LICENSE" "$nm/katex/package.json" "$out/katex/"

echo "vendored into $out: $(du -sh "$out" | cut -f1)"
