# Two entry points: `make book` builds the site, `make test` runs the tests.
# Each sets itself up on a fresh machine: virtual environment, pinned dependencies, MathJax.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
MATHJAX := book/_static/mathjax/tex-chtml.js
PROFILE ?= default
FORCE ?=
LINTERS := lint-ruff lint-notebooks lint-spelling lint-types

.PHONY: install bytecode book site pdf lint $(LINTERS) test notebooks student format lock clean help
help:
	@echo "make book       execute the chapters (PROFILE=$(PROFILE)) in parallel and build the HTML site;"
	@echo "                a chapter whose source, parameters, package code and data are unchanged comes"
	@echo "                from the cache (make book FORCE=1 re-executes all); at the default profile it"
	@echo "                fails when a verdict differs from its pin (re-pin: python -m ldp_companion pin)"
	@echo "make pdf        the PDF edition of the built site, _build/html/ldp-companion.pdf (after"
	@echo "                make book; needs Chromium: apt-get install chromium)"
	@echo "make lint       ruff (package, tests, notebooks' code cells), codespell, mypy"
	@echo "make test       lint + unit tests + every chapter at the smoke profile + browser check"
	@echo "make notebooks  write notebooks/*.ipynb (for papermill) from the .md sources"
	@echo "make student    student edition (no solutions, self-checks) in _build/student/,"
	@echo "                instructor edition (with solutions) in _build/instructor/"
	@echo "make format     format the chapters' code cells to the page's width (black, 88 columns)"
	@echo "make install    virtual environment with the pinned dependencies"

install: $(STAMP)
$(STAMP): pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e ".[book,test,torch]" --group dev
	@touch $@

# The package's and the tests' bytecode, written once: where PYTHONDONTWRITEBYTECODE is set (some
# sandboxes and CI images do) Python reads .pyc files but never writes them, and every process of
# a run (each chapter's kernel, each grid worker, each test worker) compiled the package anew.
# compileall recompiles only what changed since.
bytecode: install
	@$(PY) -m compileall -q -j 0 ldp_companion tests

$(MATHJAX): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	rm -rf book/_static/mathjax && mkdir -p book/_static/mathjax
	cd node_modules/mathjax/es5 && cp -r tex-chtml.js input output ui a11y sre \
	    $(CURDIR)/book/_static/mathjax/

# At the default profile the build ends by checking its verdicts against their pins
# (tests/pinned/default/): a changed verdict fails it until re-pinned (python -m ldp_companion pin).
book: install bytecode $(MATHJAX)
	$(PY) -m ldp_companion book --profile $(PROFILE) $(if $(FORCE),--force)
	@du -sh _build/html | awk '{print "site size: " $$1}'
	$(if $(filter default,$(PROFILE)),$(PY) -m ldp_companion pin --check)

site: install $(MATHJAX)
	$(PY) -m ldp_companion site

# The PDF edition of the built site (run `make book` first): Chromium prints it
# (apt-get install -y --no-install-recommends chromium).
pdf: install
	$(PY) -m ldp_companion pdf

# ruff on the package, the tests and the benchmarks; through nbQA on the pages' code cells,
# where a bare expression displays its value (B018), imports follow the check of the chapter's
# extra (E402) and are grouped as the lecture reads (I001), and the width rule is the page's own
# 88 columns, generated parameters cell aside (tests/test_chapters.py, E501); codespell on
# the code and the prose; mypy on the floors pyproject.toml's [tool.mypy] lists. The four run
# side by side (each output kept together); lint fails when any of them does.
lint: install
	@$(MAKE) --no-print-directory -j 4 --output-sync=target $(LINTERS)

lint-ruff: install
	$(VENV)/bin/ruff check ldp_companion tests benchmarks scripts
lint-notebooks: install
	$(VENV)/bin/nbqa ruff notebooks/*.md book/*.md --extend-ignore=B018,E402,E501,I001
lint-spelling: install
	$(VENV)/bin/codespell ldp_companion tests benchmarks scripts notebooks book/*.md *.md
lint-types: install
	$(VENV)/bin/mypy

# The tests' temporary files go to build/pytest, emptied at the start of the next `make test`:
# in pytest's default folders each session ends by deleting the folder of the third session
# before it (with a light install, 25,000 files: 3-8 s).
test: install bytecode lint
	$(PY) -m pytest -n 2 --dist worksteal --durations=40 --basetemp=build/pytest

notebooks: install
	$(VENV)/bin/jupytext --to ipynb notebooks/*.md

student: install
	$(PY) -m ldp_companion student --out _build/student
	$(PY) -m ldp_companion student --edition instructor --out _build/instructor

format: install
	$(PY) scripts/format_notebooks.py

lock: install
	@{ echo "# Exact versions the book and tests are built with (pip install -c constraints.txt ...)."; \
	   echo "# Regenerate with 'make lock' after changing pyproject.toml."; \
	   $(PY) -m pip freeze --all --exclude-editable | grep -v -i -E '^(ldp.companion|pip)=='; } > constraints.txt

clean:
	rm -rf _build book/generated book/_static/mathjax
