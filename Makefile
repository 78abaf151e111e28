# Two entry points, each doing its own set-up in ./.venv:
#   make book   -> executes every chapter (profile full by default) and renders _build/html
#   make test   -> unit tests + quick-profile execution of every chapter + HTML checks
PYTHON ?= python3
VENV ?= .venv
PROFILE ?= full
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: book test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

book: $(STAMP)
	$(BIN)/dadp-book build --profile $(PROFILE)

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check dadp_lite tests benchmarks
	$(BIN)/ruff format --check dadp_lite tests benchmarks

bench: $(STAMP)
	for script in benchmarks/bench_*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf _build
