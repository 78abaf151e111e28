# Entry points, each doing its own set-up in ./.venv (pinned versions from requirements.lock):
#   make book   -> executes every chapter (profile full by default) and renders _build/html
#   make pdf    -> the same, then the whole book as one PDF: _build/pdf/dadp-book.pdf
#   make test   -> the verdict on a change, on 2 workers: unit tests + the quick-profile book
#                  (every chapter executed once) + its HTML checks, the HTML also in
#                  headless Chromium (Debian's `chromium`; installed here with apt-get when
#                  running as root, otherwise the browser test is skipped)
#   make check  -> make test + the slow tiers (course grading, Dask, the PDF, full-size
#                  comparisons, a short seed sweep): what CI runs (.ci/run)
#   make unit   -> the unit tests alone (no chapter execution, no book build)
#   make sweep  -> the full seed sweep (every seeded chapter under many seeds; hours)
#   make lint   -> ruff check and ruff format --check: package, tests, benchmarks, tools and
#                  the chapters' code cells; mypy on dadp_lite and dadp_book, whose error counts
#                  may only go down (tools/mypy_ratchet.py; what CI runs before the tests)
#   make format -> ruff format the same files (the chapters' code cells in place)
#   make lock   -> rewrite requirements.lock after a change of pyproject.toml's dependencies
PYTHON ?= python3
VENV ?= .venv
PROFILE ?= full
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := requirements.lock
PY_SOURCES := dadp_lite dadp_book tests benchmarks tools

# The test tiers are pytest markers (pyproject.toml; the table of slow tests is in
# tests/conftest.py). WORKERS=1 runs in one process.
WORKERS ?= 2
PYTEST := $(BIN)/python -m pytest -q -n $(WORKERS) --dist loadgroup
#: seeds per chapter of make check's seed sweep (make sweep: the full one)
CHECK_SEEDS ?= 3

.PHONY: book pdf test check unit sweep lint format lock bench browser clean

$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r $(LOCK)
	@# setuptools' note on every editable install ("Editable installation ... careful with
	@# folders of the same name") is information, not a problem: kept off the terminal
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

# Incremental: only chapters whose code, parameters, data or dadp_lite changed execute again
# (cache in _build/cache); FORCE=1 executes everything.
book: $(STAMP)
	$(BIN)/dadp-book build --profile $(PROFILE) $(if $(FORCE),--force)

# The book as one PDF (title page, contents, figures, rendered math), printed by Chromium:
# _build/pdf/dadp-book.pdf.
pdf: $(STAMP) browser
	$(BIN)/dadp-book build --profile $(PROFILE) --pdf $(if $(FORCE),--force)

# Headless Chromium for tests/test_browser.py (never a browser download: Debian's package).
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing chromium (apt-get)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			chromium chromium-driver >/dev/null; \
	else \
		echo "chromium not found: tests/test_browser.py will be skipped" \
			"(install it with: sudo apt-get install chromium)"; \
	fi

test: $(STAMP) browser
	$(PYTEST) -m "not slow and not seed_sweep"

check: $(STAMP) browser
	$(PYTEST) -m "not seed_sweep"
	DADP_SEED_SWEEP_SEEDS=$(CHECK_SEEDS) DADP_SEED_SWEEP_SHORT=1 $(PYTEST) -m seed_sweep

unit: $(STAMP)
	$(PYTEST) -m "not book and not slow and not seed_sweep"

sweep: $(STAMP)
	$(PYTEST) -m seed_sweep

lint: $(STAMP)
	$(BIN)/ruff check $(PY_SOURCES)
	$(BIN)/ruff format --check $(PY_SOURCES)
	$(BIN)/python tools/ruff_chapters.py
	$(BIN)/python tools/mypy_ratchet.py

format: $(STAMP)
	$(BIN)/ruff format $(PY_SOURCES)
	$(BIN)/python tools/ruff_chapters.py --format

# Keeps the versions already locked where pyproject.toml still allows them; add
# UPGRADE=--upgrade to move every package to its newest allowed version.
lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --extra dev --universal --python-version 3.11 \
		--quiet $(UPGRADE) -o $(LOCK)

bench: $(STAMP)
	for script in benchmarks/bench_*.py; do $(BIN)/python $$script || exit 1; done

# The build folder, with the build cache (_build/cache) and Sphinx's environment.
clean:
	rm -rf _build
