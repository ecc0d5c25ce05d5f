"""Chromium's text operators rewritten in the compact form PDF allows (for tools/pdf_finish.py).

Chromium writes every glyph of a line as an operator of its own, moving the line's origin by the
distance to the next glyph: ``5.6160126 0 Td <0059> Tj``, 25 bytes for one character, which made
up most of the book's PDF. Where that distance is the glyph's own advance (its width in the font
times the font size), the glyphs of a run can share one string, ``[<00440059...>] TJ``, with a
number only where the distance differs from the advance (kerning). :func:`compact_text` does
that, and only that: every glyph stays where Chromium put it, to within 1/1000 em (Chromium's
distances are its advances rounded to a fraction of a pixel, 0.05 to 0.15 thousandths of an em
off the font's: a number is written only where the drift since the last one reaches 1/1000 em,
so it never accumulates along a line), and the glyphs, fonts, colours and marked
content (the ``ActualText`` of ligatures, which copying text uses) are unchanged.

Only what is understood is rewritten: a text object (``BT`` ... ``ET``) with an operator that is
not one of Chromium's usual ones, or a font whose widths are not known, is copied as it is; a
content stream that sets the character or word spacing, the horizontal scaling or the rise
(``Tc``, ``Tw``, ``Tz``, ``Ts``), which change the advances, is copied whole.
"""

from __future__ import annotations

import re

# One line of a text object, as Chromium writes them.
_FONT = re.compile(rb"^/(\S+) ([-.\d]+) Tf$")
_MATRIX = re.compile(rb"^(?:[-.\d]+ ){6}Tm$")
_SHOW = re.compile(rb"^<([0-9A-Fa-f]*)> Tj$")
_MOVE_SHOW = re.compile(rb"^([-.\d]+) ([-.\d]+) Td <([0-9A-Fa-f]*)> Tj$")
_MOVE = re.compile(rb"^([-.\d]+) ([-.\d]+) Td$")
_SPACING = re.compile(rb"(?:^|\s)(?:Tc|Tw|Tz|Ts)(?:\s|$)")
# The largest distance of a glyph from where Chromium put it, in 1/1000 em (the unit of a TJ
# number): 0.013 CSS px at the body text's 13.33 px, a sixth of a 1200-dpi printer's dot.
TOLERANCE = 1.0


def _number(value: float, digits: int) -> bytes:
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return (text if text not in ("", "-0") else "0").encode()


class _Run:
    """The glyphs shown so far from one origin, as the elements of a ``TJ`` array."""

    def __init__(self, font: tuple[int, dict, float, float], size: float, text: bytes):
        self.code_bytes, self.widths, self.default, self.scale = font
        self.size = size
        self.parts: list[bytes] = []
        self.at = 0.0  # where the next glyph goes, from the origin, in text space
        self.add(text)

    def advance(self, text: bytes) -> float:
        step = 2 * self.code_bytes
        return (
            sum(
                self.widths.get(int(text[i : i + step], 16), self.default)
                for i in range(0, len(text), step)
            )
            * self.scale
            * self.size
        )

    def add(self, text: bytes) -> None:
        if self.parts and self.parts[-1].startswith(b"<"):
            self.parts[-1] = self.parts[-1][:-1] + text + b">"
        else:
            self.parts.append(b"<" + text + b">")
        self.at += self.advance(text)

    def move_to(self, target: float) -> None:
        """Place the next glyph at ``target`` (from the origin), to within 1/1000 em: a ``TJ``
        number when the glyph would otherwise be further than that from its place."""
        units = (self.at - target) / (self.scale * self.size)
        if abs(units) >= TOLERANCE:
            units = round(units, 1)
            self.parts.append(_number(units, 1))
            self.at -= units * self.scale * self.size

    def emit(self) -> bytes:
        if len(self.parts) == 1:
            return self.parts[0] + b" Tj"
        return b"[" + b" ".join(self.parts) + b"] TJ"


def _text_object(lines: list[bytes], fonts: dict) -> list[bytes] | None:
    """The lines of one ``BT`` ... ``ET`` object, compacted; None if it holds anything else.

    A run starts only where the text position is the line's origin (just after ``Td`` or
    ``Tm``), so that its glyphs' places can be measured from that origin.
    """
    out: list[bytes] = []
    font = size = None
    run: _Run | None = None
    run_origin = 0.0  # the original line origin's distance from the run's origin
    pending = 0.0  # the original line origin's distance from the one written
    at_origin = True  # the text position is the written line origin

    def end_run() -> None:
        nonlocal run, pending, at_origin
        if run is not None:
            out.append(run.emit())
            pending, run, at_origin = run_origin, None, False

    for line in lines:
        if m := _MOVE_SHOW.match(line):
            dx, dy, text = float(m[1]), float(m[2]), m[3]
            if run is not None and dy == 0 and len(text) % (2 * run.code_bytes) == 0:
                run_origin += dx
                run.move_to(run_origin)
                run.add(text)
                continue
            end_run()
            out.append(_number(dx + pending, 5) + b" " + m[2] + b" Td")
            pending, at_origin = 0.0, True
            line = b"<" + text + b"> Tj"
        if m := _SHOW.match(line):
            if run is not None and len(m[1]) % (2 * run.code_bytes) == 0:
                run.add(m[1])
                continue
            end_run()
            if at_origin and font in fonts and len(m[1]) % (2 * fonts[font][0]) == 0:
                run, run_origin = _Run(fonts[font], size, m[1]), 0.0
            else:
                out.append(line)
                at_origin = False
            continue
        end_run()
        if m := _MOVE.match(line):
            out.append(_number(float(m[1]) + pending, 5) + b" " + m[2] + b" Td")
            pending, at_origin = 0.0, True
        elif m := _FONT.match(line):
            font, size = m[1].decode(), float(m[2])
            out.append(line)
        elif _MATRIX.match(line):
            pending, at_origin = 0.0, True
            out.append(line)
        elif line.endswith((b" BDC", b" rg", b" RG", b" g", b" G")) or line == b"EMC":
            out.append(line)
        else:
            return None
    end_run()
    return out


def compact_text(content: bytes, fonts: dict) -> bytes:
    """``content`` with the glyph runs of its text objects written as ``TJ`` arrays.

    ``fonts`` maps a font's resource name (without the slash) to ``(bytes per code, {code:
    width}, default width, scale)``: the advance of a code is its width times ``scale`` times the
    font size.
    """
    if _SPACING.search(content):
        return content
    lines = content.split(b"\n")
    out: list[bytes] = []
    i = 0
    while i < len(lines):
        if lines[i] != b"BT":
            out.append(lines[i])
            i += 1
            continue
        end = lines.index(b"ET", i)
        body = _text_object(lines[i + 1 : end], fonts)
        out.append(b"BT")
        out.extend(lines[i + 1 : end] if body is None else body)
        out.append(b"ET")
        i = end + 1
    return b"\n".join(out)


def font_widths(resources) -> dict:  # noqa: ANN001 - a pypdf dictionary
    """The argument ``fonts`` of :func:`compact_text` for a page's resources: its Type 0 fonts
    with the Identity-H encoding (two-byte codes, widths from the descendant's ``/W``) and its
    simple fonts with ``/Widths`` (one-byte codes; Type 3 fonts scaled by their ``/FontMatrix``).
    """
    out = {}
    for name, ref in (resources.get("/Font") or {}).items():
        font = ref.get_object()
        subtype = font.get("/Subtype")
        if subtype == "/Type0" and font.get("/Encoding") == "/Identity-H":
            cid = font["/DescendantFonts"][0].get_object()
            widths: dict[int, float] = {}
            w = list(cid.get("/W", []))
            i = 0
            while i < len(w):
                first = int(w[i])
                if isinstance(w[i + 1].get_object(), list):
                    for k, value in enumerate(w[i + 1].get_object()):
                        widths[first + k] = float(value)
                    i += 2
                else:
                    for code in range(first, int(w[i + 1]) + 1):
                        widths[code] = float(w[i + 2])
                    i += 3
            out[name.lstrip("/")] = (2, widths, float(cid.get("/DW", 1000)), 1 / 1000)
        elif "/Widths" in font and "/FirstChar" in font:
            first = int(font["/FirstChar"])
            widths = {first + k: float(v) for k, v in enumerate(font["/Widths"])}
            scale = float(font["/FontMatrix"][0]) if subtype == "/Type3" else 1 / 1000
            out[name.lstrip("/")] = (1, widths, 0.0, scale)
    return out
