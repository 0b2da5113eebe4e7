# Two commands do everything: `make run` opens the dashboard on the demo, which lives in a state
# directory of its own (~/.local/share/sessions-tui-demo, beside the everyday one; `sessions-tui demo
# --help` says where), `make test` runs the whole test suite. Both create .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test test-openclaw bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/sessions-tui --demo

# The checks that hold the code's shape run first (types, lint, format, layers: docs/architecture.md),
# then the suite.
test: $(VENV)/.installed-test
	$(BIN)/ruff check --no-cache src tests scripts bench
	$(BIN)/ruff format --no-cache --check src tests scripts bench
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n 2

# The interop tests against the real OpenClaw gateway: the first run downloads node 24 and
# openclaw (~650 MB) into ~/.cache/sessions-tui-openclaw (OPENCLAW_PEER_DIR to change it).
test-openclaw: $(VENV)/.installed-test
	$(BIN)/python -m pytest -m openclaw tests/interop -vv

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache
