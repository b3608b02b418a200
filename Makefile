# The README's commands. Everything runs inside .venv, created on demand.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export PYTHONHASHSEED := 0
export MPLBACKEND := module://matplotlib_inline.backend_inline

.PHONY: venv vendor book serve test unit nbval browser colab notebooks bench lint clean

venv: $(STAMP)
$(STAMP): requirements.txt lib/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

# JavaScript for the offline book (widget manager, require.js, MathJax) from npm.
vendor: _static/vendor/.stamp
_static/vendor/.stamp: package.json package-lock.json scripts/vendor_js.sh
	bash scripts/vendor_js.sh
	touch $@

# The book: every notebook executed, frozen sliders precomputed, warnings are errors.
book: venv vendor
	rm -rf _build/html _build/.doctrees
	ATTNLIB_WIDGETS=frozen $(BIN)/jupyter-book build . -W -n --keep-going

serve: book
	$(BIN)/python -m http.server --directory _build/html 8000

unit: venv
	$(BIN)/python -m pytest tests -m "not browser and not colab" -q

nbval: venv
	$(BIN)/python -m pytest --nbval chapters --nbval-sanitize-with tests/nbval_sanitize.cfg -q -p no:cacheprovider

browser: venv
	$(BIN)/python -m pytest tests -m browser -q

colab: venv
	$(BIN)/python -m pytest tests -m colab -q

# Everything CI checks: unit tests, nbval, the strict build, the browser.
test: unit nbval book browser colab

# Re-execute every chapter and strip widget state, so stored outputs are current.
notebooks: venv
	$(BIN)/python scripts/execute_notebooks.py chapters

bench: venv
	$(BIN)/python benchmarks/run.py

lint: venv
	$(BIN)/ruff check lib tests

clean:
	rm -rf _build _static/vendor node_modules
