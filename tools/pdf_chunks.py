"""The single-page book cut into parts that Chromium prints one at a time (tools/build_pdf.py).

Chromium needed about 4 GB to lay out and typeset the whole 9 MB page and 8 GB to print it. Each
part here is the page's head and containers around a run of whole documents (a chapter, or some
of its sections; the contents and the introduction are the first part), at most about
``MAX_PART_BYTES`` of HTML, so that Chromium, printing one part at a time, stays within 2 GB.

What the cutting does to the HTML, as text (the page is Sphinx's regular output):

- every heading ``<h1>``..``<h5>`` gets a unique id ``pdf-hN``: the outline (bookmarks) and the
  contents link to headings, and the PDF gets a named destination for each;
- the printed contents (``#jb-print-toc``) link each entry to its heading, with an empty box of
  fixed width for its page number (filled in a second printing of the first part alone);
- a link to an element in another part becomes ``https://pdf.invalid/#id`` (Chromium writes it as
  a web link); tools/pdf_finish.py turns it back into a link to the destination ``id``;
- every element of a part that some link targets, and every heading, gets an invisible link at the
  start of its part, so that Chromium writes a named destination for it (it writes destinations
  only for targets of links in the same document).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

MAX_PART_BYTES = 1_000_000
INVALID = "https://pdf.invalid/#"
DOC = re.compile(r'<span id="document-([^"]+)"></span>')
HEADING = re.compile(r"<h([1-5])>(.*?)</h\1>", re.S)
ID = re.compile(r'\sid="([^"]+)"')
HREF = re.compile(r'href="#([^"]+)"')


@dataclass
class Part:
    """One part: its documents, its HTML, and the destinations it defines."""

    docs: list[str]
    html: str = ""
    ids: set[str] = field(default_factory=set)


def heading_title(inner: str) -> str:
    """A heading's plain text: no tags or header link; a formula as its TeX."""
    inner = re.sub(r'<a class="headerlink".*?</a>', "", inner, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", "", inner))
    text = re.sub(r"\\\((.*?)\\\)", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def number_headings(page: str) -> tuple[str, list[tuple[int, int, str, str]]]:
    """Give every heading an id; return the page and ``(position, tag level, id, title)``."""
    found = []
    out = []
    last = length = 0
    for n, match in enumerate(HEADING.finditer(page)):
        hid = f"pdf-h{n}"
        tag, inner = match.group(1), match.group(2)
        out.append(page[last : match.start()])
        length += match.start() - last
        found.append((length, int(tag), hid, heading_title(inner)))
        out.append(f'<h{tag} id="{hid}">{inner}</h{tag}>')
        length += len(out[-1])
        last = match.end()
    out.append(page[last:])
    return "".join(out), found


def outline_of(headings, article: int, first_doc: int) -> list[tuple[int, str, str]]:
    """``(level, title, id)`` of chapters, sections and subsections (levels 1-3).

    A heading ``<hN>`` is at level N - 1 (chapters and appendices are ``<h2>``); the contents and
    the introduction's title are level 1 and the introduction's own sections, before the first
    chapter, level 2.
    """
    outline = []
    for position, tag, hid, title in headings:
        if position < article and tag == 1:
            continue  # the printed title above the contents
        if tag == 1 or position < article:
            level = 1  # the introduction, and the contents
        elif position < first_doc:
            level = 2
        else:
            level = tag - 1
        if level <= 3 and title:
            outline.append((level, title, hid))
    return outline


def link_contents(page: str, headings) -> str:
    """The printed contents: each entry links its heading and gets a box for its page number."""
    start = page.index('<div id="jb-print-toc">')
    end = page.index("</nav>", start)
    doc_heading = {}
    for match in DOC.finditer(page):
        after = next((h for h in headings if h[0] > match.end()), None)
        if after is not None:
            doc_heading[match.group(1)] = after[2]

    def entry(match: re.Match) -> str:
        doc = html.unescape(match.group(2))
        hid = doc_heading.get(doc)
        if hid is None:
            raise RuntimeError(f"no heading for the contents entry {doc}")
        return (
            f'<a class="{match.group(1)} pdf-toc-link" href="#{hid}">'
            f'<span class="pdf-toc-title">{match.group(3)}</span>'
            f'<span class="pdf-toc-leader"></span>'
            f'<span class="pdf-toc-page" data-target="{hid}"></span></a>'
        )

    toc = re.sub(
        r'<a class="([^"]*)" href="#document-([^"]+)">(.*?)</a>', entry, page[start:end]
    )
    return page[:start] + toc + page[end:]


BLOCK = re.compile(r"<(/?)(section|div)\b[^>]*>")


def balanced(body: str) -> str:
    """``body`` with the ``<section>``/``<div>`` it closes but does not open opened before it.

    A run of documents that starts inside a chapter closes the chapter's containers at its end;
    without these openings the parser would close the article there and put what follows outside.
    """
    depth, missing = [], []
    for match in BLOCK.finditer(body):
        if not match.group(1):
            depth.append(match.group(2))
        elif depth:
            depth.pop()
        else:
            missing.append(match.group(2))
    return "".join(f"<{tag}>" for tag in reversed(missing)) + body


def cut(page: str) -> tuple[list[Part], list[tuple[int, str, str]]]:
    """The parts (the first holds the contents and the introduction) and the outline."""
    page, headings = number_headings(page)
    docs = [(m.start(), m.group(1)) for m in DOC.finditer(page)]
    if not docs:
        raise RuntimeError("no documents in the single-page book")
    outline = outline_of(
        headings, page.index('<article class="bd-article">'), docs[0][0]
    )
    page = link_contents(page, headings)
    docs = [(m.start(), m.group(1)) for m in DOC.finditer(page)]
    article = page.index('<article class="bd-article">')
    body_end = page.index("</article>")
    suffix = "</section>" + page[body_end:]
    hidden_toc = "<style>#jb-print-docs-body { display: none !important; }</style>"

    # Runs of whole documents, each part at most MAX_PART_BYTES (or one document): fewer parts,
    # fewer copies of the fonts (each part's PDF embeds its own). Chapters and appendices still
    # start a new page (print.css); a part starts a new page too.
    bounds = [(0, docs[0][0], ["(contents and introduction)"])]
    for i, (start, doc) in enumerate(docs):
        stop = docs[i + 1][0] if i + 1 < len(docs) else body_end
        begin, _, names = bounds[-1]
        if len(bounds) > 1 and stop - begin <= MAX_PART_BYTES:
            bounds[-1] = (begin, stop, [*names, doc])
        else:
            bounds.append((start, stop, [doc]))
    targets = set(HREF.findall(page)) | {h[2] for h in headings}
    head = page[:article].replace("</head>", hidden_toc + "</head>", 1)
    parts = []
    for n, (begin, stop, names) in enumerate(bounds):
        body = page[begin:stop]
        part = Part(names, ids=set(ID.findall(body)))

        def relink(match: re.Match, ids=part.ids) -> str:
            target = match.group(1)
            return match.group(0) if target in ids else f'href="{INVALID}{target}"'

        marks = "".join(f'<a href="#{a}"></a>' for a in sorted(part.ids & targets))
        marks = f'<div class="pdf-destinations">{marks}</div>'
        if n == 0:
            opened = body.index('<article class="bd-article">') + len(
                '<article class="bd-article">'
            )
            part.html = HREF.sub(relink, body[:opened] + marks + body[opened:]) + suffix
        else:
            part.html = head + '<article class="bd-article"><section class="pdf-part">'
            part.html += marks + HREF.sub(relink, balanced(body)) + suffix
        parts.append(part)
    return parts, outline


def numbers_only(first: str, pages: dict[str, int]) -> str:
    """The first part with its contents' page numbers filled in and nothing else shown."""
    first = re.sub(
        r'<span class="pdf-toc-page" data-target="([^"]+)"></span>',
        lambda m: (
            f'<span class="pdf-toc-page" data-target="{m.group(1)}">'
            f"{pages.get(m.group(1), '')}</span>"
        ),
        first,
    )
    return re.sub(
        r"<body([^>]*)>", r'<body\1 class="pdf-page-numbers-only">', first, count=1
    )
