"""tools/pdf_text.py: the compacted text shows the same glyphs at the same places.

A small interpreter of the text operators Chromium writes (and of ``TJ``) places every glyph;
the compacted stream must place the same glyphs, in the same order, each within
``TOLERANCE``/1000 em of where the original put it.
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from pdf_text import TOLERANCE, compact_text  # noqa: E402

WIDTHS = {0x03: 278.0, 0x44: 556.0, 0x48: 556.0, 0x4C: 222.0, 0x57: 278.0}
FONTS = {"F5": (2, WIDTHS, 1000.0, 1 / 1000), "F9": (1, {0x41: 600.0}, 0.0, 1 / 1000)}


def place(content: bytes) -> list[tuple[str, int, float, float]]:
    """(font, code, x, y) of every glyph shown, in order."""
    out = []
    tokens = re.findall(rb"\[|\]|<[0-9A-Fa-f]*>|/\S+|[-.\d]+|[A-Za-z*]+", content)
    stack: list[bytes] = []
    font, size, line, pos = None, 0.0, [0.0, 0.0], [0.0, 0.0]

    def show(hexs: bytes) -> None:
        step = 2 * FONTS[font][0]
        for i in range(0, len(hexs), step):
            code = int(hexs[i : i + step], 16)
            out.append((font, code, round(pos[0], 9), pos[1]))
            width = FONTS[font][1].get(code, FONTS[font][2])
            pos[0] += width * FONTS[font][3] * size

    for tok in tokens:
        if tok == b"BT":
            line, pos = [0.0, 0.0], [0.0, 0.0]
        elif tok == b"Tf":
            font, size = stack[-2][1:].decode(), float(stack[-1])
            stack.clear()
        elif tok == b"Tm":
            line = [float(stack[-2]), float(stack[-1])]
            pos = list(line)
            stack.clear()
        elif tok == b"Td":
            line = [line[0] + float(stack[-2]), line[1] + float(stack[-1])]
            pos = list(line)
            stack.clear()
        elif tok == b"Tj":
            show(stack[-1][1:-1])
            stack.clear()
        elif tok == b"TJ":
            items = stack[stack.index(b"[") + 1 : stack.index(b"]")]
            for item in items:
                if item.startswith(b"<"):
                    show(item[1:-1])
                else:
                    pos[0] -= float(item) / 1000 * size
            stack.clear()
        elif tok in (b"ET", b"EMC", b"BDC", b"rg", b"q", b"Q", b"cm"):
            stack.clear()
        else:
            stack.append(tok)
    return out


def chromium_like(seed: int) -> bytes:
    """Text objects as Chromium writes them: a Tm, then one Td + Tj per glyph, distances off
    the advances by Chromium's rounding; ligature spans, colour changes and font changes."""
    rng = random.Random(seed)
    lines = [b"q", b".24 0 0 -.24 0 841.92 cm"]
    for _ in range(6):
        lines += [
            b"BT",
            b"/F5 13.33 Tf",
            f"1 0 0 -1 {rng.uniform(10, 90):.4f} 700 Tm".encode(),
        ]
        lines.append(b"<0044> Tj")
        previous = 0x44
        drift = rng.choice(
            [0.0012, -0.0009, 0.011, -0.008]
        )  # px per glyph, accumulating
        for _ in range(rng.randint(5, 60)):
            code = rng.choice(list(WIDTHS))
            dx = WIDTHS[previous] / 1000 * 13.33 + rng.choice([drift] * 5 + [0.31])
            kind = rng.random()
            if kind < 0.05:
                lines += [b"/Span<</ActualText (fi) >> BDC", f"{dx:.7f} 0 Td".encode()]
                lines += [f"<{code:04X}> Tj".encode(), b"EMC"]
            elif kind < 0.1:
                lines += [b".1 .2 .3 rg", f"{dx:.7f} 0 Td <{code:04X}> Tj".encode()]
            elif kind < 0.13:
                lines += [
                    b"/F9 9.33 Tf",
                    f"{dx:.7f} 0 Td <41> Tj".encode(),
                    b"/F5 13.33 Tf",
                ]
                code = None
            elif kind < 0.15:
                lines.append(f"<{code:04X}> Tj".encode())
            else:
                lines.append(f"{dx:.7f} 0 Td <{code:04X}> Tj".encode())
            previous = code if code is not None else 0x41
            if code is None:
                previous = 0x44
                lines.append(b"0 0 Td <0044> Tj")
        lines.append(b"ET")
    lines.append(b"Q")
    return b"\n".join(lines)


@pytest.mark.parametrize("seed", range(20))
def test_same_glyphs_same_places(seed):
    original = chromium_like(seed)
    compact = compact_text(original, FONTS)
    before, after = place(original), place(compact)
    assert [g[:2] for g in before] == [g[:2] for g in after]
    for (font, _, x0, y0), (_, _, x1, y1) in zip(before, after, strict=True):
        size = 13.33 if font == "F5" else 9.33
        assert y0 == y1
        assert abs(x0 - x1) < TOLERANCE / 1000 * size + 1e-9
    assert len(compact) < 0.7 * len(original)


def test_copied_whole_when_spacing_is_set():
    content = b"BT\n/F5 10 Tf\n2 Tc\n<0044> Tj\n5.56 0 Td <0048> Tj\nET"
    assert compact_text(content, FONTS) == content


def test_unknown_operator_leaves_its_text_object():
    content = (
        b"BT\n/F5 10 Tf\n<0044> Tj\n5.56 0 Td <0048> Tj\n3 Tr\nET\nBT\n<0044> Tj\nET"
    )
    assert compact_text(content, FONTS) == content


def test_a_planted_error_is_caught():
    """The check above is not vacuous: a compaction that drops the kerning numbers moves
    glyphs by more than the tolerance."""
    original = chromium_like(3)
    compact = compact_text(original, FONTS)
    dropped = re.sub(rb"(?<=> )-?[\d.]+ (?=<)", b"", compact)
    assert dropped != compact
    moved = max(
        abs(a[2] - b[2]) for a, b in zip(place(original), place(dropped), strict=True)
    )
    assert moved > TOLERANCE / 1000 * 13.33
