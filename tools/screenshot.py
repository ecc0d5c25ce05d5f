"""Take the README's picture of a page: a chapter page of the built book, with formulas and a figure.

Usage: .venv/bin/python tools/screenshot.py [--page book/01_perceptron/02_pla.html]
           [--anchor a-correction-can-break-a-correct-example] [--out docs/screenshot.png]

Headless Chromium (offline) opens the page of _build/html (run `make book` first), waits for MathJax,
scrolls the first figure after the heading `--anchor` to the top of the window (the text and
formulas after it below), and saves the window (1280 x 860) as a PNG reduced to 256
colours (kept under 300 KB).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_pdf import ROOT, WAIT_JS, devtools_page, find_chromium  # noqa: E402

MAX_BYTES = 300_000


async def shoot(
    chromium: str, page: Path, anchor: str, width: int, height: int
) -> bytes:
    async with devtools_page(chromium, "screenshot_", "--hide-scrollbars") as (
        cdp,
        session,
    ):
        await cdp.send(
            "Emulation.setDeviceMetricsOverride",
            session,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        await cdp.send("Page.enable", session)
        await cdp.send("Page.navigate", session, url=page.as_uri())
        result = await cdp.send(
            "Runtime.evaluate",
            session,
            expression=WAIT_JS,
            awaitPromise=True,
            returnByValue=True,
        )
        found = json.loads(result["result"]["value"])
        if found["errors"] or found["typeset"] < found["math"]:
            raise RuntimeError(f"MathJax did not typeset the page: {found}")
        # the first figure after the heading at the top of the window, the text and formulas
        # that follow it below
        scroll = f"""(() => {{
            const start = document.getElementById({json.dumps(anchor)});
            const img = [...document.querySelectorAll('img')].find(
                i => start.compareDocumentPosition(i) & Node.DOCUMENT_POSITION_FOLLOWING);
            (img || start).scrollIntoView({{block: 'start'}});
            window.scrollBy(0, -64);
            return new Promise(r => setTimeout(r, 500));
        }})()"""
        await cdp.send(
            "Runtime.evaluate", session, expression=scroll, awaitPromise=True
        )
        shot = await cdp.send("Page.captureScreenshot", session, format="png")
        return base64.b64decode(shot["data"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", default="book/01_perceptron/02_pla.html")
    parser.add_argument("--anchor", default="a-correction-can-break-a-correct-example")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshot.png")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=860)
    args = parser.parse_args()
    page = ROOT / "_build" / "html" / args.page
    if not page.is_file():
        sys.exit(f"screenshot: no {page}: run `make book` first")
    png = asyncio.run(
        shoot(find_chromium(), page, args.anchor, args.width, args.height)
    )

    from PIL import Image

    image = (
        Image.open(io.BytesIO(png))
        .convert("RGB")
        .quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    )
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    if buffer.tell() > MAX_BYTES:
        sys.exit(
            f"screenshot: {buffer.tell()} bytes, more than {MAX_BYTES}: choose a smaller window"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(buffer.getvalue())
    print(
        f"screenshot: {args.out}, {buffer.tell() // 1000} KB, {args.width} x {args.height}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
