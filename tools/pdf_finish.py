"""What tools/build_pdf.py does to Chromium's PDF after printing it (with pypdf, then pikepdf).

- :func:`destination_pages`: the page of every named destination (Chromium writes one for every
  target of a link in the book), for the contents' page numbers.
- :func:`finish`: puts the parts' pages together, writes their text compactly (tools/pdf_text.py:
  1.2 MB less in November 2026), writes the page numbers at their feet, lays
  the contents' numbers (printed by Chromium) over the contents pages, turns the links between parts into links
  to named destinations, adds the bookmarks (the PDF's outline: every chapter, section and
  subsection) and the document's title, opens the PDF with its bookmarks shown, and writes it
  with its small objects (links, pages, fonts' dictionaries, the outline) packed into compressed
  object streams (PDF 1.5; pikepdf, i.e. qpdf): 1.7 MB less on the 952-page book of
  November 2026, whose 3,654 links alone took 0.9 MB uncompressed.
"""

from __future__ import annotations

import io
import zlib
from pathlib import Path

import numpy as np
import pikepdf
from pdf_chunks import INVALID
from pdf_text import compact_text, font_widths
from PIL import Image
from pypdf import PageObject, PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    ByteStringObject,
    DecodedStreamObject,
    DictionaryObject,
    Fit,
    FloatObject,
    IndirectObject,
    NameObject,
    NullObject,
    NumberObject,
)


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


def tiny(annotation) -> bool:  # noqa: ANN001 - a pypdf dictionary
    """An annotation smaller than 2 x 2 points (one of the invisible destination links)."""
    x0, y0, x1, y1 = (float(v) for v in annotation["/Rect"])
    return abs(x1 - x0) < 2 and abs(y1 - y0) < 2


# The footer's font's resource name, unlike Chromium's /F1, /F2, ...
FOOTER_FONT = "OLFooter"


def footer_font() -> DictionaryObject:
    """Helvetica, a PDF standard font: nothing to embed."""
    return DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
            NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
        }
    )


def footer(number: int, total: int, width: float) -> bytes:
    """The operators that write "page / pages" centred at the foot of a page, grey, 7 pt."""
    text = f"{number} / {total}"
    size = 7.0
    widths = {" ": 278, "/": 278}  # Helvetica's widths in 1/1000 em; digits are 556
    x = (width - sum(widths.get(c, 556) for c in text) * size / 1000) / 2
    return (
        f"BT /{FOOTER_FONT} {size:g} Tf 0.333 g {x:.2f} 24 Td ({text}) Tj ET".encode()
    )


def rewrite_contents(
    writer: PdfWriter, page: PageObject, number: int, total: int, font: IndirectObject
) -> None:
    """Replace the page's content by its text compacted (:mod:`pdf_text`), kept in its own
    graphics state, then its footer; compressed at zlib's level 9."""
    resources = page["/Resources"]
    data = compact_text(page.get_contents().get_data(), font_widths(resources))
    data = b"q\n" + data + b"\nQ\n" + footer(number, total, float(page.mediabox.width))
    if "/Font" not in resources:
        resources[NameObject("/Font")] = DictionaryObject()
    resources["/Font"].get_object()[NameObject("/" + FOOTER_FONT)] = font
    stream = DecodedStreamObject()
    stream.set_data(data)
    page[NameObject("/Contents")] = writer._add_object(stream.flate_encode(level=9))


def palette_images(writer: PdfWriter) -> dict:
    """Store every RGB image with a palette of at most 256 colours (8-bit indices, Flate).

    Chromium writes a figure as 24-bit RGB pixels; matplotlib's figures have a few hundred
    colours, most of them the anti-aliased shades of a line. An image of at most 256 colours is
    stored exactly; one of more is reduced to 256 by median cut without dithering (lines stay
    solid): a few anti-aliased pixels at the edges of lines change (in the book's figures, at
    most 0.3 % of an image's pixels by more than 16 of 255 levels), and the figures take half the
    space. Returns the counts, the largest change of a channel and the largest share of an
    image's pixels changed by more than 16 levels.
    """
    seen: set[int] = set()
    stats = {"images": 0, "exact": 0, "max_channel_change": 0, "max_share_over_16": 0.0}
    for page in writer.pages:
        for image in page.images:
            ref = image.indirect_reference
            if ref is None or ref.idnum in seen:
                continue
            seen.add(ref.idnum)
            pixels = image.image
            xobject = ref.get_object()
            if pixels.mode != "RGB" or "/SMask" in xobject or "/Mask" in xobject:
                continue
            if pixels.getcolors(256) is not None:
                indexed = pixels.quantize(colors=256, method=Image.Quantize.MAXCOVERAGE)
            else:
                indexed = pixels.quantize(colors=256, dither=Image.Dither.NONE)
            change = np.abs(
                np.asarray(pixels, dtype=np.int16)
                - np.asarray(indexed.convert("RGB"), dtype=np.int16)
            ).max(axis=2)
            stats["images"] += 1
            stats["exact"] += int(change.max() == 0)
            stats["max_channel_change"] = max(
                stats["max_channel_change"], int(change.max())
            )
            stats["max_share_over_16"] = max(
                stats["max_share_over_16"], float((change > 16).mean())
            )
            palette = bytes(indexed.getpalette()[: 3 * (max(indexed.getdata()) + 1)])
            xobject._data = zlib.compress(indexed.tobytes(), 9)
            xobject[NameObject("/Filter")] = NameObject("/FlateDecode")
            xobject.pop("/DecodeParms", None)
            xobject[NameObject("/BitsPerComponent")] = NumberObject(8)
            xobject[NameObject("/ColorSpace")] = ArrayObject(
                [
                    NameObject("/Indexed"),
                    NameObject("/DeviceRGB"),
                    NumberObject(len(palette) // 3 - 1),
                    ByteStringObject(palette),
                ]
            )
    return stats


def finish(
    parts: list[Path],
    numbers: Path,
    out: Path,
    outline: list[tuple[int, str, str]],
    dests: dict[str, tuple[int, float]],
    metadata: dict[str, str],
) -> dict:
    """Write ``out``: the parts' pages in order, each with its page number at the foot, the
    contents' numbers laid over the first pages, links between parts, named destinations and the
    outline.

    ``outline`` holds ``(level, title, destination name)`` in the book's order (level 1: a
    chapter); a heading without a destination (one not shown in print) is bookmarked at the next
    heading's place.
    """
    writer = PdfWriter()
    for part in parts:
        for page in PdfReader(part).pages:
            writer.add_page(page)
    overlay = PdfReader(numbers).pages
    font = writer._add_object(footer_font())
    for i, page in enumerate(writer.pages):
        if i < len(overlay):
            page.merge_page(overlay[i])
        rewrite_contents(writer, page, i + 1, len(writer.pages), font)
    images = palette_images(writer)

    # Named destinations, and the links between parts (written as web links to INVALID#name).
    table = DictionaryObject()
    for name, (index, top) in dests.items():
        table[NameObject("/" + name)] = ArrayObject(
            [
                writer.pages[index].indirect_reference,
                NameObject("/XYZ"),
                NullObject(),
                FloatObject(top),
                NullObject(),
            ]
        )
    writer._root_object[NameObject("/Dests")] = writer._add_object(table)
    relinked = broken = 0
    for page in writer.pages:
        if "/Annots" not in page:
            continue
        # The invisible links that made Chromium write the destinations are no use in the PDF.
        kept = ArrayObject(ref for ref in page["/Annots"] if not tiny(ref.get_object()))
        page[NameObject("/Annots")] = kept
        for ref in kept:
            annot = ref.get_object()
            uri = annot.get("/A", {}).get("/URI", "")
            if isinstance(uri, str) and uri.startswith(INVALID):
                name = uri[len(INVALID) :]
                if name in dests:
                    del annot["/A"]
                    annot[NameObject("/Dest")] = NameObject("/" + name)
                    relinked += 1
                else:
                    broken += 1
    if broken:
        raise RuntimeError(f"{broken} links between parts lead to no destination")

    parents: dict[int, object] = {}
    ahead = None
    # A heading without a destination (not shown in print) takes the next one's place.
    for _, _, name in reversed(outline):
        ahead = dests.get(name, ahead)
        dests.setdefault(name, ahead)
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
    written = io.BytesIO()
    writer.write(written)
    with pikepdf.open(written) as pdf:
        pdf.save(
            out,
            object_stream_mode=pikepdf.ObjectStreamMode.generate,
            compress_streams=True,
            recompress_flate=False,
        )
    return {
        "numbered_pages": len(overlay),
        "bookmarks": len(outline),
        "links_between_parts": relinked,
        "images": images,
    }
