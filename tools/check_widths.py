"""Width and legibility check of the built book: every output block fits the column, every figure's
text is legible, at a 1,280 px wide window.

Usage: .venv/bin/python tools/check_widths.py [_build/html] [--page book/06_.../01_x.html ...]
       (run by `make test` after the browser check)

One headless, offline Chromium (the flags of tools/check_pages.py), driven through the DevTools
protocol as in tools/build_pdf.py, opens every page of the build (the pages check_pages.py opens)
in sequence in a 1280 x 900 window, waits for MathJax and the images, opens every dropdown, and
measures in the page:

- overflow: a text output (``div.cell_output pre``, ``div.output pre``) whose ``scrollWidth``
  exceeds its ``clientWidth`` (the reader has to scroll it), and a table (in an output or in the
  text) or an image wider than the room its container gives it (the smallest content width of
  its block ancestors), by more than 1 px;
- a wrapped table: _static/output-width.css wraps a text output's long lines, which is fine for
  a sentence and not for a table. A line longer than the characters that fit, with a column (a
  field starting, or ending, at the same position as on another line of the output, next to a
  run of two or more spaces), fails: print the table narrower;
- legibility: the smallest text of a figure (an image in a cell output) shown at its displayed
  width. Its size in image pixels is ``points x dpi / 72``, the dpi read from the PNG (matplotlib
  writes it) and the points the smallest of matplotlib's default (10 pt, ticks and legends) and of
  every ``fontsize=`` / ``labelsize=`` in the cell's code (named sizes, ``"small"`` ..., scale
  10 pt); shown at ``displayed width / natural width`` of that, it must be at least 8 px.

Prints one line per problem ("page: block: widths") and a summary; exits 1 on any problem.
Chromium: $CHROMIUM, else chromium, chromium-browser or google-chrome on PATH (`make chromium`).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import re
import struct
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_pdf import WAIT_JS, devtools_page  # noqa: E402
from check_pages import find_chromium, pages_of  # noqa: E402

WIDTH, HEIGHT = 1280, 900
SLACK_PX = 1.0
MIN_TEXT_PX = 8.0
DEFAULT_PT = (
    10.0  # matplotlib's font.size: tick labels, legends, axis labels are 'medium'
)
NAMED = {
    "xx-small": 0.579,
    "x-small": 0.694,
    "small": 0.833,
    "medium": 1.0,
    "large": 1.2,
    "x-large": 1.44,
    "xx-large": 1.728,
}
FONT_ARG = re.compile(r"(?:fontsize|labelsize)\s*=\s*(?:([\d.]+)|[\"']([a-z-]+)[\"'])")
FONT_SIZE_RC = re.compile(r"[\"']font\.size[\"']\s*[\]:,]\s*=?\s*([\d.]+)")

MEASURE_JS = """
(() => {
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  if (!article) return JSON.stringify({column: 0, blocks: [], figures: []});
  const contentWidth = el => {
    const cs = getComputedStyle(el);
    return el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  };
  const room = el => {
    let w = Infinity;
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const d = getComputedStyle(a).display;
      if (/^(block|flow-root|list-item|flex|grid)$/.test(d) && a.clientWidth > 0) {
        w = Math.min(w, contentWidth(a));
      }
    }
    return w;
  };
  const label = el => (el.innerText || el.getAttribute('alt') || el.getAttribute('src') || '')
    .replace(/\\s+/g, ' ').trim().slice(0, 60);
  const blocks = [];
  const pres = article.querySelectorAll('div.cell_output pre, div.output pre');
  [...new Set(pres)].forEach((el, i) => {
    if (el.clientWidth === 0) return;
    const r = room(el), box = el.getBoundingClientRect().width;
    // the width of its longest line, unwrapped (the book's CSS wraps text outputs): a wrapped
    // line with aligned columns is a table that no longer reads as one
    const ws = el.style.whiteSpace;
    el.style.whiteSpace = 'pre';
    const natural = el.scrollWidth;
    el.style.whiteSpace = ws;
    const wrapped = natural > el.clientWidth + 1;
    const probe = document.createElement('span');
    probe.textContent = 'x'.repeat(100);
    probe.style.whiteSpace = 'pre';
    el.appendChild(probe);
    const perChar = probe.getBoundingClientRect().width / 100;
    probe.remove();
    const fits = Math.floor((el.clientWidth - parseFloat(getComputedStyle(el).paddingLeft)
                             - parseFloat(getComputedStyle(el).paddingRight)) / perChar);
    // a column: a field that starts (or ends) at the same character position, after (or
    // before) a run of two or more spaces, on two lines or more
    const lines = el.textContent.split('\\n');
    const edges = lines.map(l => {
      const e = new Set();
      for (const m of l.matchAll(/\\S( {2,})(?=\\S)/g)) {
        e.add('end ' + (m.index + 1));
        e.add('start ' + (m.index + 1 + m[1].length));
      }
      return e;
    });
    const count = new Map();
    edges.forEach(e => e.forEach(p => count.set(p, (count.get(p) || 0) + 1)));
    const tableLines = lines.filter(
      (l, k) => l.length > fits && [...edges[k]].some(p => count.get(p) >= 2));
    blocks.push({kind: 'text output', index: i + 1, text: label(el),
                 content: el.scrollWidth, shown: Math.min(el.clientWidth, r),
                 over: Math.max(el.scrollWidth - el.clientWidth, box - r),
                 wrapped: wrapped, natural: natural, fits: fits,
                 tableLines: tableLines.length});
  });
  article.querySelectorAll('table').forEach((el, i) => {
    if (el.getBoundingClientRect().width === 0) return;
    const inOutput = el.closest('div.cell_output, div.output') !== null;
    const content = Math.max(el.scrollWidth, el.getBoundingClientRect().width);
    let shown = room(el);
    for (let a = el.parentElement; a && a !== article; a = a.parentElement) {
      if (a.scrollWidth > a.clientWidth + 1 && a.clientWidth > 0) shown = Math.min(shown, a.clientWidth);
    }
    blocks.push({kind: inOutput ? 'table in an output' : 'table in the text', index: i + 1,
                 text: label(el.querySelector('tr') || el), content: content, shown: shown,
                 over: content - shown});
  });
  const figures = [];
  article.querySelectorAll('img').forEach((el, i) => {
    const w = el.getBoundingClientRect().width;
    if (w === 0) return;
    const r = room(el);
    blocks.push({kind: 'image', index: i + 1, text: label(el), content: w, shown: r,
                 over: w - r});
    const cell = el.closest('div.cell');
    if (cell && el.closest('div.cell_output')) {
      const input = cell.querySelector('div.cell_input');
      const src = el.currentSrc || el.src;
      figures.push({index: i + 1, src: src.startsWith('data:') ? src.slice(0, 4000) : src,
                    natural: el.naturalWidth, shown: w,
                    code: input ? input.textContent : ''});
    }
  });
  const pageCode = [...article.querySelectorAll('div.cell_input')].map(e => e.textContent)
    .join('\\n');
  return JSON.stringify({column: contentWidth(article), blocks: blocks, figures: figures,
                         fontSizeRc: pageCode.includes('font.size') ? pageCode : ''});
})()
"""


def png_dpi(data: bytes) -> float | None:
    """The horizontal resolution in dots per inch of a PNG's pHYs chunk, None without one."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if kind == b"pHYs" and pos + 17 <= len(data):
            ppu_x, _, unit = struct.unpack(">IIB", data[pos + 8 : pos + 17])
            return ppu_x * 0.0254 if unit == 1 else None
        if kind == b"IDAT":
            return None
        pos += 12 + length
    return None


def image_bytes(src: str, page: Path) -> bytes:
    """The first bytes of an image (a data: URI's prefix, or the local file)."""
    if src.startswith("data:"):
        payload = src.partition(",")[2]
        payload = payload[: len(payload) // 4 * 4]
        try:
            return base64.b64decode(payload)
        except ValueError:
            return b""
    parts = urlsplit(src)
    if parts.scheme not in ("", "file"):
        return b""
    path = Path(unquote(parts.path)) if parts.scheme == "file" else page.parent / src
    return path.read_bytes()[:4096] if path.is_file() else b""


def smallest_pt(code: str, page_code: str) -> float:
    """The smallest font size (points) a figure's cell asks for, matplotlib's default included."""
    base = DEFAULT_PT
    for match in FONT_SIZE_RC.finditer(page_code):
        base = float(match.group(1))
    sizes = [base]
    for number, name in FONT_ARG.findall(code):
        if number:
            sizes.append(float(number))
        elif name in NAMED:
            sizes.append(NAMED[name] * base)
    return min(sizes)


async def measure(
    chromium: str, pages: list[Path], timeout_s: float, *, dom: bool = False
) -> dict[Path, dict]:
    """Open ``pages`` one after another in one Chromium and measure each (``MEASURE_JS``).

    With ``dom``, each result also holds ``"dom"``, the page's DOM once MathJax has
    typeset it (before the dropdowns are opened for measuring), for the browser check
    of tools/check_pages.py; a page that fails then gives ``{"error": message}``
    instead of stopping the run.
    """
    found: dict[Path, dict] = {}
    grab = "document.documentElement.outerHTML" if dom else "null"
    async with devtools_page(chromium, "check_widths_") as (cdp, session):
        await cdp.send(
            "Emulation.setDeviceMetricsOverride",
            session,
            width=WIDTH,
            height=HEIGHT,
            deviceScaleFactor=1,
            mobile=False,
        )
        await cdp.send("Page.enable", session)
        for page in pages:
            uri = page.as_uri()
            wait = f"""(async () => {{
              for (let i = 0; location.href !== {json.dumps(uri)}; i++) {{
                if (i > 300) throw new Error('the page did not open');
                await new Promise(r => setTimeout(r, 20));
              }}
              await {WAIT_JS.strip()};
              const dom = {grab};
              return JSON.stringify({{dom: dom, data: {MEASURE_JS.strip()}}});
            }})()"""
            error = "no attempt"
            for _attempt in range(3):
                try:
                    await cdp.send("Page.navigate", session, url=uri)
                    result = await asyncio.wait_for(
                        cdp.send(
                            "Runtime.evaluate",
                            session,
                            expression=wait,
                            awaitPromise=True,
                            returnByValue=True,
                        ),
                        timeout_s,
                    )
                except (asyncio.TimeoutError, RuntimeError, OSError) as exc:
                    error = f"{type(exc).__name__}: {exc}"
                    continue
                if "exceptionDetails" not in result:
                    value = json.loads(result["result"]["value"])
                    found[page] = json.loads(value["data"])
                    if dom:
                        found[page]["dom"] = value["dom"]
                    break
                details = result["exceptionDetails"]
                error = str(details.get("exception", {}).get("description") or details)
            else:
                if not dom:
                    raise RuntimeError(f"{page}: measuring failed: {error}")
                found[page] = {"error": error}
    return found


def problems_of(page: Path, data: dict) -> tuple[list[str], list[str]]:
    """(overflows, illegible figures) of one page, one line each."""
    overflows = [
        f"{b['kind']} {b['index']} ({b['text']!r}): {b['content']:.0f} px wide, "
        f"{b['shown']:.0f} px shown"
        for b in data["blocks"]
        if b["over"] > SLACK_PX
    ]
    overflows += [
        f"{b['kind']} {b['index']} ({b['text']!r}): a table that wraps: {b['tableLines']} "
        f"line(s) with aligned columns longer than the {b['fits']} characters that fit "
        f"({b['natural']:.0f} px unwrapped, {b['shown']:.0f} px shown)"
        for b in data["blocks"]
        if b.get("tableLines")
    ]
    illegible = []
    for fig in data["figures"]:
        dpi = png_dpi(image_bytes(fig["src"], page))
        if not dpi or not fig["natural"]:
            continue
        pt = smallest_pt(fig["code"], data.get("fontSizeRc", ""))
        px = pt * dpi / 72 * fig["shown"] / fig["natural"]
        if px < MIN_TEXT_PX:
            illegible.append(
                f"figure (image {fig['index']}): {fig['natural']} px image at {dpi:.0f} dpi "
                f"shown at {fig['shown']:.0f} px: its {pt:g} pt text is {px:.1f} px "
                f"(< {MIN_TEXT_PX:g})"
            )
    return overflows, illegible


def width_problems(
    found: dict[Path, dict], pages: list[Path], html_dir: Path, seconds: float
) -> tuple[list[str], str, bool]:
    """(one line per problem, the summary line, whether any page failed) of ``found``."""
    lines: list[str] = []
    n_blocks = n_figures = n_over = n_small = 0
    for page in pages:
        data = found[page]
        if "error" in data:
            continue
        n_blocks += len(data["blocks"])
        n_figures += len(data["figures"])
        overflows, illegible = problems_of(page, data)
        n_over += len(overflows)
        n_small += len(illegible)
        rel = page.relative_to(html_dir).as_posix()
        lines += [f"{rel}: {line}" for line in overflows + illegible]
    summary = (
        f"width check at {WIDTH} px: {len(pages)} pages, {n_blocks} blocks, "
        f"{n_figures} figures; {n_over} wider than the column, {n_small} figures with text "
        f"under {MIN_TEXT_PX:g} px; {seconds:.0f} s"
    )
    return lines, summary, bool(n_over or n_small)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", nargs="?", type=Path, default=Path("_build/html"))
    parser.add_argument(
        "--page", action="append", default=[], help="only these pages (relative paths)"
    )
    parser.add_argument("--timeout", type=float, default=120, help="seconds per page")
    args = parser.parse_args()
    html_dir = args.html.resolve()
    if not html_dir.is_dir():
        sys.exit(f"check_widths: no build at {html_dir} (run `make book`)")
    pages = (
        [html_dir / p for p in args.page]
        if args.page
        else [p for p in pages_of(html_dir) if p.stat().st_size > 1000]
    )
    start = time.monotonic()
    found = asyncio.run(measure(find_chromium("check_widths"), pages, args.timeout))
    lines, summary, failed = width_problems(
        found, pages, html_dir, time.monotonic() - start
    )
    print("\n".join([*lines, summary]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
