"""No cross-reference label is defined twice in the book.

Sphinx keeps one of two targets with the same name and sends every link to it, so a
label defined in two sections makes the links of one of them land in the other.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

BOOK = Path(__file__).resolve().parent.parent / "book"

#: ``(name)=`` targets, ``:label: name`` options and ``$$ ... $$ (name)`` equations.
LABEL = re.compile(
    r"^\s*\(([\w:-]+)\)=\s*$|^\s*:label:\s*(\S+)|\$\$\s*\(([\w:-]+)\)\s*$", re.M
)


def _texts():
    for path in sorted(BOOK.rglob("*")):
        if "_build" in path.parts:
            continue
        if path.suffix == ".md":
            yield path, path.read_text()
        elif path.suffix == ".ipynb":
            cells = json.loads(path.read_text())["cells"]
            yield (
                path,
                "\n".join(
                    "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
                ),
            )


def test_every_label_is_defined_once():
    where = defaultdict(list)
    for path, text in _texts():
        for m in LABEL.finditer(text):
            where[next(g for g in m.groups() if g)].append(str(path.relative_to(BOOK)))
    twice = {label: paths for label, paths in where.items() if len(paths) > 1}
    assert not twice, f"labels defined more than once (label: where): {twice}"


def test_labels_are_found():
    """The pattern above sees the book's labels (a pattern that found none would pass)."""
    found = sum(len(LABEL.findall(text)) for _, text in _texts())
    assert found > 500, found
