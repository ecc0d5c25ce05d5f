"""Every chapter and section number in the text agrees with the table of contents.

The book's chapters are the entries of the numbered part of ``_toc.yml``, numbered
1, 2, ... in toc order (the appendices are unnumbered); section N.M is the M-th
entry of chapter N's ``sections``. The test reads the words "chapter N",
"chapters N and K" (also ``,``, ``or``, ``-``, ``–``), "section N.M", "sections
N.M and N.K", "§N.M" and "chapter N, part K" in

* the docstrings, strings and comments of olbook (``olbook/**/*.py``),
* the markdown of the book (``book/**/*.md`` and the markdown cells of
  ``book/**/*.ipynb``), ``README.md`` and ``CONTRIBUTING.md``,

and fails when

1. chapter N or section N.M does not exist, or a mention says "part K" (the
   chapters have no parts: write "chapter N" or "section N.M");
2. a book label (``perc-sec-pla``, ``{ref}`olc-sec-pa```, ``:prf:ref:`...```) or a
   path ``book/NN_name/`` after the mention in its sentence (nearest mention
   before it, same clause: not past a semicolon or the parenthesis that closes
   around the mention, nor past a comma after "chapter N's") belongs to another
   chapter (or, for a section, to another section; a range "sections 1.3--1.5"
   takes any section of the range);
3. "It is the source of chapter N" (references page) or "(chapter N; entries
   X-n)" (notes on the sources) names other chapters than those of the labels
   that the source's notes link to.

A number that belongs to a *source* is not the book's and is skipped: a mention
followed by "of ..." (section 6.6 of Hopcroft and Kannan's draft, chapter 6 of
the notes) or by "there" (chapter 5 there); or preceded, within 40 characters and
in the same clause, by a citation, a year (Chang and Lin 2011, section 4.3) or the
words draft, source's, source writes (the draft, section 6.2); or right after "its"
or "their" (its section 6.5). A mention right after "book" (book section 2.2) is
always the book's. Anything else the rules cannot tell goes in ``ALLOWED`` with
its reason; an entry that no longer matches a flagged sentence fails the test.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"

#: (file relative to the root, words of the sentence, reason): mentions of numbers
#: that the rules would check although they are not the book's.
ALLOWED: list[tuple[str, str, str]] = [
    # none: the rules above tell every number of the book from a source's
]

NUM = r"\d+(?:\.\d+)*"
SEP = r"\s*(?:,\s*and|,\s*or|,|and|or|to|--|-|–|—)\s*"
MENTION = re.compile(
    rf"(?P<word>\bchapters?|\bsections?|§)\s*(?P<first>{NUM})"
    rf"(?P<more>(?:{SEP}{NUM}\b)*)(?P<part>,?\s+part\s+\d+)?",
    re.IGNORECASE,
)
LABEL_DEF = re.compile(r"^\s*\(([\w:-]+)\)=\s*$|^\s*:label:\s*(\S+)", re.M)
LABEL_USE = re.compile(
    r"(?<![\w-])((?:perc|marg|boost|vc|regret|olc|kol|oco)-[\w-]*\w)"
)
PATH_USE = re.compile(r"\bbook/(\d\d)_\w+")
# a source's number, after the mention
SOURCE_AFTER = re.compile(
    r"^\s*(?:\([^()]*\)\s*)?(?:of\s+(?!(?:this|the)\s+book)|there\b)"
)
# a source's number, before the mention (in its sentence)
SOURCE_BEFORE = re.compile(
    r"cite\}`[^`]*`|:cite:`[^`]*`|\b(?:19|20)\d\d[a-z]?\b|\bdrafts?\b|\bsource's\b"
    r"|\bsource writes\b|\b(?:its|their)\s+$",
    re.IGNORECASE,
)
#: how far before a mention a SOURCE_BEFORE match ends (in the same clause: after the
#: last semicolon or mention)
WINDOW = 40
BOOK_BEFORE = re.compile(r"\bbook(?:'s)?\s*$", re.IGNORECASE)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[^a-z\s])|\s\|\s|\n\s*[-*]\s+|\n\s*\n")


@dataclass
class Toc:
    #: chapter -> its section files, in order
    sections: dict[int, list[str]]
    #: label -> (chapter, section); section 0 is the chapter's page
    where: dict[str, tuple[int, int]]


def _markdown(path: Path) -> str:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return "\n\n".join(
            "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
        )
    return path.read_text(encoding="utf-8")


def _file(entry: str) -> Path:
    for suffix in (".ipynb", ".md"):
        if (ROOT / (entry + suffix)).exists():
            return ROOT / (entry + suffix)
    raise FileNotFoundError(entry)


def read_toc() -> Toc:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    chapters = [
        c for part in toc["parts"] if part.get("numbered") for c in part["chapters"]
    ]
    sections, where = {}, {}
    for n, chapter in enumerate(chapters, start=1):
        files = [s["file"] for s in chapter.get("sections", [])]
        sections[n] = files
        for m, entry in enumerate([chapter["file"], *files]):
            for match in LABEL_DEF.finditer(_markdown(_file(entry))):
                where[next(g for g in match.groups() if g)] = (n, m)
    return Toc(sections, where)


def _python_texts(path: Path):
    """(line, text) of every string and every block of comment lines of a module."""
    tokens = tokenize.generate_tokens(
        io.StringIO(path.read_text(encoding="utf-8")).readline
    )
    comment, start = [], 0
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            if not comment:
                start = tok.start[0]
            comment.append(tok.string.lstrip("#"))
            continue
        if tok.type in (tokenize.NL, tokenize.NEWLINE) and comment:
            continue
        if comment:
            yield start, "\n".join(comment)
            comment = []
        if tok.type == tokenize.STRING:
            yield tok.start[0], tok.string
    if comment:
        yield start, "\n".join(comment)


def texts():
    """(file, line of the text's start, text) for every text the test reads."""
    for path in sorted((ROOT / "olbook").rglob("*.py")):
        for line, text in _python_texts(path):
            yield path, line, text
    for path in [
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
        *sorted(BOOK.rglob("*.md")),
    ]:
        if "_build" not in path.parts:
            yield path, 1, path.read_text(encoding="utf-8")
    for path in sorted(BOOK.rglob("*.ipynb")):
        if "_build" in path.parts or ".ipynb_checkpoints" in path.parts:
            continue
        for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            if cell["cell_type"] == "markdown":
                yield path, f"cell {i}", "".join(cell["source"])


def sentences(text: str):
    """The sentences of a text (also table cells and list items), whitespace collapsed."""
    for piece in SENTENCE_END.split(text):
        piece = " ".join(piece.split())
        if piece:
            yield piece


def _numbers(m: re.Match) -> list[str]:
    return [m["first"], *re.findall(NUM, m["more"] or "")]


def is_source(sentence: str, m: re.Match) -> bool:
    before = sentence[: m.start()]
    if BOOK_BEFORE.search(before):
        return False
    if SOURCE_AFTER.match(sentence[m.end() :]):
        return True
    start = max([before.rfind(";") + 1] + [p.end() for p in MENTION.finditer(before)])
    return any(
        s.end() >= len(before) - WINDOW for s in SOURCE_BEFORE.finditer(before, start)
    )


def _beside(between: str) -> bool:
    """Whether a label after a mention, with this text between, is the mention's topic.

    Not after a semicolon, nor after the parenthesis that encloses the mention closes
    ("(chapter 6's C) on random features (label)"), nor, after a possessive
    ("chapter 1's perceptron, the OGD of label"), after a comma or "and".
    """
    depth = 0
    for c in between:
        depth += (c == "(") - (c == ")")
        if depth < 0:
            return False
    if ";" in between:
        return False
    return not (between.startswith("'s") and re.search(r",|\band\b", between))


def check_sentence(sentence: str, toc: Toc) -> list[str]:
    """What is wrong with the book's numbers in one sentence (empty if nothing)."""
    problems = []
    mentions = [(m, is_source(sentence, m)) for m in MENTION.finditer(sentence)]
    for m, source in mentions:
        if source:
            continue
        word = m["word"].lower()
        if m["part"]:
            problems.append(f"'{m[0]}': the chapters have no parts")
        for number in _numbers(m):
            parts = [int(p) for p in number.split(".")]
            if word.startswith("chapter"):
                if len(parts) != 1 or parts[0] not in toc.sections:
                    problems.append(f"'{m[0]}': no chapter {number}")
            elif len(parts) < 2 or parts[0] not in toc.sections:
                problems.append(f"'{m[0]}': no section {number}")
            elif not 1 <= parts[1] <= len(toc.sections[parts[0]]):
                problems.append(f"'{m[0]}': no section {number}")
    if not mentions:
        return problems
    # the topic beside a mention: a label or path after it in its sentence
    topics = [
        (u.start(), u[1], toc.where.get(u[1])) for u in LABEL_USE.finditer(sentence)
    ]
    topics += [
        (u.start(), u[0], (int(u[1]), None)) for u in PATH_USE.finditer(sentence)
    ]
    for pos, name, place in topics:
        before = [ms for ms in mentions if ms[0].end() <= pos]
        if (
            place is None
            or not before
            or sentence[pos - 1 : pos + len(name) + 2].endswith(")=")
        ):
            continue  # an unknown label (an appendix's, a file name), or no mention before
        m, source = before[-1]
        if source or not _beside(sentence[m.end() : pos]):
            continue
        numbers = [[int(p) for p in n.split(".")] for n in _numbers(m)]
        chapter, section = place
        if m["word"].lower().startswith("chapter"):
            fits = min(n[0] for n in numbers) <= chapter <= max(n[0] for n in numbers)
        else:
            fits = all(n[0] == chapter for n in numbers) and (
                not section
                or min(n[1] for n in numbers) <= section <= max(n[1] for n in numbers)
            )
        if not fits:
            here = f"section {chapter}.{section}" if section else f"chapter {chapter}"
            problems.append(f"'{m[0]}' beside {name}, which is in {here}")
    return problems


def _allowed(path: Path, sentence: str) -> tuple[str, str, str] | None:
    rel = path.relative_to(ROOT).as_posix()
    for entry in ALLOWED:
        if entry[0] == rel and entry[1] in sentence:
            return entry
    return None


def test_toc_is_read():
    toc = read_toc()
    assert len(toc.sections) == 9, sorted(toc.sections)
    assert toc.where["perc-sec-pla"] == (1, 2)
    assert toc.where["olc-sec-pa"] == (6, 1)
    assert toc.where["kol-chapter"] == (7, 0)
    assert toc.where["oco-chapter"] == (8, 0)


def test_rules_catch_stale_numbers():
    """The checks fail on the kinds of error they exist for, and pass sources' numbers."""
    toc = read_toc()
    stale = [
        "Book chapter 5, part 2 (online linear classifiers).",
        "It is the source of chapter 12.",
        "See section 6.12 for the rest.",
        "Hedge (chapter 6, ``regret-sec-hedge``) weighs the experts.",
        "Passive-aggressive (section 6.2, {ref}`olc-sec-pa`) is first.",
        "The kernels of chapter 2 (`book/07_kernel_online/`) are Mercer's.",
        "As in sections 1.3 and 1.9, the bound holds.",
        "Book chapter 5, sections 5.3--5.4 (:ref:`regret-sec-halving`).",
        "Book: section 1.3 (:prf:ref:`perc-thm-normalized`).",
    ]
    for sentence in stale:
        assert check_sentence(sentence, toc), sentence
    fine = [
        "The *Foundations of Data Science* draft, section 6.9, says so.",
        "This follows section 6.6 of Hopcroft and Kannan's draft.",
        "As in libsvm (Chang and Lin 2011, section 4.3), a column is cached.",
        "The draft (section 6.3) counts the monomials (book section 2.4).",
        "Hedge (chapter 5, ``regret-sec-hedge``) weighs the experts.",
        "The rewritten chapter on learning (chapter 5 there) differs.",
        "Passive-aggressive (section 6.1, {ref}`olc-sec-pa`) and OGD (chapter 5).",
    ]
    for sentence in fine:
        assert not check_sentence(sentence, toc), (
            sentence,
            check_sentence(sentence, toc),
        )


def test_chapter_and_section_numbers_match_the_toc():
    toc = read_toc()
    problems, used, n_mentions = [], set(), 0
    for path, line, text in texts():
        for sentence in sentences(text):
            n_mentions += len(MENTION.findall(sentence))
            found = check_sentence(sentence, toc)
            if not found:
                continue
            entry = _allowed(path, sentence)
            if entry:
                used.add(entry)
                continue
            where = f"{path.relative_to(ROOT)} ({line})"
            problems += [f"{where}: {p}: {sentence[:160]}" for p in found]
    assert n_mentions > 100, n_mentions  # the pattern sees the mentions
    assert not problems, "numbers that do not match _toc.yml:\n" + "\n".join(problems)
    unused = [e for e in ALLOWED if e not in used]
    assert not unused, f"ALLOWED entries that match no flagged sentence: {unused}"


def _chapter_set(words: str) -> set[int]:
    return {int(n) for n in re.findall(r"\d+", words)}


def test_sources_feed_the_chapters_they_say():
    """A source's chapters agree with the labels of its notes.

    "It is the source of chapter N" (references) and "(chapter N; entries X-n)"
    (notes on the sources) name exactly the chapters of the sections that the
    source's notes on the sources page link to.
    """
    toc = read_toc()
    notes = (BOOK / "appendix" / "notes_on_sources.md").read_text(encoding="utf-8")
    used: dict[str, set[int]] = {}
    claimed: dict[str, set[int]] = {}
    prefix = None
    for block in re.split(r"(?m)^(?=## )", notes):
        heading = block.splitlines()[0] if block.startswith("## ") else ""
        m = re.search(r"entries (\w+)-n", heading)
        if m:
            prefix = m[1]
            c = re.search(r"\(chapters? ([\d ,and]+);", heading)
            if c:
                claimed[f"notes on the sources, {prefix}"] = _chapter_set(c[1])
        if prefix:
            for u in LABEL_USE.finditer(block):
                if u[1] in toc.where:
                    used.setdefault(prefix, set()).add(toc.where[u[1]][0])
    refs = (BOOK / "appendix" / "references.md").read_text(encoding="utf-8")
    for m in re.finditer(
        r"(?ms)^\S.*?\(entries (\w+)-n\)\s*\n(.*?)(?=^[^\s:]|\Z)", refs
    ):
        c = re.search(r"source of\s+chapters?\s+(\d+(?:(?:,|\s+and)\s+\d+)*)", m[2])
        if c:
            claimed[f"references, {m[1]}"] = _chapter_set(c[1])
    assert len(claimed) >= 4, claimed  # OL and KOL, on both pages
    wrong = {
        where: (chapters, used.get(where.split(", ")[-1]))
        for where, chapters in claimed.items()
        if chapters != used.get(where.split(", ")[-1])
    }
    assert not wrong, f"(claimed chapters, chapters the notes link to): {wrong}"
