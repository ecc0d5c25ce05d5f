"""The API appendix (book/appendix/api) documents every public name of olbook.

"Public" is what book/appendix/api/index.md says: the names in ``olbook.__all__``
and, for every module of olbook whose name does not begin with an underscore,
the names in its ``__all__``. A name that ``olbook`` re-exports is documented as
``olbook.Name``; any other as ``olbook.<module>.name`` (for an object exported
by several modules, the module that defines it, else the first one that exports it).
Every entry carries a "Book section" line whose label exists in the book.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import pkgutil
import re
from pathlib import Path

import pytest

import olbook

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "book" / "appendix" / "api"
DIRECTIVE = re.compile(
    r"^\.\. (?:auto|py:)(module|class|exception|function|data)::\s+(\S+)\s*$",
    re.MULTILINE,
)
ENTRY_KINDS = {"class", "exception", "function", "data"}


def public_modules() -> list[str]:
    return sorted(
        m.name
        for m in pkgutil.iter_modules(olbook.__path__)
        if not m.name.startswith("_")
    )


def expected_entries() -> dict[str, object]:
    """Documented name -> object, for every public name of olbook."""
    expected: dict[str, object] = {}
    for name in olbook.__all__:
        obj = getattr(olbook, name)
        if not inspect.ismodule(obj):
            expected[f"olbook.{name}"] = obj
    exporters: dict[tuple[int, str], list[tuple[str, str, object]]] = {}
    for mod_name in public_modules():
        mod = importlib.import_module(f"olbook.{mod_name}")
        assert hasattr(mod, "__all__"), (
            f"public module olbook.{mod_name} has no __all__"
        )
        for name in mod.__all__:
            obj = getattr(mod, name)
            if name in olbook.__all__ and getattr(olbook, name) is obj:
                continue  # documented as olbook.<name>
            exporters.setdefault((id(obj), name), []).append((mod_name, name, obj))
    for entries in exporters.values():
        defining = [
            e for e in entries if getattr(e[2], "__module__", None) == f"olbook.{e[0]}"
        ]
        mod_name, name, obj = (defining or entries)[0]
        expected[f"olbook.{mod_name}.{name}"] = obj
    return expected


def documented() -> dict[str, tuple[str, str, str]]:
    """Documented name -> (kind, page, the text of its entry up to the next directive)."""
    found: dict[str, tuple[str, str, str]] = {}
    for page in sorted(API.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        matches = list(DIRECTIVE.finditer(text))
        for i, m in enumerate(matches):
            end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
            kind, name = m.groups()
            assert name not in found or kind == "module", (
                f"{name} documented twice ({page.name})"
            )
            found.setdefault(name, (kind, page.name, text[m.end() : end]))
    return found


def test_sphinx_imports_this_checkout():
    """autodoc reads the docstrings of the olbook beside the book, not of a stale copy."""
    assert Path(olbook.__file__).resolve().parent == ROOT / "olbook"


def test_every_public_name_has_an_entry():
    expected = expected_entries()
    docs = documented()
    assert len(expected) > 100  # the package's public surface, not an empty list
    missing = sorted(
        n for n in expected if n not in docs or docs[n][0] not in ENTRY_KINDS
    )
    assert not missing, f"public names without an entry in book/appendix/api: {missing}"
    extra = sorted(
        n for n, (k, _, _) in docs.items() if k in ENTRY_KINDS and n not in expected
    )
    assert not extra, f"entries that are not public names of olbook: {extra}"


def test_entry_kinds_match_the_objects():
    docs = documented()
    for name, obj in expected_entries().items():
        if name not in docs:
            continue  # reported by test_every_public_name_has_an_entry
        kind = docs[name][0]
        if inspect.isclass(obj):
            want = "exception" if issubclass(obj, BaseException) else "class"
        elif inspect.isroutine(obj) or type(obj).__name__ == "CPUDispatcher":
            want = "function"
        else:
            want = "data" if not callable(obj) else kind
        assert kind == want, f"{name} is documented as {kind}, is a {want}"


def test_every_public_module_has_a_page():
    docs = documented()
    modules = {n for n, (k, _, _) in docs.items() if k == "module"}
    assert modules == {"olbook"} | {f"olbook.{m}" for m in public_modules()}
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    for page in API.glob("*.md"):
        assert f"book/appendix/api/{page.stem}\n" in toc, (
            f"{page.name} is not in _toc.yml"
        )
    for m in public_modules():
        assert (API / f"{m}.md").exists(), f"no page for olbook.{m}"


def book_labels() -> set[str]:
    labels: set[str] = set()
    for path in (ROOT / "book").rglob("*"):
        if path.suffix in {".md", ".ipynb"} and "_build" not in path.parts:
            labels |= set(
                re.findall(r"\(([a-z][\w-]*)\)=", path.read_text(encoding="utf-8"))
            )
    return labels


def test_every_entry_links_to_a_book_section():
    labels = book_labels()
    for name, (kind, page, body) in documented().items():
        if kind == "module":
            continue
        m = re.search(r"\*\*Book section:\*\* :ref:`([\w-]+)`", body)
        assert m, f"{name} ({page}) has no 'Book section' line"
        assert m.group(1) in labels, (
            f"{name} ({page}) links to an unknown label {m.group(1)}"
        )
        assert re.match(
            r"(perc|marg|boost|vc|regret|olc|kol|oco|scale)-sec-", m.group(1)
        ), m.group(1)


def test_built_inventory_lists_every_entry():
    """When the HTML book has been built from these pages, objects.inv holds every entry."""
    inv_path = ROOT / "_build" / "html" / "objects.inv"
    newest_page = max(p.stat().st_mtime for p in API.glob("*.md"))
    if not inv_path.exists() or inv_path.stat().st_mtime < newest_page:
        pytest.skip("the book has not been built since the API pages last changed")
    from sphinx.util.inventory import InventoryFile

    with open(inv_path, "rb") as f:
        inv = InventoryFile.load(f, "", lambda base, uri: uri)
    py_names = {
        name
        for role, entries in inv.items()
        if role.startswith("py:")
        for name in entries
    }
    missing = sorted(set(expected_entries()) - py_names)
    assert not missing, f"not in the built objects.inv: {missing}"


# --- tools/link_api.py: each section's first mention of an olbook name links to its entry ---


def _link_api():
    spec = importlib.util.spec_from_file_location(
        "link_api", ROOT / "tools" / "link_api.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _notebook(tmp_path: Path) -> Path:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            "# `olbook.Perceptron` in a heading\n\n"
            "We run `olbook.Perceptron` and `olbook.fmt()`; again `olbook.Perceptron`.\n"
            "scikit-learn's `Perceptron` is another class; `olbook.nonexistent` is no name.\n"
            "$`olbook.margin`$ is math.\n\n```python\nx = `olbook.radius`\n```"
        ),
        nbformat.v4.new_code_cell(
            "# `olbook.margin`\nimport olbook\nolbook.Perceptron"
        ),
        nbformat.v4.new_markdown_cell(
            "A bare `VotedPerceptron`, then `olbook.data` and `olbook.margin`."
        ),
    ]
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="`olbook.margin`\n")]
    path = tmp_path / "section.ipynb"
    nbformat.write(nb, path)
    return path


def test_link_api_links_first_mentions_only(tmp_path):
    link_api = _link_api()
    path = _notebook(tmp_path)
    before = json.loads(path.read_text(encoding="utf-8"))
    assert link_api.main(["--check", str(path)]) == 1
    assert link_api.main([str(path)]) == 0
    after = json.loads(path.read_text(encoding="utf-8"))
    first = "".join(after["cells"][0]["source"])
    assert (
        "We run {py:class}`olbook.Perceptron` and {py:func}`olbook.fmt`; again `olbook.Perceptron`."
        in first
    )
    # headings are left alone
    assert first.startswith("# `olbook.Perceptron` in a heading")
    assert "scikit-learn's `Perceptron`" in first and "`olbook.nonexistent`" in first
    # math, code fences
    assert "$`olbook.margin`$" in first and "x = `olbook.radius`" in first
    # code cell and its outputs untouched
    assert after["cells"][1] == before["cells"][1]
    third = "".join(after["cells"][2]["source"])
    assert third == (
        "A bare {py:class}`~olbook.VotedPerceptron`, then {py:mod}`olbook.data` and {py:func}`olbook.margin`."
    )
    # idempotent: a second run adds nothing and --check passes
    text = path.read_text(encoding="utf-8")
    assert link_api.main([str(path)]) == 0
    assert path.read_text(encoding="utf-8") == text
    assert link_api.main(["--check", str(path)]) == 0


def test_link_api_dry_run_writes_nothing(tmp_path, capsys):
    link_api = _link_api()
    path = _notebook(tmp_path)
    text = path.read_text(encoding="utf-8")
    assert link_api.main(["--dry-run", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == text
    assert "would add 5 links" in capsys.readouterr().out


def test_every_public_learner_has_examples():
    """Every public learner (a class with ``fit``, or ``run`` and ``update``) shows an example.

    The examples are doctests (``make test`` runs ``pytest --doctest-modules olbook``).
    ``StoredExamplesLearner`` is the shared base of the kernel learners, not a learner itself.
    """
    bases = {"StoredExamplesLearner"}
    learners = {
        name.rsplit(".", 1)[1]: obj
        for name, obj in expected_entries().items()
        if inspect.isclass(obj) and (hasattr(obj, "fit") or hasattr(obj, "update"))
    }
    assert len(learners) >= 30
    section = "\n    Examples\n    --------\n    >>> "
    missing = sorted(
        n
        for n, cls in learners.items()
        if n not in bases and section not in cls.__doc__
    )
    assert not missing, f"learners without an Examples section: {missing}"


def test_link_api_reads_the_library_across_a_line_break():
    """scikit-learn's `Perceptron` is scikit-learn's even when the name starts a line."""
    linker = _link_api().Linker(_link_api().api_names())
    text = "as fast as scikit-learn's\n`Perceptron`, and olbook's `Perceptron` too"
    out = linker.link(text)
    assert out.startswith("as fast as scikit-learn's\n`Perceptron`, ")
    assert "{py:class}`~olbook.Perceptron`" in out
