# Two entry points, each doing its own set-up in ./.venv:
#   make book   -> executes every chapter (profile full by default) and renders _build/html
#   make pdf    -> the same, then the whole book as one PDF: _build/pdf/dadp-book.pdf
#   make test   -> unit tests + quick-profile execution of every chapter + HTML checks, the
#                  HTML also in headless Chromium (Debian's `chromium`; installed here with
#                  apt-get when running as root, otherwise the browser test is skipped)
PYTHON ?= python3
VENV ?= .venv
PROFILE ?= full
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: book pdf test lint bench browser clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
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
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check dadp_lite tests benchmarks
	$(BIN)/ruff format --check dadp_lite tests benchmarks

bench: $(STAMP)
	for script in benchmarks/bench_*.py; do $(BIN)/python $$script || exit 1; done

# The build folder, with the build cache (_build/cache) and Sphinx's environment.
clean:
	rm -rf _build
