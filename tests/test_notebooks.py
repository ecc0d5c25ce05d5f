"""Static checks of the book's sources: what the reader sees fits the page and names nothing private.

These read the notebooks and Markdown pages as text (nothing is executed; nbval
does that): code lines fit the page of the HTML book, olbook is used through
its public names, olbook's code is shown highlighted, and the sources are named
by what they are.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parent.parent / "book"
NOTEBOOKS = sorted(BOOK.rglob("*.ipynb"))
PAGES = sorted(BOOK.rglob("*.md"))
#: The width of a code cell in the HTML book without a scroll bar (CONTRIBUTING).
MAX_CODE_LINE = 88


def _cells(nb: Path, kind: str):
    for i, cell in enumerate(json.loads(nb.read_text())["cells"]):
        if cell["cell_type"] == kind:
            yield i, "".join(cell["source"])


def _name(p: Path) -> str:
    return str(p.relative_to(BOOK))


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_name)
def test_code_fits_the_page(nb):
    long = [
        (i, len(line))
        for i, src in _cells(nb, "code")
        for line in src.splitlines()
        if len(line) > MAX_CODE_LINE
    ]
    assert not long, (
        f"code lines longer than {MAX_CODE_LINE} characters (cell, length): {long}"
    )


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_name)
def test_only_public_olbook_names(nb):
    private = [
        (i, m.group(0))
        for i, src in _cells(nb, "code")
        for m in re.finditer(r"olbook(?:\.\w+)*\._\w+|from olbook\S* import _\w+", src)
    ]
    assert not private, f"private olbook names in code cells: {private}"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_name)
def test_source_is_shown_highlighted(nb):
    plain = [i for i, src in _cells(nb, "code") if "print(inspect.getsource" in src]
    assert not plain, (
        f"cells {plain} print source as plain text; use olbook.show_source"
    )


@pytest.mark.parametrize("page", NOTEBOOKS + PAGES, ids=_name)
def test_sources_are_named_not_numbered(page):
    if page.suffix == ".ipynb":
        text = "\n".join(src for _, src in _cells(page, "markdown"))
    else:
        text = page.read_text()
    hits = re.findall(r"(?i)\bseeds?\s+00\d", text)
    assert not hits, (
        f"'seed 00N' in the reader's text ({len(hits)}x): name the source by what it is"
    )


def _shown_objects():
    """Every olbook object whose source a page shows: show_source(...) calls and literalincludes."""
    shown = []
    for nb in NOTEBOOKS:
        for _, src in _cells(nb, "code"):
            shown += [
                (nb, m.group(1))
                for m in re.finditer(r"show_source\(\s*([\w.]+)\s*\)", src)
            ]
        for _, src in _cells(nb, "markdown"):
            for m in re.finditer(
                r"```\{literalinclude\}\s+\S*olbook/([\w/]+)\.py\s*\n:pyobject:\s*([\w.]+)",
                src,
            ):
                shown.append(
                    (nb, "olbook." + m.group(1).replace("/", ".") + "." + m.group(2))
                )
    return shown


@pytest.mark.parametrize(
    ("nb", "expr"),
    _shown_objects(),
    ids=lambda v: v if isinstance(v, str) else _name(v),
)
def test_shown_source_fits_the_page(nb, expr):
    import importlib
    import inspect

    parts = expr.split(".")
    if parts[0] != "olbook":
        parts = ["olbook", *parts]
    obj = None
    for k in range(
        len(parts), 0, -1
    ):  # the longest importable module prefix, then attributes
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        break
    rest = parts[k:]
    if not hasattr(obj, rest[0]):  # a name the notebook imported from a submodule
        import pkgutil

        import olbook

        mods = [
            importlib.import_module("olbook." + m.name)
            for m in pkgutil.iter_modules(olbook.__path__)
        ]
        obj = next(m for m in mods if hasattr(m, rest[0]))
    for attr in rest:
        obj = getattr(obj, attr)
    src = inspect.getsource(getattr(obj, "py_func", obj))
    long = [len(line) for line in src.splitlines() if len(line) > MAX_CODE_LINE]
    assert not long, (
        f"{expr}, shown in {_name(nb)}, has lines of {long} characters (> {MAX_CODE_LINE})"
    )
