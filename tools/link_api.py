"""Link each section's first mention of an olbook name to its entry in the API appendix.

In the markdown cells of every notebook under book/ (and in the .md pages of the
book, except the API pages themselves), the first mention per notebook or page of
a public olbook name written as inline code becomes a MyST role:

* ```olbook.Perceptron``` -> ``{py:class}`olbook.Perceptron```` (also
  ```olbook.data```, ```olbook.kernels.gram``` and a function written with
  ``()``, e.g. ```olbook.fmt()``` -> ``{py:func}`olbook.fmt````);
* ```Perceptron``` (a bare class name that names exactly one documented class)
  -> ``{py:class}`~olbook.Perceptron```` (shown as ``Perceptron``, as before).

The names and their kinds (class, function, data, exception, module) are read from
the API pages (book/appendix/api/*.md), so every link has a target. Code cells,
outputs, headings, fenced code blocks, math and link texts are never touched. A
name already linked by a role in the notebook counts as its first mention, so a
second run changes nothing (idempotent).

Usage::

    python tools/link_api.py             # write the links
    python tools/link_api.py --dry-run   # report how many links each file would get
    python tools/link_api.py --check     # exit 1 if any link is missing (writes nothing)
    python tools/link_api.py PATH ...    # only these notebooks / pages

A notebook is rewritten only if re-serializing it unchanged reproduces its bytes
(one-space JSON indent, as Jupyter writes), so a write changes nothing but the links.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
API = BOOK / "appendix" / "api"

DIRECTIVE = re.compile(
    r"^\.\. (?:auto|py:)(module|class|exception|function|data)::\s+(\S+)\s*$",
    re.MULTILINE,
)
ROLE = {
    "module": "py:mod",
    "class": "py:class",
    "exception": "py:exc",
    "function": "py:func",
    "data": "py:data",
}
# an inline code span (single backticks) not already the argument of a role
CODE_SPAN = re.compile(r"(?<![`}\w])`([^`\n]+)`(?!`)")
LINKED = re.compile(
    r"\{py:(?:mod|class|exc|func|data|obj|meth|attr)\}`~?([^`<>]+?)(?:\s*<([^`>]+)>)?`"
)
# classes that olbook re-exports from scikit-learn: a bare mention means scikit-learn's
NOT_BARE = {"ConvergenceWarning"}
# a bare class name right after these words is another library's class of the same name
OTHER_LIBRARY = re.compile(
    r"(scikit-learn|sklearn|LIBOL|libsvm|numpy|scipy)\W{0,3}(\w+\W+){0,2}$",
    re.IGNORECASE,
)
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,}|:{3,})(.*)$")
# fences whose content is markdown (MyST directives that hold text); any other fence is code
TEXT_DIRECTIVES = re.compile(
    r"^\{(prf:\w+|exercise|solution|note|tip|warning|important|attention|caution|danger|error|hint|"
    r"seealso|admonition|dropdown|margin|sidebar|epigraph|topic|div|card|tab-item|glossary)\}"
)


def api_names(api_dir: Path = API) -> dict[str, str]:
    """Documented dotted name -> its kind, from the directives of the API pages."""
    names: dict[str, str] = {}
    for page in sorted(api_dir.glob("*.md")):
        for kind, name in DIRECTIVE.findall(page.read_text(encoding="utf-8")):
            names.setdefault(name, kind)
    return names


def bare_classes(names: dict[str, str]) -> dict[str, str]:
    """Bare class name -> its dotted name, for class names that name exactly one documented class."""
    seen: dict[str, list[str]] = {}
    for name, kind in names.items():
        if kind in ("class", "exception"):
            seen.setdefault(name.rsplit(".", 1)[1], []).append(name)
    return {
        short: full[0]
        for short, full in seen.items()
        if len(full) == 1 and short not in NOT_BARE
    }


class Linker:
    """Link the first mention of each name, across the markdown of one notebook or page."""

    def __init__(self, names: dict[str, str]):
        self.names = names
        self.bare = bare_classes(names)
        self.done: set[str] = set()  # dotted names already linked in this file
        self.count = 0

    def target(self, code: str, before: str = "") -> tuple[str, str] | None:
        """(dotted name, role text) for an inline code span that names an olbook object, else None.

        ``before`` is the text before the span (its line, after the end of the
        previous line): a bare class name that
        follows "scikit-learn's" (or another library's name) is that library's class.
        """
        text = code.strip()
        if text.startswith("olbook."):
            call = text.endswith("()")
            name = text[:-2] if call else text
            kind = self.names.get(name)
            if kind is None or (call and kind != "function"):
                return None
            return name, f"{{{ROLE[kind]}}}`{name}`"
        if text in self.bare and not OTHER_LIBRARY.search(before):
            name = self.bare[text]
            return name, f"{{{ROLE[self.names[name]]}}}`~{name}`"
        return None

    def note_existing(self, markdown: str) -> None:
        for m in LINKED.finditer(markdown):
            self.done.add((m.group(2) or m.group(1)).strip().lstrip("~"))

    def link_line(self, line: str, previous: str = "") -> str:
        if (
            line.lstrip().startswith("#")
            or line.lstrip().startswith("(")
            and line.rstrip().endswith(")=")
        ):
            return line  # a heading or a label
        masked = _mask(line)
        out, pos = [], 0
        for m in CODE_SPAN.finditer(masked):
            # the words before the span, across a line break ("scikit-learn's\n`Perceptron`")
            before = (previous.rstrip() + " " + line[: m.start()]).lstrip()
            found = self.target(line[m.start(1) : m.end(1)], before)
            if found is None or found[0] in self.done:
                continue
            if (
                m.start() > 0
                and line[m.start() - 1] == "["
                or line[m.end() : m.end() + 2] == "]("
            ):
                continue  # the text of a markdown link
            self.done.add(found[0])
            self.count += 1
            out.append(line[pos : m.start()])
            out.append(found[1])
            pos = m.end()
        out.append(line[pos:])
        return "".join(out)

    def link(self, markdown: str) -> str:
        lines = markdown.split("\n")
        stack: list[tuple[str, bool]] = []  # open fences: (marker, content is text)
        in_math = False
        for i, line in enumerate(lines):
            m = FENCE.match(line)
            if m:
                marker, info = m.group(2), m.group(3).strip()
                if (
                    stack
                    and marker[0] == stack[-1][0][0]
                    and len(marker) >= len(stack[-1][0])
                    and not info
                ):
                    stack.pop()  # closes the innermost fence
                    continue
                if not stack or stack[-1][1]:
                    stack.append(
                        (marker, marker[0] == ":" or bool(TEXT_DIRECTIVES.match(info)))
                    )
                continue
            fence = stack[-1] if stack else None
            if fence is not None and not fence[1]:
                continue  # inside code
            if in_math:
                in_math = "$$" not in line  # a line of display math; "$$" closes it
                continue
            if line.lstrip().startswith("$$"):
                # "$$ ... $$" on one line opens and closes
                in_math = line.count("$$") % 2 == 1
                continue
            if line.lstrip().startswith(":"):
                continue  # a directive option line
            lines[i] = self.link_line(line, lines[i - 1] if i else "")
        return "\n".join(lines)


def _mask(line: str) -> str:
    """The line with inline math ($...$) blanked out, same length, so spans in math are not seen."""
    return re.sub(r"\$[^$\n]+\$", lambda m: " " * len(m.group(0)), line)


def book_files(paths: list[str]) -> list[Path]:
    if paths:
        return [Path(p).resolve() for p in paths]
    files = sorted(BOOK.rglob("*.ipynb")) + sorted(BOOK.rglob("*.md"))
    return [
        f
        for f in files
        if API not in f.parents
        and ".ipynb_checkpoints" not in f.parts
        and "_build" not in f.parts
    ]


def notebook_text(nb: dict) -> str:
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def process(path: Path, names: dict[str, str], write: bool) -> tuple[int, str | None]:
    """Return (links added, a reason the file was not written or None)."""
    linker = Linker(names)
    raw = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        linker.note_existing(raw)
        new = linker.link(raw)
        if write and new != raw:
            path.write_text(new, encoding="utf-8")
        return linker.count, None
    nb = json.loads(raw)
    cells = [c for c in nb["cells"] if c["cell_type"] == "markdown"]
    for cell in cells:
        linker.note_existing("".join(cell["source"]))
    for cell in cells:
        src = "".join(cell["source"])
        new = linker.link(src)
        if new != src:
            cell["source"] = new.splitlines(keepends=True)
    if not (write and linker.count):
        return linker.count, None
    if notebook_text(json.loads(raw)) != raw:
        return (
            linker.count,
            "not written: its JSON is not in Jupyter's layout (re-save it first)",
        )
    path.write_text(notebook_text(nb), encoding="utf-8")
    return linker.count, None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--dry-run",
        action="store_true",
        help="report the links each file would get; write nothing",
    )
    mode.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if any file lacks a link; write nothing",
    )
    parser.add_argument(
        "paths", nargs="*", help="notebooks or .md pages (default: the whole book)"
    )
    args = parser.parse_args(argv)
    names = api_names()
    if not names:
        print(f"no API entries found in {API}", file=sys.stderr)
        return 2
    write = not (args.dry_run or args.check)
    total, problems = 0, 0
    for path in book_files(args.paths):
        n, reason = process(path, names, write)
        total += n
        if n or reason:
            rel = path.relative_to(ROOT) if ROOT in path.parents else path
            verb = "added" if write and not reason else "would add"
            print(
                f"{rel}: {verb} {n} link{'s' * (n != 1)}"
                + (f" ({reason})" if reason else "")
            )
        problems += bool(reason)
    verb = "added" if write else "would add"
    print(f"{verb} {total} links in total")
    if args.check and total:
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
