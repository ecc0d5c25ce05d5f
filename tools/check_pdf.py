"""Check the book's PDF (tools/build_pdf.py, `make pdf`): complete, typeset, and readable as pictures.

Usage: .venv/bin/python tools/check_pdf.py [_build/pdf/online-learning-executably.pdf]

With poppler's pdfinfo, pdftotext and pdftoppm (Debian's poppler-utils; `make poppler`):

- page count: at least --min-pages, and at least one page per chapter and appendix;
- every title of the book's table of contents (read from the single-page HTML the PDF was printed
  from: every chapter, section, appendix and API page) is in the PDF's text after the contents,
  and every chapter and appendix (each starts a new page, _static/print.css) heads a page;
- no raw TeX: `\\frac`, `\\(`, `\\)`, `\\[`, `\\]`, `$$`, `\\begin{` and `\\mathbf` may appear only as
  often as in the book's code and program outputs (where they are code, not formulas);
- Chinese text (the glossary's terms) printed with a Chinese font: one of the fonts fontconfig
  knows for Chinese (`fc-list :lang=zh`) is embedded in the PDF; otherwise the characters are boxes;
- pictures: the first page, the first page of every chapter and the last page are rendered to PNG
  in _build/pdf/pages/ (look at them) and none is blank;
- the contents have page numbers, and each is right: the page a chapter's or section's entry
  names starts with (or holds) that title; the PDF has a bookmark for every title of the contents;
- the print layout (_build/pdf/build.json, written by tools/build_pdf.py): no block of the book
  wider than the text column; no figure whose palette (tools/pdf_finish.py) changes more than 1 %
  of its pixels by more than 16 levels; the PDF at most --max-mb megabytes (15).

Prints one line per problem and a summary line (pages, size, titles); exits 1 on any problem.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parent.parent
PDF = ROOT / "_build" / "pdf" / "online-learning-executably.pdf"
SINGLE_PAGE = ROOT / "_build" / "singlehtml" / "online-learning-executably.html"
RAW_TEX = ["\\frac", "\\(", "\\)", "\\[", "\\]", "$$", "\\begin{", "\\mathbf"]


CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        sys.exit(
            f"check_pdf: {tool} not found: install Debian's poppler-utils (`make pdf-tools`)"
        )
    return path


def chinese_font_problem(pdf: Path, text: str) -> str | None:
    """None if the PDF has no Chinese text or embeds a Chinese font; else what is wrong."""
    if not CJK.search(text):
        return None
    fc_list = shutil.which("fc-list")
    families = (
        subprocess.run(
            [fc_list, ":lang=zh", "family"], capture_output=True, text=True
        ).stdout
        if fc_list
        else ""
    )
    names = {
        re.sub(r"[^a-z0-9]", "", name.lower())
        for line in families.splitlines()
        for name in line.split(",")
    }
    names = {n for n in names if n}
    if not names:
        return (
            "Chinese text, but no font with Chinese glyphs on this machine: it prints as boxes "
            "(install fonts-wqy-microhei: `make pdf-tools`, then `make pdf`)"
        )
    fonts = subprocess.run(
        [need("pdffonts"), str(pdf)], capture_output=True, text=True, check=True
    ).stdout
    embedded = {
        re.sub(r"[^a-z0-9]", "", line.split()[0].split("+")[-1].lower())
        for line in fonts.splitlines()[2:]
        if line.strip()
    }
    if not any(
        name in font or font in name
        for name in names
        for font in embedded
        if font and font != "none"
    ):
        return f"Chinese text, but none of the Chinese fonts ({', '.join(sorted(names))}) is in the PDF: boxes"
    return None


def norm(text: str) -> str:
    """Whitespace collapsed; ligatures and soft hyphens as the PDF's text layer may give them."""
    text = text.replace("\u00ad", "").replace("\ufb01", "fi").replace("\ufb02", "fl")
    text = re.sub(r"(?<=\w)-\s+(?=\w)", "-", text)  # a word hyphenated at a line break
    # `code` : ... gets a space before the colon
    text = re.sub(r"\s+([:;,.)])", r"\1", text)
    text = re.sub(r"\(\s+", "(", text)
    return re.sub(r"\s+", " ", text).strip()


def toc_titles(single_page: Path) -> list[tuple[int, str]]:
    """(level, title) of every document in the printed table of contents; level 1: chapter/appendix."""
    soup = BeautifulSoup(single_page.read_text(encoding="utf-8"), "html.parser")
    titles = []
    for item in soup.select("#jb-print-toc li"):
        level = next(
            (
                int(c[len("toctree-l") :])
                for c in item.get("class", [])
                if c.startswith("toctree-l")
            ),
            0,
        )
        link = item.find("a", recursive=False)
        if link is not None and level:
            titles.append((level, norm(link.get_text())))
    return titles


def code_text(single_page: Path) -> str:
    """The text of the book's code and program outputs, where TeX may be code rather than a formula."""
    soup = BeautifulSoup(single_page.read_text(encoding="utf-8"), "html.parser")
    return "\n".join(tag.get_text() for tag in soup.find_all(["pre", "code"]))


def page_texts(pdf: Path) -> list[str]:
    out = subprocess.run(
        [need("pdftotext"), "-enc", "UTF-8", str(pdf), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    pages = out.split("\f")
    return pages[:-1] if pages and not pages[-1].strip() else pages


def ink(png: Path) -> float:
    """Fraction of the page's pixels that are not near-white."""
    from PIL import Image

    with Image.open(png) as image:
        gray = image.convert("L")
        histogram = gray.histogram()
    return sum(histogram[:200]) / max(1, sum(histogram))


def contents_problems(
    pdf: Path, pages: list[str], titles: list[tuple[int, str]]
) -> list[str]:
    """Every title of the contents has a page number that points at it, and a bookmark."""
    from pypdf import PdfReader

    problems = []
    # The contents' lines as laid out: a title (wrapped over lines or not), then its page number.
    layout = subprocess.run(
        [need("pdftotext"), "-layout", "-enc", "UTF-8", "-l", "12", str(pdf), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    numbered: dict[str, int] = {}
    pending = ""
    for line in layout.splitlines():
        found = re.match(r"^(.*?)\s+(\d+)\s*$", line)
        if found is None:
            pending = (pending + " " + line.strip()).strip()
            continue
        numbered[norm(pending + " " + found.group(1))] = int(found.group(2))
        pending = ""
    for _level, title in titles:
        page = next((n for text, n in numbered.items() if text.endswith(title)), None)
        if page is None:
            problems.append(f"no page number for {title!r} in the contents")
        elif not 1 <= page <= len(pages) or title not in pages[page - 1]:
            problems.append(
                f"the contents send {title!r} to page {page}, which does not hold it"
            )
    marks = []

    def walk(items) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item)
            else:
                marks.append(norm(item.title))

    walk(PdfReader(pdf).outline)
    missing = [
        t for _, t in titles if not any(t.endswith(m) or m.endswith(t) for m in marks)
    ]
    if missing:
        problems.append(f"{len(missing)} titles have no bookmark: {missing[:3]}")
    return problems


def layout_problems(pdf: Path, max_mb: float) -> list[str]:
    """What tools/build_pdf.py measured in the print layout, and the file's size."""
    import json

    problems = []
    report = pdf.parent / "build.json"
    if not report.is_file():
        return [f"no {report}: build the PDF with tools/build_pdf.py (make pdf)"]
    built = json.loads(report.read_text(encoding="utf-8"))
    layout = built["layout"]
    for item in layout["over"]:
        problems.append(
            f"wider than the {layout['column']} px column in print: {item['tag']} "
            f"{item['width']} px, {item['where']}"
        )
    if layout["n_over"] > len(layout["over"]):
        problems.append(f"... {layout['n_over']} blocks wider than the column in all")
    images = built.get("images")
    if images is None:
        problems.append(
            "build.json records no palette images: rebuild the PDF (make pdf)"
        )
    elif images["max_share_over_16"] > 0.01:
        problems.append(
            f"a figure's palette changes {images['max_share_over_16']:.1%} of its pixels "
            "by more than 16 levels (at most 1 %)"
        )
    size = pdf.stat().st_size / 1e6
    if size > max_mb:
        problems.append(f"{size:.1f} MB: more than {max_mb:g} MB")
    print(
        f"PDF build: {built['pages']} pages, {built['size_mb']} MB, {built['bookmarks']} bookmarks; "
        f"printing {built['print_s']:.0f} s (single-page build {built['single_page_build_s']:.0f} s), "
        f"Chromium's peak memory {built['peak_memory_mb']} MB; "
        f"{len(layout['changed'])} formulas and tables set smaller to fit"
    )
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdf", nargs="?", type=Path, default=PDF)
    parser.add_argument(
        "--html", type=Path, default=SINGLE_PAGE, help="the single-page HTML printed"
    )
    parser.add_argument("--min-pages", type=int, default=100)
    parser.add_argument("--max-mb", type=float, default=15.0)
    parser.add_argument(
        "--pictures", type=Path, default=PDF.parent / "pages", help="where the PNGs go"
    )
    args = parser.parse_args()
    if not args.pdf.is_file():
        sys.exit(f"check_pdf: no {args.pdf}: run `make pdf` first")
    if not args.html.is_file():
        sys.exit(f"check_pdf: no {args.html}: run `make pdf` first")
    problems: list[str] = []

    info = subprocess.run(
        [need("pdfinfo"), str(args.pdf)], capture_output=True, text=True, check=True
    ).stdout
    n_pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    pages = [norm(p) for p in page_texts(args.pdf)]
    if len(pages) != n_pages:
        problems.append(f"pdftotext gave {len(pages)} pages, pdfinfo says {n_pages}")

    titles = toc_titles(args.html)
    chapters = [t for level, t in titles if level == 1]
    if not chapters:
        problems.append("no table of contents in the single-page HTML (#jb-print-toc)")
    if n_pages < max(args.min_pages, len(chapters)):
        problems.append(
            f"{n_pages} pages: fewer than {max(args.min_pages, len(chapters))}"
        )

    # The contents are the first pages; everything after the page that lists the last title is the book.
    last_toc = max(
        (i for i, p in enumerate(pages[:20]) if chapters and chapters[-1] in p),
        default=0,
    )
    body = pages[last_toc + 1 :] if last_toc + 1 < len(pages) else pages
    body_text = " ".join(body)
    chapter_pages: list[int] = []
    for level, title in titles:
        if title not in body_text:
            problems.append(f"title missing from the PDF's text: {title!r}")
        elif level == 1:
            heads = [
                i for i, p in enumerate(pages) if i > last_toc and p.startswith(title)
            ]
            if not heads:
                problems.append(f"chapter or appendix does not start a page: {title!r}")
            else:
                chapter_pages.append(heads[0])

    # Raw TeX: no more often in the PDF than in the book's code and outputs.
    code = code_text(args.html)
    whole = "\n".join(pages)
    for pattern in RAW_TEX:
        in_pdf, in_code = whole.count(pattern), code.count(pattern)
        if in_pdf > in_code:
            where = next(i for i, p in enumerate(pages) if pattern in p)
            at = pages[where].index(pattern)
            problems.append(
                f"raw TeX {pattern!r}: {in_pdf} times in the PDF, {in_code} in code; first on page "
                f"{where + 1}: …{pages[where][max(0, at - 40) : at + 40]}…"
            )

    problem = chinese_font_problem(args.pdf, "\n".join(pages))
    if problem:
        problems.append(problem)

    # Pictures to look at, none blank.
    shown = sorted({1, n_pages, *[i + 1 for i in chapter_pages]})
    args.pictures.mkdir(parents=True, exist_ok=True)
    for old in args.pictures.glob("page-*.png"):
        old.unlink()
    for number in shown:
        stem = args.pictures / f"page-{number:04d}"
        subprocess.run(
            [
                need("pdftoppm"),
                "-r",
                "60",
                "-png",
                "-singlefile",
                "-f",
                str(number),
                "-l",
                str(number),
                str(args.pdf),
                str(stem),
            ],
            check=True,
        )
        fraction = ink(stem.with_suffix(".png"))
        if fraction < 0.002:
            problems.append(
                f"page {number} is blank ({fraction:.2%} ink): {stem.with_suffix('.png')}"
            )

    problems += contents_problems(args.pdf, pages, titles)
    problems += layout_problems(args.pdf, args.max_mb)

    for problem in problems:
        print(f"{args.pdf.name}: {problem}")
    size = args.pdf.stat().st_size / 1e6
    print(
        f"PDF check: {n_pages} pages, {size:.1f} MB, {len(titles)} titles ({len(chapters)} chapters and "
        f"appendices, each starting a page), {len(shown)} pages rendered to {args.pictures}, "
        f"{len(problems)} problems"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
