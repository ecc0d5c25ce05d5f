# Two commands, each doing its own set-up on a fresh machine with Python 3.11 and make:
#   make book   build the HTML book into _build/html
#   make test   pytest over tests/, nbval (strict) over every notebook, and the book build with -W

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book test venv lint clean

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $(STAMP)

book: $(STAMP)
	$(BIN)/jupyter-book build . --all
	@echo "The book: $(CURDIR)/_build/html/index.html"

test: $(STAMP)
	$(BIN)/python -m ruff check olbook tests benchmarks
	$(BIN)/python -m pytest -p no:cacheprovider tests
	$(BIN)/python -m pytest --nbval -p no:cacheprovider book
	$(BIN)/jupyter-book build . --all -W --keep-going
	@echo "The book: $(CURDIR)/_build/html/index.html"

lint: $(STAMP)
	$(BIN)/python -m ruff check olbook tests benchmarks

clean:
	rm -rf _build
