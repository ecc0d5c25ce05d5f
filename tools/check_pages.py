"""Browser check of the built book: open every page in headless Chromium and fail on what a reader would see broken.

Usage: .venv/bin/python tools/check_pages.py [_build/html]     (run by `make test` after the book build)

Every HTML page of the build (all but genindex.html, search.html and the folders _static, _sources,
_images; every page of _toc.yml must be among them) is opened, one after another, in one headless
Chromium driven through the DevTools protocol (tools/check_widths.py's ``measure``); once MathJax
has typeset the page (its startup promise), its images have loaded and its fonts are ready, the
DOM is taken from the page and checked for:

- MathJax errors: mjx-merror elements, data-mjx-error attributes, "Math input error",
  "Undefined control sequence", undefined macros that MathJax shows in red;
- formulas left as raw TeX: a math element of the page without an mjx-container, math delimiters
  (\\( \\) \\[ \\] $$), a $...$ span or a TeX command (\\frac, \\Upsilon) in the visible text outside
  code, pre, script and style;
  MathJax not loaded from the book itself (it must work offline);
- missing images: an <img> whose local file does not exist or is empty, an empty data: URI;
- unresolved internal links: a local href whose file does not exist, or whose #fragment is not an
  id of the target page (also missing local scripts and stylesheets);
- tracebacks: the text "Traceback (most recent call last)" or an error output cell;
- anything fetched from the network: a script, stylesheet, font, image, frame or media element of
  the page's HTML with an http(s) or protocol-relative URL, and any url(...) or @import with one
  in the page's inline styles or in the book's CSS files (_static). Links (<a href>) may point
  anywhere: a reader follows them or not.

With ``--widths`` (as ``make test`` runs it), the same pass also measures every page for
tools/check_widths.py (overflowing outputs, wrapped tables, illegible figures) and prints its
problems and summary: one Chromium session and one typesetting of each page for both checks.

Prints one line per problem ("page: problem"), the pages and formulas checked per part of the book
(front matter, chapter 1 ... 7, appendix, API: the olbook API pages in book/appendix/api) and a
summary line; exits 1 if there is any problem, or if a chapter, the appendix or the API part of
_toc.yml has no page in the build.
Chromium: $CHROMIUM, else the first of chromium, chromium-browser, google-chrome on PATH. It runs
offline (every host name fails to resolve), as for a reader without network.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import os
import re
import shutil
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import yaml
from bs4 import BeautifulSoup, Comment, Tag

SKIP_FILES = {"genindex.html", "search.html"}
SKIP_DIRS = {"_static", "_sources", "_images"}
# Subtrees whose text is not prose: code, program output, scripts, and the typeset math itself.
NOT_PROSE = {
    "code",
    "pre",
    "script",
    "style",
    "noscript",
    "template",
    "textarea",
    "kbd",
    "samp",
    "tt",
    "mjx-container",
    "math",
    "svg",
    "head",
    "title",
}
BLOCKS = {
    "p",
    "li",
    "dt",
    "dd",
    "td",
    "th",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "div",
    "section",
    "article",
    "aside",
    "nav",
    "header",
    "footer",
    "main",
    "blockquote",
    "figcaption",
    "figure",
    "caption",
    "table",
    "ul",
    "ol",
    "dl",
    "details",
    "summary",
    "label",
    "button",
    "form",
    "body",
}
RAW_TEX = [
    (re.compile(r"\\\(|\\\)"), r"inline math delimiter \( or \)"),
    (re.compile(r"\\\[|\\\]"), r"display math delimiter \[ or \]"),
    (re.compile(r"\$\$"), "display math delimiter $$"),
    (re.compile(r"\\begin\{[A-Za-z*]+\}"), r"\begin{...} environment"),
    # $x$, $\gamma$, $y \in \{-1,+1\}$: a dollar, no space after it, no space before the closing one
    # (so "costs $5 and $10" is not math, as in TeX and MyST).
    (
        re.compile(r"(?<![\\$])\$(?=[^\s$])[^$\n]{0,200}?(?<=[^\s\\$])\$(?!\d)"),
        "unrendered $...$",
    ),
    # \frac, \Upsilon, \operatorname: a TeX command in the prose is a formula whose delimiters broke
    # (a lone $, or a line of a formula that Markdown read as a list item)
    (
        re.compile(r"(?<![\\\w])\\[A-Za-z]{2,}"),
        r"a TeX command (\name) outside a formula",
    ),
]
MAX_SHOWN = 8
TRACEBACK = "Traceback (most recent call last)"
MATHJAX_ERRORS = ["Math input error", "Undefined control sequence"]
RED_NAMES = {"red", "#f00", "#ff0000"}
RED = re.compile(r"color:\s*(red|#f00\b|#ff0000|rgb\(255,\s*0,\s*0\))", re.I)
# Elements whose URL the browser fetches by itself (not links a reader chooses to follow).
FETCHED = [
    ("script", "src"),
    ("link", "href"),
    ("img", "src"),
    ("img", "srcset"),
    ("iframe", "src"),
    ("source", "src"),
    ("source", "srcset"),
    ("video", "src"),
    ("video", "poster"),
    ("audio", "src"),
    ("embed", "src"),
    ("object", "data"),
    ("track", "src"),
    ("input", "src"),
]
LINK_RELS_NOT_FETCHED = {
    "canonical",
    "alternate",
    "author",
    "help",
    "license",
    "next",
    "prev",
    "search",
    "bookmark",
    "external",
    "nofollow",
    "noopener",
    "noreferrer",
    "me",
    "edit",
}
REMOTE = re.compile(r"^\s*(https?:)?//", re.I)
CSS_REMOTE = re.compile(
    r"(url\(\s*['\"]?\s*(https?:)?//[^)'\"\s]*|@import\s+['\"](https?:)?//[^'\"]*)",
    re.I,
)
CHAPTER = re.compile(r"^book/(\d\d)_[^/]+/")


#: Headless, offline Chromium: every host name fails to resolve, as for a reader without network
#: (tools/build_pdf.py and tools/screenshot.py start it with the same flags).
HEADLESS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--mute-audio",
    "--host-resolver-rules=MAP * ~NOTFOUND",
]


def find_chromium(tool: str = "check_pages") -> str:
    """$CHROMIUM, else the first of chromium, chromium-browser, google-chrome on PATH."""
    candidates = [os.environ.get("CHROMIUM", "")] + [
        "chromium",
        "chromium-browser",
        "google-chrome",
    ]
    for name in candidates:
        if name and shutil.which(name):
            return shutil.which(name)
    sys.exit(f"{tool}: Chromium not found (set CHROMIUM, or run `make chromium`)")


def toc_pages(toc_file: Path) -> list[str]:
    """Paths (without suffix) of every document in _toc.yml."""
    found: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            for key in ("root", "file"):
                if isinstance(node.get(key), str):
                    found.append(re.sub(r"\.(md|ipynb|rst)$", "", node[key]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(yaml.safe_load(toc_file.read_text(encoding="utf-8")))
    return found


def pages_of(html_dir: Path) -> list[Path]:
    pages = []
    for path in sorted(html_dir.rglob("*.html")):
        rel = path.relative_to(html_dir)
        if rel.parts[0] in SKIP_DIRS or rel.as_posix() in SKIP_FILES:
            continue
        pages.append(path)
    return pages


class Targets:
    """Ids of the pages that links point to, read once (from the static HTML and, if opened, the DOM)."""

    def __init__(self) -> None:
        self.ids: dict[Path, set[str]] = {}

    def add(self, path: Path, soup: BeautifulSoup) -> None:
        found = {t["id"] for t in soup.find_all(id=True)}
        found |= {t["name"] for t in soup.find_all("a", attrs={"name": True})}
        self.ids.setdefault(path.resolve(), set()).update(found)

    def of(self, path: Path) -> set[str]:
        key = path.resolve()
        if key not in self.ids:
            self.add(
                key,
                BeautifulSoup(
                    key.read_text(encoding="utf-8", errors="replace"), "html.parser"
                ),
            )
        return self.ids[key]


def local_target(page: Path, url: str) -> tuple[Path | None, str]:
    """The local file and fragment `url` points to from `page`; (None, '') for external URLs."""
    parts = urlsplit(url)
    if parts.scheme not in ("", "file") or parts.netloc:
        return None, ""
    if parts.scheme == "file":
        path = Path(unquote(parts.path))
    elif parts.path == "":
        path = page
    else:
        path = page.parent / unquote(parts.path)
    if path.is_dir():
        path = path / "index.html"
    return path, unquote(parts.fragment)


def prose_blocks(body: Tag):
    """Visible prose text grouped by its nearest block element, outside code, pre, script, style, math."""
    groups: dict[int, list[str]] = {}
    for text in body.find_all(string=True):
        if isinstance(text, Comment) or not text.strip():
            continue
        block = None
        for parent in text.parents:
            if parent.name in NOT_PROSE:
                break
            if block is None and parent.name in BLOCKS:
                block = parent
        else:
            groups.setdefault(id(block), []).append(str(text))
    for pieces in groups.values():
        yield re.sub(r"\s+", " ", "".join(pieces)).strip()


def relative(path: Path, root: Path) -> str:
    path = Path(os.path.normpath(path))
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def short(text: str, n: int = 70) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= n else text[: n - 1] + "…"


def check_page(
    page: Path, dom: str, html_dir: Path, targets: Targets
) -> tuple[int, list[str]]:
    """(number of formulas typeset, problems) for one page, from the DOM Chromium dumped."""
    problems: list[str] = []
    soup = BeautifulSoup(dom, "html.parser")
    static = BeautifulSoup(
        page.read_text(encoding="utf-8", errors="replace"), "html.parser"
    )
    targets.add(page, soup)
    body = soup.body or soup
    containers = soup.find_all("mjx-container")

    # MathJax loaded, from the book itself.
    source_math = static.select(".math")
    mathjax_src = [
        s["src"]
        for s in static.find_all("script", src=True)
        if "mathjax" in s["src"].lower()
    ]
    if source_math and not any(local_target(page, src)[0] for src in mathjax_src):
        where = ", ".join(mathjax_src) if mathjax_src else "no MathJax script at all"
        problems.append(
            f"MathJax is not loaded from the book itself ({where}): offline no formula renders"
        )

    # MathJax errors.
    for err in soup.find_all("mjx-merror"):
        message = err.get("data-mjx-error") or err.get("title") or err.get_text()
        problems.append(f"MathJax error: {short(message)}")
    for tag in soup.find_all(attrs={"data-mjx-error": True}):
        if tag.name != "mjx-merror":
            problems.append(f"MathJax error: {short(tag['data-mjx-error'])}")
    dom_text = soup.get_text(" ")
    for message in MATHJAX_ERRORS:
        if message in dom_text and not soup.find_all("mjx-merror"):
            problems.append(f"MathJax error text {message!r} on the page")
    for container in containers:
        # MathJax shows an undefined macro \foo as red text; its assistive MathML has the macro's name.
        red = [
            t
            for t in container.find_all(attrs={"mathcolor": True})
            if t["mathcolor"].lower() in RED_NAMES
        ]
        if red:
            problems.append(
                "MathJax shows in red (undefined macro?): "
                + ", ".join(short(t.get_text()) for t in red)
            )
        elif any(RED.search(t.get("style", "")) for t in container.find_all(True)):
            problems.append(
                f"MathJax shows red text in a formula: {short(container.get_text())}"
            )

    # Formulas left as raw TeX.
    for math in soup.select(".math"):
        if not math.find("mjx-container"):
            problems.append(f"formula not typeset: {short(math.get_text())}")
    for text in prose_blocks(body):
        for pattern, what in RAW_TEX:
            match = pattern.search(text)
            if match:
                start = max(0, match.start() - 30)
                problems.append(
                    f"raw TeX ({what}) in the text: {short(text[start : match.end() + 30])}"
                )

    # Images.
    for img in soup.find_all("img"):
        src = img.get("src", "")
        if not src:
            problems.append(f"image without src: {img}")
        elif src.startswith("data:"):
            header, _, payload = src.partition(",")
            try:
                data = (
                    base64.b64decode(payload, validate=False)
                    if ";base64" in header
                    else unquote(payload)
                )
            except (binascii.Error, ValueError):
                data = b""
            if not data:
                problems.append(f"empty image data URI ({header})")
        else:
            path, _ = local_target(page, src)
            if path is not None and (not path.is_file() or path.stat().st_size == 0):
                problems.append(f"missing image: {src}")

    # Internal links, scripts and stylesheets.
    for tag, attr in (
        ("a", "href"),
        ("area", "href"),
        ("link", "href"),
        ("script", "src"),
        ("iframe", "src"),
    ):
        for element in soup.find_all(tag, attrs={attr: True}):
            url = element[attr].strip()
            if not url or url.startswith(("javascript:", "mailto:", "tel:", "data:")):
                continue
            path, fragment = local_target(page, url)
            if path is None:
                continue
            if not path.is_file():
                problems.append(
                    f"dead link: {url} (no file {relative(path, html_dir)})"
                )
            elif (
                fragment and path.suffix == ".html" and fragment not in targets.of(path)
            ):
                problems.append(f"dead link: {url} (no id {fragment!r} in {path.name})")

    # Nothing fetched from the network.
    for url in remote_fetches(static):
        problems.append(f"fetches from the network: {short(url, 120)}")

    # Tracebacks and error outputs.
    if TRACEBACK in soup.get_text():
        problems.append(f"traceback in the page: {TRACEBACK!r}")
    for output in soup.select(
        ".cell_output .traceback, .output.traceback, .output.error, .output_error"
    ):
        problems.append(f"error output cell: {short(output.get_text())}")

    # A page whose static HTML has math must show typeset math.
    if source_math and not containers:
        problems.append(
            f"MathJax typeset nothing ({len(source_math)} formulas in the page)"
        )
    return len(containers), list(dict.fromkeys(problems))


def part_of(rel: str) -> str:
    """The part of the book a page (path relative to the HTML root, or a _toc.yml document) is in."""
    match = CHAPTER.match(rel)
    if match:
        return f"chapter {int(match.group(1))}"
    if rel.startswith("book/appendix/api/"):
        return "API"
    if rel.startswith("book/appendix/"):
        return "appendix"
    return "front matter"


def part_key(part: str) -> tuple[int, int]:
    order = {"front matter": (0, 0), "appendix": (2, 0), "API": (3, 0)}
    return order.get(
        part, (1, int(part.split()[-1])) if part.startswith("chapter") else (4, 0)
    )


def remote_fetches(static: BeautifulSoup) -> list[str]:
    """URLs the page's HTML makes the browser fetch from the network (not links a reader may follow)."""
    found = []
    for tag, attr in FETCHED:
        for element in static.find_all(tag, attrs={attr: True}):
            if (
                tag == "link"
                and set(element.get("rel") or []) <= LINK_RELS_NOT_FETCHED
                and element.get("rel")
            ):
                continue
            urls = (
                [u.strip().split()[0] for u in element[attr].split(",") if u.strip()]
                if "srcset" in attr
                else [element[attr]]
            )
            found += [f"<{tag} {attr}={url}>" for url in urls if REMOTE.match(url)]
    for element in static.find_all(style=True):
        found += [m.group(0) for m in CSS_REMOTE.finditer(element["style"])]
    for element in static.find_all("style"):
        found += [m.group(0) for m in CSS_REMOTE.finditer(element.get_text())]
    return found


def check_redirect(page: Path, html_dir: Path) -> list[str] | None:
    """Problems of a meta-refresh page (index.html), checked without a browser; None if it is not one."""
    soup = BeautifulSoup(
        page.read_text(encoding="utf-8", errors="replace"), "html.parser"
    )
    meta = soup.find("meta", attrs={"http-equiv": re.compile("^refresh$", re.I)})
    if meta is None or soup.find("body") is not None and soup.body.get_text(strip=True):
        return None
    match = re.search(r"url\s*=\s*(\S+)", meta.get("content", ""), re.I)
    if not match:
        return ["redirect without a url"]
    path, _ = local_target(page, match.group(1).strip("'\""))
    return (
        []
        if path is None or path.is_file()
        else [f"redirect to a missing page: {match.group(1)}"]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html_dir", nargs="?", default="_build/html", type=Path)
    parser.add_argument(
        "--toc",
        type=Path,
        default=None,
        help="_toc.yml (default: the one beside _build)",
    )
    parser.add_argument(
        "--timeout", type=int, default=180, help="real-time limit per page, s"
    )
    parser.add_argument(
        "--widths",
        action="store_true",
        help="also run tools/check_widths.py's checks on the pages opened (one pass)",
    )
    args = parser.parse_args()

    html_dir = args.html_dir.resolve()
    if not (html_dir / "index.html").is_file():
        sys.exit(f"check_pages: no built book in {html_dir} (run the book build first)")
    chromium = find_chromium()
    problems: dict[str, list[str]] = {}

    pages = pages_of(html_dir)
    toc = args.toc or html_dir.parent.parent / "_toc.yml"
    toc_parts: set[str] = set()
    if toc.is_file():
        for doc in toc_pages(toc):
            toc_parts.add(part_of(doc))
            if not (html_dir / f"{doc}.html").is_file():
                problems.setdefault(f"{doc}.html", []).append(
                    "page of _toc.yml missing from the build"
                )

    # The book's CSS files: nothing in them may come from the network (fonts, @import).
    for css in sorted((html_dir / "_static").rglob("*.css")):
        text = css.read_text(encoding="utf-8", errors="replace")
        for match in CSS_REMOTE.finditer(text):
            problems.setdefault(css.relative_to(html_dir).as_posix(), []).append(
                f"fetches from the network: {short(match.group(0), 120)}"
            )

    to_open = []
    for page in pages:
        redirect = check_redirect(page, html_dir)
        if redirect is None:
            to_open.append(page)
        elif redirect:
            problems.setdefault(page.relative_to(html_dir).as_posix(), []).extend(
                redirect
            )

    targets = Targets()

    from check_widths import measure, width_problems

    start = time.monotonic()
    opened = asyncio.run(measure(chromium, to_open, args.timeout, dom=True))
    formulas = 0
    per_part: dict[str, list[int]] = {}  # part: [pages opened, formulas typeset]
    for page in to_open:
        name = page.relative_to(html_dir).as_posix()
        counts = per_part.setdefault(part_of(name), [0, 0])
        counts[0] += 1
        if "error" in opened[page]:
            problems.setdefault(name, []).append(
                f"Chromium could not render the page: {opened[page]['error']}"
            )
            continue
        count, found = check_page(page, opened[page]["dom"], html_dir, targets)
        formulas += count
        counts[1] += count
        if found:
            problems.setdefault(name, []).extend(found)
    width_lines, width_summary, width_failed = [], "", False
    if args.widths:  # the pages check_widths.py opens: all but the redirect stubs
        measured = [p for p in to_open if p.stat().st_size > 1000]
        width_lines, width_summary, width_failed = width_problems(
            opened, measured, html_dir, time.monotonic() - start
        )

    for part in sorted(toc_parts - set(per_part), key=part_key):
        problems.setdefault(part, []).append(
            "a part of _toc.yml with no page opened in the browser"
        )
    n_errors = sum(len(v) for v in problems.values())
    for name, found in sorted(problems.items()):
        shown: dict[str, int] = {}
        for problem in found:  # at most MAX_SHOWN problems of each kind per page
            kind = problem.split(":")[0]
            shown[kind] = shown.get(kind, 0) + 1
            if shown[kind] <= MAX_SHOWN:
                print(f"{name}: {problem}")
        for kind, n in shown.items():
            if n > MAX_SHOWN:
                print(f"{name}: ... and {n - MAX_SHOWN} more of: {kind}")
    print(
        "pages opened (formulas typeset) per part: "
        + ", ".join(
            f"{part} {n} ({f})"
            for part, (n, f) in sorted(per_part.items(), key=lambda kv: part_key(kv[0]))
        )
    )
    print(
        f"browser check: {len(pages)} pages, {len(to_open)} opened in Chromium, {formulas} formulas, "
        f"{n_errors} errors"
    )
    if args.widths:
        print("\n".join([*width_lines, width_summary]))
    return 1 if n_errors or width_failed else 0


if __name__ == "__main__":
    sys.exit(main())
