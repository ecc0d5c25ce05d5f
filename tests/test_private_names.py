"""olbook's modules keep their private names to themselves.

* No module imports another module's private name (``from .x import _y``): what
  two modules share is public in the lower one (its ``__all__``), so a reader
  of the lower module sees who depends on it.
* No private top-level name is defined in two modules (two ``_Linear`` classes
  meaning two things is a trap for whoever reads both).

Module-level dunders and the private *modules* themselves (``from . import
_numba_cache``) are not private names in this sense.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import olbook

PACKAGE = Path(olbook.__file__).parent


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_private_name_is_imported_from_another_module():
    found = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                for alias in node.names:
                    if _is_private(alias.name) and node.module is not None:
                        found.append(
                            f"{path.relative_to(PACKAGE)}: {node.module}.{alias.name}"
                        )
    assert not found, found


def test_no_private_name_is_defined_in_two_modules():
    where = defaultdict(list)
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and _is_private(
                node.name
            ):
                where[node.name].append(str(path.relative_to(PACKAGE)))
    twice = {name: files for name, files in where.items() if len(files) > 1}
    assert not twice, twice
