"""The repository URL lives in one place, _config.yml's `repository.url`; every copy must equal it.

The copies, which other tools read and cannot read _config.yml: the launch buttons (Jupyter Book
reads _config.yml itself), `[project.urls]` and the install line in pyproject.toml, the install
lines of README.md, the `REPO = "..."` of every notebook's Colab cell, and CITATION.cff. Any other
address of this repository anywhere in the sources (github.com/<owner>/<name>, git+https://...)
must be it too, so that a move of the repository is one edit plus the copies this test names.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser as a package
    import tomli as tomllib

import olbook

ROOT = Path(__file__).resolve().parent.parent
URL = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"][
    "url"
].rstrip("/")
OWNER_NAME = URL.removeprefix("https://github.com/")
NOTEBOOKS = sorted(
    p for p in (ROOT / "book").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
)
SKIP_DIRS = {
    ".git",
    ".venv",
    "_build",
    "build",
    "dist",
    ".ruff_cache",
    ".hypothesis",
    "olbook.egg-info",
    ".ipynb_checkpoints",
    "node_modules",
    "results",
}
TEXT_SUFFIXES = {
    ".md",
    ".ipynb",
    ".toml",
    ".cff",
    ".yml",
    ".yaml",
    ".py",
    ".txt",
    ".cfg",
    ".rst",
    ".bib",
}
GITHUB = re.compile(
    r"(?:git\+)?https?://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?(?=[/\s\"'`)#>,]|$)"
)
REPO_LINE = re.compile(r"""^\s*REPO\s*=\s*["']([^"']+)["']""", re.M)


def source_files() -> list[Path]:
    files = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if any(
            part in SKIP_DIRS or part.startswith(".") and part not in (".ci",)
            for part in rel.parts[:-1]
        ):
            continue
        if path.is_file() and (
            path.suffix in TEXT_SUFFIXES or path.name in ("Makefile", "run")
        ):
            files.append(path)
    return sorted(files)


def test_the_url_is_a_github_repository() -> None:
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", URL), URL


def test_pyproject_urls() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"
    ]
    urls = project["urls"]
    assert urls["Homepage"] == URL
    assert urls["Repository"] == URL
    assert urls["Issues"] == URL + "/issues"


def test_citation_cff() -> None:
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["repository-code"] == URL
    assert citation["cff-version"] == "1.2.0"
    # one version: olbook/__init__.py's
    assert citation["version"] == olbook.__version__
    assert (
        citation["title"]
        == yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["title"]
    )


def test_readme_install_lines() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    installs = re.findall(r"git\+(https?://[^\s\"'`]+)", readme)
    assert installs, "README.md has no `pip install ... @ git+URL` line"
    assert set(installs) == {URL}


@pytest.mark.parametrize(
    "path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT / "book").as_posix()
)
def test_colab_cell(path: Path) -> None:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    installs = [s for s in sources if 'find_spec("olbook")' in s]
    if not installs:
        pytest.skip("no Colab install cell in this notebook")
    repos = [m for s in installs for m in REPO_LINE.findall(s)]
    assert repos == [URL], (
        f"{path.name}: the Colab cell installs from {repos}, _config.yml says {URL}"
    )


def test_notebooks_have_the_colab_cell() -> None:
    chapters = [p for p in NOTEBOOKS if re.match(r"\d\d_", p.parent.name)]
    with_cell = [
        p
        for p in chapters
        if 'find_spec(\\"olbook\\")' in p.read_text(encoding="utf-8")
    ]
    assert len(chapters) >= 40 and with_cell == chapters


def test_every_address_of_this_repository_is_the_same() -> None:
    """Any github.com URL naming this repository's owner or name, anywhere in the sources, is URL."""
    owner, name = OWNER_NAME.split("/")
    wrong = []
    for path in source_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in GITHUB.finditer(text):
            if match.group(1) == owner or match.group(2) == name:
                if f"{match.group(1)}/{match.group(2)}" != OWNER_NAME:
                    line = text.count("\n", 0, match.start()) + 1
                    wrong.append(f"{path.relative_to(ROOT)}:{line}: {match.group(0)}")
    assert not wrong, f"addresses of this repository other than {URL}:\n" + "\n".join(
        wrong
    )
    assert len(source_files()) > 50


def test_the_checks_catch_a_copy_that_drifted() -> None:
    owner, name = OWNER_NAME.split("/")
    drifted = f'REPO = "https://github.com/{owner}-old/{name}"\n'
    match = GITHUB.search(REPO_LINE.findall(drifted)[0])
    assert match.group(2) == name and f"{match.group(1)}/{match.group(2)}" != OWNER_NAME
