# Two commands, each doing its own set-up on a fresh machine with Python 3.11 and make:
#   make book   build the HTML book into _build/html from the outputs committed in the notebooks
#   make test   ruff; pytest over tests/; olbook built as wheel and sdist and installed non-editable
#               in a fresh venv (tools/check_install.py); nbval (strict) over every notebook, natively and again
#               under a second CPU setting; the book build with -W; every page checked in
#               headless Chromium (installed with apt-get when missing, see `make chromium`)

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# nbval strict, two notebooks at a time, each notebook whole on one worker (its cells share a kernel).
NBVAL      := $(BIN)/python -m pytest -p no:cacheprovider --nbval -n 2 --dist loadfile book
# The second CPU setting: another OpenBLAS kernel and numba's generic CPU, so that an output that
# depends on the CPU (summation order, SIMD width) fails here rather than on a reader's machine.
SECOND_CPU := OPENBLAS_CORETYPE=Prescott NUMBA_CPU_NAME=generic
LINT_PATHS := olbook tests benchmarks tools

.PHONY: book test venv lint chromium clean

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $(STAMP)

book: $(STAMP)
	$(BIN)/jupyter-book build . --all
	@echo "The book: $(CURDIR)/_build/html/index.html"

# Chromium for the browser check (tools/check_pages.py): installed from Debian's package `chromium`
# when it is missing and we can (as root, or with sudo that needs no password); otherwise stop
# and name the command to run. CHROMIUM=/path/to/chromium uses another Chromium or Chrome.
chromium:
	@if [ -n "$$CHROMIUM" ] || command -v chromium >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; \
	else \
	  echo "make test needs Chromium for the browser check; it is not installed, and installing it needs root (or sudo without a password). Run:" >&2; \
	  echo "    sudo apt-get update && sudo apt-get install -y chromium" >&2; \
	  echo "(without apt-get: install Chromium and run make test with CHROMIUM=/path/to/chromium)" >&2; \
	  exit 1; \
	fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
	  echo "make test needs Chromium for the browser check, and there is no apt-get here:" >&2; \
	  echo "install Chromium and run make test with CHROMIUM=/path/to/chromium" >&2; \
	  exit 1; \
	fi; \
	echo "Installing Chromium for the browser check: $${sudo:+$$sudo }apt-get install -y chromium"; \
	$$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium

test: chromium $(STAMP)
	$(BIN)/python -m ruff check $(LINT_PATHS)
	$(BIN)/python -m pytest -p no:cacheprovider tests
	$(BIN)/python tools/check_install.py
	$(NBVAL)
	$(SECOND_CPU) $(NBVAL)
	$(BIN)/jupyter-book build . --all -W --keep-going
	$(BIN)/python tools/check_pages.py _build/html
	@echo "The book: $(CURDIR)/_build/html/index.html"

lint: $(STAMP)
	$(BIN)/python -m ruff check $(LINT_PATHS)

clean:
	rm -rf _build
