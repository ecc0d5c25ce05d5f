"""What tools/build_pdf.py does to Chromium's PDF after printing it (with pypdf).

- :func:`destination_pages`: the page of every named destination (Chromium writes one for every
  target of a link in the book), for the contents' page numbers.
- :func:`finish`: lays the printed page numbers over the contents pages, adds the bookmarks (the
  PDF's outline: every chapter, section and subsection) and the document's title, opens the PDF
  with its bookmarks shown, and writes it.
"""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader, PdfWriter
from pypdf.generic import Fit


def destination_pages(pdf: Path) -> dict[str, tuple[int, float]]:
    """``{name: (page index from 0, top of the destination in PDF points)}``."""
    reader = PdfReader(pdf)
    out = {}
    for name, dest in reader.named_destinations.items():
        top = dest.get("/Top")
        out[name.lstrip("/")] = (
            reader.get_destination_page_number(dest),
            float(top) if top is not None else 0.0,
        )
    return out


def finish(
    body: Path,
    numbers: Path,
    out: Path,
    outline: list[tuple[int, str, str]],
    dests: dict[str, tuple[int, float]],
    metadata: dict[str, str],
) -> dict:
    """Write ``out``: ``body`` with ``numbers``'s pages laid over its first pages, and the outline.

    ``outline`` holds ``(level, title, destination name)`` in the book's order (level 1: a
    chapter); an entry whose destination is missing is an error (its heading would have no page).
    """
    missing = [title for _, title, name in outline if name not in dests]
    if missing:
        raise RuntimeError(
            f"no destination in the PDF for {len(missing)} headings: {missing[:5]}"
        )
    writer = PdfWriter(clone_from=PdfReader(body))
    overlay = PdfReader(numbers)
    if len(overlay.pages) > len(writer.pages):
        raise RuntimeError("the page numbers' printing has more pages than the book")
    for page, numbers_page in zip(writer.pages, overlay.pages, strict=False):
        page.merge_page(numbers_page)
    parents: dict[int, object] = {}
    for level, title, name in outline:
        page, top = dests[name]
        parents[level] = writer.add_outline_item(
            title, page, parent=parents.get(level - 1), fit=Fit.xyz(top=top)
        )
        for deeper in [lv for lv in parents if lv > level]:
            del parents[deeper]
    writer.page_mode = "/UseOutlines"
    writer.add_metadata({f"/{key}": value for key, value in metadata.items()})
    writer.compress_identical_objects(remove_duplicates=True, remove_unreferenced=True)
    with out.open("wb") as handle:
        writer.write(handle)
    return {"numbered_pages": len(overlay.pages), "bookmarks": len(outline)}
