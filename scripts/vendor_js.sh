#!/usr/bin/env bash
# Copy the JavaScript the offline book needs from npm packages (versions pinned by
# package-lock.json) into _assets/vendor/; Sphinx copies it to _build/html/_static/vendor/.
# (Not _static/: Jupyter Book adds every .js under a root _static/ folder to every page.)
#   vendor/require.js                RequireJS (AMD loader used by the widget manager)
#   vendor/widgets-config.js         points RequireJS at vendor/html-manager/ (ours)
#   vendor/html-manager/embed-amd.js @jupyter-widgets/html-manager (renders saved widget state)
#   vendor/html-manager/*.woff2 ...  the fonts the bundle requests next to itself
#   vendor/mathjax/                  MathJax 3 (es5 build: tex-chtml.js and what it loads)
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
out=_assets/vendor
rm -rf "$out"
mkdir -p "$out/html-manager" "$out/mathjax"

nm=node_modules
cp "$nm/requirejs/require.js" "$out/require.js"
cp "$nm/requirejs/package.json" "$out/requirejs.package.json"

hm="$nm/@jupyter-widgets/html-manager"
cp "$hm/dist/embed-amd.js" "$out/html-manager/"
cp "$hm"/dist/*.woff2 "$hm"/dist/*.woff "$hm"/dist/*.ttf "$hm"/dist/*.eot "$hm"/dist/*.svg "$out/html-manager/"
cp "$hm/package.json" "$out/html-manager/package.json"
[ -f "$hm/LICENSE" ] && cp "$hm/LICENSE" "$out/html-manager/LICENSE"
cp "$hm/dist/embed.js.LICENSE.txt" "$out/html-manager/THIRD-PARTY-LICENSES.txt"

mj="$nm/mathjax"
cp -r "$mj/es5/." "$out/mathjax/"

cp "$mj/LICENSE" "$mj/package.json" "$out/mathjax/"

cat > "$out/widgets-config.js" <<'JS'
// Resolve the widget manager's AMD modules to this folder, so that the bundle's
// public path (and hence its font files) is vendor/html-manager/ on every page,
// whatever the page's depth.  Loaded after require.js, before embed-amd.js.
(function () {
  var here = document.currentScript.src.replace(/[^/]*$/, "");
  window.require.config({
    paths: { "@jupyter-widgets/html-manager/dist": here + "html-manager" }
  });
  // The widget manager typesets descriptions with MathJax 2's MathJax.Hub.Queue; the
  // book runs MathJax 3, so give it that one call, mapped onto typesetPromise.  This
  // listener is registered before the manager's own "load" listener, so it runs first.
  window.addEventListener("load", function () {
    var mj = window.MathJax;
    if (mj && !mj.Hub) {
      mj.Hub = {
        Queue: function (cmd) {
          var el = cmd && cmd[2];
          if (el && mj.typesetPromise) mj.typesetPromise([el]).catch(function () {});
        }
      };
    }
  });
})();
JS
echo "vendored into $out: $(du -sh "$out" | cut -f1)"
