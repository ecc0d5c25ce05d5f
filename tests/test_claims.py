"""Every measured sentence of the book is tied to the assert that measures it.

A sentence that states a measured fact (a comparison, a count, a ratio, a rank)
is computed by a code cell of the same notebook and asserted there, with the
sentence's words quoted in a comment on the line above the assert::

    # claim: PA-I makes fewer mistakes than the perceptron on every one of the
    #   20 orders
    assert (pa1 < perc).all()

A quote may go on over further comment lines that start with ``#`` and at least
two spaces; it ends at the first line that is not such a comment, and the next
code line must be an ``assert`` (several claims may stand above one assert).

Three rules, each a test below:

1. Every ``# claim:`` quote stands verbatim (whitespace aside) in the markdown
   of its notebook, so a sentence cannot be edited without its check.
2. Every claim is followed by an ``assert``.
3. Every sentence that *looks* measured is tied to a claim or listed, with the
   reason it needs none, in ``tests/unmeasured_sentences.txt``. A sentence looks
   measured when its prose (math, code and cross-references removed) has a
   word of comparison or rank (``TRIGGERS``) or a number of two or more digits
   that the notebook's outputs print. An entry of that file that no longer
   matches a sentence fails too, so the list cannot go stale.

CONTRIBUTING.md ("Every measured sentence has its assert") says how to use it.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parent.parent / "book"
NOTEBOOKS = sorted(p for p in BOOK.rglob("*.ipynb") if "_build" not in p.parts)
UNMEASURED = Path(__file__).resolve().parent / "unmeasured_sentences.txt"

#: Words that state a measured comparison, rank or proportion.
TRIGGERS = re.compile(
    r"\b(?:beats?|beaten|wins?|won|best of|only at|nearly all|almost all|"
    r"keeps? up|outperforms?|fewer (?:mistakes|updates|errors|rounds)|"
    r"more (?:mistakes|updates|errors|rounds)|faster|slower|"
    r"times (?:as|more|fewer|faster|slower|larger|smaller)|"
    r"orders? of magnitude|ranks?|ranked|close to guessing|near chance)\b"
    r"|×|\d\s?%",
    re.IGNORECASE,
)
CLAIM = re.compile(r"^\s*#\s*claim:\s*(.*)$")
CONTINUATION = re.compile(r"^\s*#\s{2,}(\S.*)$")


def _ws(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _norm_quote(text: str) -> str:
    return _ws(text).strip("\"'").rstrip(".")


@cache
def _notebook(nb: Path) -> dict:
    return json.loads(nb.read_text())


def _sources(nb: Path, kind: str) -> list[str]:
    return [
        "".join(c["source"]) for c in _notebook(nb)["cells"] if c["cell_type"] == kind
    ]


def _outputs(nb: Path) -> str:
    parts = []
    for cell in _notebook(nb)["cells"]:
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", "")))
            parts.append("".join(out.get("data", {}).get("text/plain", "")))
            parts.append("".join(out.get("data", {}).get("text/html", "")))
    return "\n".join(parts)


def claims(nb: Path) -> list[tuple[int, str, bool]]:
    """(cell, quote, followed by an assert) for every ``# claim:`` of a notebook."""
    found = []
    for i, src in enumerate(_sources(nb, "code")):
        lines = src.splitlines()
        k = 0
        while k < len(lines):
            m = CLAIM.match(lines[k])
            if not m:
                k += 1
                continue
            words = [m.group(1)]
            k += 1
            while k < len(lines) and (c := CONTINUATION.match(lines[k])):
                words.append(c.group(1))
                k += 1
            j = k  # the next code line: another claim, or the assert
            while j < len(lines) and (
                CLAIM.match(lines[j])
                or CONTINUATION.match(lines[j])
                or not lines[j].strip()
            ):
                j += 1
            asserted = j < len(lines) and lines[j].lstrip().startswith("assert")
            found.append((i, _norm_quote(" ".join(words)), asserted))
    return found


def _prose(sentence: str) -> str:
    """The words of a sentence without its math, code, roles and link targets."""
    s = re.sub(r"\$\$.*?\$\$", " ", sentence)
    s = re.sub(r"\$[^$]*\$", " M ", s)
    s = re.sub(r"`[^`]*`", " R ", s)
    s = re.sub(r"\]\([^)]*\)", "]", s)
    return s


def sentences(nb: Path) -> list[str]:
    """The sentences of a notebook's markdown, whitespace folded, fences and options out."""
    out = []
    for src in _sources(nb, "markdown"):
        src = re.sub(r"^\s*(```+|~~~+).*$", " ", src, flags=re.M)
        src = re.sub(r"^\s*:[\w-]+:.*$", " ", src, flags=re.M)
        src = re.sub(r"^\s*\([\w-]+\)=\s*$", " ", src, flags=re.M)
        src = re.sub(r"\$\$.*?\$\$", " $$ $$ ", src, flags=re.S)
        for block in re.split(r"\n\s*\n", src):
            for s in re.split(r"(?<=[.!?:])\s+(?=[A-Z(*$])", _ws(block)):
                if s:
                    out.append(s)
    return out


def looks_measured(nb: Path, sentence: str) -> bool:
    prose = _prose(sentence)
    if TRIGGERS.search(prose):
        return True
    printed = set(re.findall(r"\d[\d,.]*\d", _outputs(nb)))
    numbers = re.findall(r"(?<![\w.,])\d[\d,.]*\d(?![\w])", prose)
    return any(n.rstrip(".,") in printed for n in numbers)


def unmeasured() -> dict[str, list[str]]:
    table: dict[str, list[str]] = {}
    for line in UNMEASURED.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" :: ")]
        assert len(parts) == 3 and all(parts), (
            f"{UNMEASURED.name}: a line is 'notebook :: words :: reason': {line!r}"
        )
        table.setdefault(parts[0], []).append(_ws(parts[1]))
    return table


def _name(p: Path) -> str:
    return str(p.relative_to(BOOK))


def _covered(sentence: str, quotes: list[str]) -> bool:
    s = sentence.rstrip(".")
    return any(q in s or s in q for q in quotes)


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_name)
def test_claims_quote_the_text(nb):
    markdown = _ws(" ".join(_sources(nb, "markdown")))
    missing = [(i, q) for i, q, _ in claims(nb) if q not in markdown]
    assert not missing, (
        "'# claim:' quotes not found verbatim in the notebook's markdown (the sentence "
        f"was edited and its check was not; cell, quote): {missing}"
    )


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_name)
def test_claims_are_asserted(nb):
    loose = [(i, q) for i, q, asserted in claims(nb) if not asserted]
    assert not loose, (
        f"'# claim:' comments with no assert after them (cell, quote): {loose}"
    )


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=_name)
def test_measured_sentences_are_tied(nb):
    quotes = [q for _, q, _ in claims(nb)]
    listed = unmeasured().get(_name(nb), [])
    untied = [
        s
        for s in sentences(nb)
        if looks_measured(nb, s)
        and not _covered(s, quotes)
        and not any(w in s for w in listed)
    ]
    assert not untied, (
        f"{len(untied)} sentences look measured but have no '# claim:' and are not in "
        f"tests/{UNMEASURED.name} (assert them, or list them with the reason they need "
        "none):\n" + "\n".join(f"  {_name(nb)} :: {s}" for s in untied)
    )


def test_unmeasured_entries_match_a_sentence():
    stale = []
    for name, words in unmeasured().items():
        nb = BOOK / name
        if not nb.exists():
            stale.append(f"{name} (no such notebook)")
            continue
        candidates = [s for s in sentences(nb) if looks_measured(nb, s)]
        stale += [
            f"{name} :: {w}" for w in words if not any(w in s for s in candidates)
        ]
    assert not stale, (
        f"entries of tests/{UNMEASURED.name} that match no sentence that looks measured "
        "(the sentence changed or went; update or remove the entry):\n  "
        + "\n  ".join(stale)
    )
