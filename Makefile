# memoryhub: the two commands of the README's quick start, and their helpers.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Where `make run` listens: `make run PORT=8001` (or PORT in the environment).
ADDRESS ?= 127.0.0.1
PORT    ?= 8000

.PHONY: run test lint format bench messages install install-dev clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

# The Python client and its framework adapters (clients/python/) are tested by the suite.
$(VENV)/.installed-dev: pyproject.toml clients/python/pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]' -e './clients/python[langgraph,openai-agents]'
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

## Installs memoryhub and runs it on the embedded PostgreSQL (web server + worker).
run: install
	$(BIN)/python manage.py serve $(ADDRESS):$(PORT)

## Installs the development tools (and, as root, Chromium and Redis) and runs the whole
## test suite.
test: install-dev
	tools/test.sh

# mypy's Django plugin loads the settings, and mypy exits without running exit hooks: a
# database URL that is never connected to keeps the embedded PostgreSQL from starting.
lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	MEMORYHUB_DEBUG=1 DATABASE_URL=postgres://type-check@localhost/unused $(BIN)/mypy memories curation profiles mcp_server memoryhub tests bench tools clients/python/src

format: install-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## The pages' catalogues: finds every marked string (needs GNU gettext), then, once
## locale/it and locale/es have their translations, compiles the .mo files that are committed.
MESSAGES_IGNORED := -i 'bench/*' -i 'tests/*' -i 'clients/*' -i 'tools/*' -i 'static/*' -i 'docs/*' -i 'locale/*'
messages: install
	$(BIN)/python manage.py makemessages -l it -l es --no-obsolete $(MESSAGES_IGNORED)
	$(BIN)/python manage.py compilemessages -l it -l es -i '.venv'

## The quick benchmarks (the offline embedders, then ingest), or one by name:
## `make bench BENCH=search ARGS="--memories 10000"`; `python bench/run.py` lists them all.
BENCH ?=
ARGS  ?=
bench: install-dev
ifeq ($(BENCH),)
	$(BIN)/python bench/run.py local_embedder
	$(BIN)/python bench/run.py ingest
else
	$(BIN)/python bench/run.py $(BENCH) $(ARGS)
endif

clean:
	rm -rf $(VENV)
