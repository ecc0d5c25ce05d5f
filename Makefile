# Two commands, each doing its own set-up on a fresh machine with Python 3.11 and make:
#   make book   build the HTML book into _build/html from the outputs committed in the notebooks
#               (and the single-page book _build/singlehtml, which make pdf prints)
#   make test   ruff; pytest over tests/ and olbook's doctests; olbook built as wheel and sdist and installed non-editable
#               in a fresh venv (tools/check_install.py); nbval (strict) over every notebook, natively and again
#               under a second CPU setting; the book build with -W; every page checked in
#               headless Chromium (installed with apt-get when missing, see `make chromium`);
#               the PDF built and checked (make pdf, tools/check_pdf.py). nbval, the builds and the
#               browser and PDF checks run without network (tools/offline.sh). The steps run two at a
#               time (2 cores); the first failure stops it, with the failing step's output shown
#   make pdf    the whole book as one PDF, _build/pdf/online-learning-executably.pdf (offline)

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# nbval strict, two notebooks at a time, each notebook whole on one worker (its cells share a kernel).
NBVAL      := $(BIN)/python -m pytest -p no:cacheprovider --nbval -n 2 --dist loadfile book
# The second CPU setting: another OpenBLAS kernel and numba's generic CPU, so that an output that
# depends on the CPU (summation order, SIMD width) fails here rather than on a reader's machine.
SECOND_CPU := OPENBLAS_CORETYPE=Prescott NUMBA_CPU_NAME=generic
LINT_PATHS := olbook tests benchmarks tools book
# No network (a network namespace with only loopback; tools/offline.sh says how it degrades where
# that is not permitted, and OFFLINE=require makes that an error).
OFFLINE_RUN := tools/offline.sh

.PHONY: book test venv lint chromium pdf-tools pdf clean

venv: $(STAMP)

# pip installs without byte-compiling (it compiles one file at a time, 60% of its time), then
# compileall byte-compiles the venv on every core (-j 0); a file that does not compile (a
# template named .py) is skipped, as pip skips it.
$(STAMP): requirements.txt pyproject.toml
	@date +%s > .venv-start
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --no-compile -r requirements.txt
	-$(BIN)/python -m compileall -qq -j 0 $(VENV)/lib
	touch $(STAMP)
	@echo "venv: $$(( $$(date +%s) - $$(cat .venv-start) )) s" && rm -f .venv-start

# The HTML book (jupyter-book build --all), then the single-page book from the same parsed sources
# (tools/build_pdf.py --html: both builds use one configuration, so the second only writes).
book: $(STAMP)
	$(BIN)/python tools/build_pdf.py --html --single-page-only
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

# For the PDF, installed like Chromium above: poppler-utils (pdfinfo, pdftotext, pdftoppm) for its
# check, and a font with Chinese glyphs (the glossary's terms; without one they print as boxes).
PDF_PACKAGES := poppler-utils fonts-wqy-microhei
pdf-tools:
	@if command -v pdftotext >/dev/null 2>&1 && command -v pdftoppm >/dev/null 2>&1 \
	  && [ -n "$$(fc-list :lang=zh family 2>/dev/null)" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; \
	else \
	  echo "The PDF needs poppler-utils (pdftotext, pdftoppm) and a Chinese font; installing them needs root. Run:" >&2; \
	  echo "    sudo apt-get update && sudo apt-get install -y $(PDF_PACKAGES)" >&2; \
	  exit 1; \
	fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
	  echo "The PDF needs poppler's pdftotext and pdftoppm and a Chinese font, and there is no apt-get here: install them" >&2; \
	  exit 1; \
	fi; \
	echo "Installing for the PDF: $${sudo:+$$sudo }apt-get install -y $(PDF_PACKAGES)"; \
	$$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y $(PDF_PACKAGES)

# The whole book as one PDF: the single-page HTML build (rebuilt only when a source is newer) printed
# part by part by headless Chromium (tools/build_pdf.py, about 2 min and at most about 2 GB on 2 cores),
# copied into _build/html, where the introduction names it (no link: make book alone builds no PDF).
# PDF_TIMEOUT=<seconds> gives each step more time than the limit scaled to the book and the load.
pdf: chromium pdf-tools $(STAMP)
	$(OFFLINE_RUN) $(BIN)/python tools/build_pdf.py
	@echo "The PDF: $(CURDIR)/_build/pdf/online-learning-executably.pdf"

# make test: ruff and pytest first (pytest's workers use both cores, and some of its tests walk the
# tree, which the builds below change), then the other steps two at a time (make -j2 on 2 cores;
# nbval also runs two workers), each step's output printed in one piece when it ends
# (--output-sync). A failing step fails make test: no further step starts, the running ones
# finish, and make names the step that failed above its output.
# Each step prints its wall time when it ends ("test-nbval: 458 s"), and make test its total:
# the times that the target of make test's duration (issue 26) is read from.
TIMES      := $(VENV)/times
STEP_START = @mkdir -p $(TIMES) && date +%s > $(TIMES)/$@
STEP_END   = @echo "$@: $$(( $$(date +%s) - $$(cat $(TIMES)/$@) )) s"
TEST_FIRST := test-lint test-pytest
TEST_STEPS := test-install test-html test-nbval-cpu2 test-nbval test-pdf test-pages test-pdf-check
.PHONY: $(TEST_FIRST) $(TEST_STEPS)
test: chromium pdf-tools $(STAMP)
	$(STEP_START)
	@$(MAKE) --no-print-directory -j2 --output-sync=target $(TEST_FIRST)
	@$(MAKE) --no-print-directory -j2 --output-sync=target $(TEST_STEPS)
	@echo "The book: $(CURDIR)/_build/html/index.html"
	@echo "make test after the set-up (venv, Chromium, PDF tools): $$(( $$(date +%s) - $$(cat $(TIMES)/test) )) s"

# 1. ruff (lint and format) and the links from the text to the API pages
test-lint: $(STAMP)
	$(STEP_START)
	$(BIN)/python -m ruff check $(LINT_PATHS)
	$(BIN)/python -m ruff format --check $(LINT_PATHS)
	$(BIN)/python tools/link_api.py --check
	$(STEP_END)

# 2. pytest over tests/ on two workers (pytest-xdist), then olbook's doctests
test-pytest: $(STAMP)
	$(STEP_START)
	$(BIN)/python -m pytest -p no:cacheprovider -n 2 tests
	$(BIN)/python -m pytest -p no:cacheprovider --doctest-modules olbook -q
	$(STEP_END)

# 2b. olbook as wheel and sdist, installed non-editable in a fresh venv (tools/check_install.py)
test-install: $(STAMP)
	$(STEP_START)
	$(BIN)/python tools/check_install.py
	$(STEP_END)

# 3. nbval natively (after pytest: its kernels load olbook's compiled code from numba's cache)
test-nbval: $(STAMP)
	$(STEP_START)
	$(OFFLINE_RUN) $(NBVAL)
	$(STEP_END)

# 4. nbval under the second CPU setting (numba compiles for the generic CPU: its own cache entries)
test-nbval-cpu2: $(STAMP)
	$(STEP_START)
	$(SECOND_CPU) $(OFFLINE_RUN) $(NBVAL)
	$(STEP_END)

# 5. the HTML book with warnings as errors, then the single-page book from its parsed sources
#    (the builds render the committed outputs, which nbval checks: they run beside it)
test-html: $(STAMP)
	$(STEP_START)
	$(OFFLINE_RUN) $(BIN)/python tools/build_pdf.py --html --strict --single-page-only
	$(STEP_END)

# 6. the PDF: the single-page book printed by headless Chromium (make pdf)
test-pdf: $(STAMP) | test-html
	$(STEP_START)
	$(OFFLINE_RUN) $(BIN)/python tools/build_pdf.py
	$(STEP_END)

# 7. every page in one headless Chromium (tools/check_pages.py), and in the same pass at 1,280 px:
#    outputs and figures fit the column (--widths: tools/check_widths.py's checks)
test-pages: $(STAMP) | test-html
	$(STEP_START)
	$(OFFLINE_RUN) $(BIN)/python tools/check_pages.py --widths _build/html
	$(STEP_END)

# 8. the PDF's check (tools/check_pdf.py)
test-pdf-check: $(STAMP) | test-pdf
	$(STEP_START)
	$(BIN)/python tools/check_pdf.py
	$(STEP_END)

lint: $(STAMP)
	$(BIN)/python -m ruff check $(LINT_PATHS)
	$(BIN)/python -m ruff format --check $(LINT_PATHS)

# Every benchmark script at its default size, one after another (each writes
# benchmarks/results/<name>.json with the machine's description), then the execution time of
# every notebook (tools/time_notebooks.py, about 3 min), then make test on a fresh clone of the
# last commit, step by step (tools/time_test.py, about 20 min), then the appendix page "How fast
# is olbook?", re-executed because its tables and figure show those files. Commit all of them.
.PHONY: bench
bench: $(STAMP)
	@set -e; for f in benchmarks/[!_]*.py; do echo "== $$f"; $(BIN)/python $$f; done
	$(BIN)/python tools/time_notebooks.py
	$(BIN)/python tools/time_test.py
	cd book/appendix && ../../$(BIN)/jupyter execute --inplace performance.ipynb

# The build, and numba's compiled code of olbook wherever olbook/_numba_cache.py put it (the
# package's __pycache__, NUMBA_CACHE_DIR/olbook, the user's cache, the temporary folder).
clean:
	rm -rf _build
	find olbook -name '*.nbi' -delete -o -name '*.nbc' -delete
	rm -rf "$${XDG_CACHE_HOME:-$$HOME/.cache}/olbook/numba" "$${TMPDIR:-/tmp}/olbook-numba-$$(id -u)"
	@if [ -n "$$NUMBA_CACHE_DIR" ]; then rm -rf "$$NUMBA_CACHE_DIR/olbook"; fi
