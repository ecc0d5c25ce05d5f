"""The Colab cell of every notebook installs the olbook the book was run with, not the default branch.

The cell installs `olbook[book] @ git+{REPO}@v<version>`: the git tag `v` + `olbook.__version__`
(olbook is not on PyPI). The tag is made at each release (CONTRIBUTING.md, "Releases"), so a
reader on Colab gets the olbook whose outputs the page shows. Here: every install in a Colab
cell names a ref, and it is that tag; a bump of `__version__` fails until every cell follows.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import olbook

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(
    p for p in (ROOT / "book").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
)
TAG = f"v{olbook.__version__}"
# an install of olbook from git, with the ref after the repository, if there is one
INSTALL = re.compile(r"""olbook(?:\[[\w,]+\])?\s*@\s*git\+\{REPO\}(?:@([^"'\s]+))?""")


def colab_cells(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [
        "".join(c["source"])
        for c in cells
        if c["cell_type"] == "code" and 'find_spec("olbook")' in "".join(c["source"])
    ]


def refs(source: str) -> list[str | None]:
    """The ref of every git install of olbook in a cell (None for an unpinned one)."""
    return [m.group(1) for m in INSTALL.finditer(source)]


def test_the_tag_is_a_version() -> None:
    assert re.fullmatch(r"v\d+\.\d+\.\d+", TAG), TAG


@pytest.mark.parametrize(
    "path",
    [p for p in NOTEBOOKS if colab_cells(p)],
    ids=lambda p: p.relative_to(ROOT / "book").as_posix(),
)
def test_colab_cell_pins_the_version(path: Path) -> None:
    (cell,) = colab_cells(path)
    found = refs(cell)
    assert found == [TAG], (
        f"{path.name}: the Colab cell installs olbook at {found}; "
        f"olbook.__version__ says {TAG}"
    )
    assert "pip" in cell and "install" in cell


def test_every_chapter_notebook_has_a_pinned_cell() -> None:
    chapters = [p for p in NOTEBOOKS if re.match(r"\d\d_", p.parent.name)]
    assert len(chapters) >= 40
    assert all(refs("\n".join(colab_cells(p))) == [TAG] for p in chapters)


def test_the_check_catches_an_unpinned_or_stale_install() -> None:
    unpinned = 'OLBOOK = f"olbook[book] @ git+{REPO}"\n'
    stale = 'OLBOOK = f"olbook[book] @ git+{REPO}@v0.0.9"\n'
    assert refs(unpinned) == [None]
    assert refs(stale) == ["v0.0.9"] != [TAG]
