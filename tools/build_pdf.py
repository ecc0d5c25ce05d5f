"""Build the whole book as one PDF, offline: Jupyter Book's single-page HTML printed by headless Chromium.

Usage: .venv/bin/python tools/build_pdf.py [--out _build/pdf/online-learning-executably.pdf]   (`make pdf`)

1. `jupyter-book build . --builder singlehtml` with the book's own _config.yml plus one local Sphinx
   extension (this file's `setup`): myst-nb registers its node for hidden code cells for the `html`
   builder only, so the single-page build needs a translation for it; there the hidden input (the
   Colab install cell) is left out of the PDF, as it is hidden on the web page.
2. Headless Chromium opens _build/singlehtml/index.html offline (every host name fails to resolve),
   through the DevTools protocol: it waits until MathJax (shipped in _static/mathjax) has typeset
   every formula and every image has loaded, fails on a MathJax error, and prints the page to A4
   with page numbers in the footer. _static/print.css hides the web page's navigation in print and
   starts each chapter on a new page.
3. The PDF is written to _build/pdf/online-learning-executably.pdf and copied to
   _build/html/online-learning-executably.pdf, as the book's introduction says (it does not link it).

Chromium: $CHROMIUM, else chromium, chromium-browser or google-chrome on PATH (`make chromium`).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_pages import HEADLESS  # noqa: E402
from check_pages import find_chromium as _find_chromium  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PDF_NAME = "online-learning-executably.pdf"
SINGLE = ROOT / "_build" / "singlehtml"
SINGLE_PAGE = "online-learning-executably.html"

# Waits for the page, MathJax's first typesetting and every image; returns what it found.
WAIT_JS = """
(async () => {
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  if (document.readyState !== 'complete') {
    await new Promise(r => window.addEventListener('load', r, {once: true}));
  }
  const hasMath = document.querySelector('.math') !== null;
  for (let i = 0; hasMath && !(window.MathJax && MathJax.startup && MathJax.startup.promise); i++) {
    if (i > 600) throw new Error('MathJax did not load in 60 s');
    await sleep(100);
  }
  if (hasMath) await MathJax.startup.promise;
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  await Promise.all([...document.images].map(img => img.complete ? null :
    new Promise(r => { img.addEventListener('load', r); img.addEventListener('error', r); })));
  await document.fonts.ready;
  return JSON.stringify({
    math: document.querySelectorAll('.math').length,
    typeset: document.querySelectorAll('mjx-container').length,
    errors: [...document.querySelectorAll('mjx-merror')].map(e => e.getAttribute('data-mjx-error')
                                                              || e.textContent).slice(0, 10),
    images: document.images.length,
    broken: [...document.images].filter(i => i.naturalWidth === 0).map(i => i.src).slice(0, 10),
  });
})()
"""

FOOTER = (
    '<div style="font-size:8px; width:100%; text-align:center; color:#555;">'
    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)


# --- the Sphinx extension used by the single-page build --------------------------------------------


def setup(app):  # noqa: ANN001, ANN201 - Sphinx's extension entry point
    """Sphinx extension for the single-page build.

    myst-nb, sphinx-proof and sphinx-exercise register how their nodes are written for the `html`
    builder only: the `singlehtml` builder gets the same translations. myst-nb's hidden code cell (the
    Colab install cell) is left out of the PDF, as it is hidden on the web page.
    """
    from docutils import nodes
    from myst_nb.sphinx_ import HideCodeCellNode

    def leave_out(translator, node):  # noqa: ANN001
        raise nodes.SkipNode

    def copy_html_translations(app) -> None:  # noqa: ANN001
        handlers = app.registry.translation_handlers
        single = handlers.setdefault("singlehtml", {})
        for name, pair in handlers.get("html", {}).items():
            single.setdefault(name, pair)
        single[HideCodeCellNode.__name__] = (leave_out, None)

    app.connect("builder-inited", copy_html_translations)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def build_singlehtml(python: str) -> Path:
    """Run the single-page build with the book's config plus this file as a local extension."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    sphinx = config.setdefault("sphinx", {})
    sphinx.setdefault("local_extensions", {})[Path(__file__).stem] = str(
        Path(__file__).resolve().parent
    )
    out = ROOT / "_build" / "pdf"
    out.mkdir(parents=True, exist_ok=True)
    config_path = out / "_config.yml"
    config_path.write_text(
        yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    jb = Path(python).parent / "jupyter-book"
    cmd = [
        str(jb),
        "build",
        str(ROOT),
        "--builder",
        "singlehtml",
        "--config",
        str(config_path),
    ]
    subprocess.run(cmd, check=True, cwd=ROOT)
    # The page is written at the root document's path (book/intro.html), but its links to _static and
    # _images are relative to the output folder: a copy at the top level is the page that works.
    root_doc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))["root"]
    written = SINGLE / f"{Path(root_doc).with_suffix('')}.html"
    if not written.is_file():
        sys.exit(f"build_pdf: the single-page build wrote no {written}")
    shutil.copyfile(written, SINGLE / SINGLE_PAGE)
    return SINGLE / SINGLE_PAGE


# --- Chromium through the DevTools protocol ---------------------------------------------------------


class DevTools:
    """A minimal DevTools-protocol client over tornado's websocket (tornado comes with Jupyter)."""

    def __init__(self, conn) -> None:  # noqa: ANN001
        self.conn = conn
        self.next_id = 0

    async def send(self, method: str, session: str | None = None, **params) -> dict:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        await self.conn.write_message(json.dumps(message))
        while True:
            raw = await self.conn.read_message()
            if raw is None:
                raise RuntimeError(f"Chromium closed the connection during {method}")
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]


@contextlib.asynccontextmanager
async def devtools_page(chromium: str, prefix: str, *flags: str):
    """Start headless, offline Chromium with its DevTools endpoint and open a blank page.

    Yields ``(cdp, session)``: the :class:`DevTools` client and the page's session id.
    Chromium runs with the flags of the browser check (``check_pages.HEADLESS``) plus
    ``flags``, in a fresh profile, and is stopped on exit.
    """
    from tornado.websocket import websocket_connect

    with tempfile.TemporaryDirectory(prefix=prefix) as profile:
        cmd = [
            chromium,
            *HEADLESS,
            *flags,
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "about:blank",
        ]
        proc = subprocess.Popen(
            cmd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "HOME": profile},
        )
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + 60
            while not (
                port_file.is_file() and len(port_file.read_text().splitlines()) >= 2
            ):
                if proc.poll() is not None or time.monotonic() > deadline:
                    err = (
                        proc.stderr.read().decode(errors="replace")
                        if proc.poll() is not None
                        else ""
                    )
                    raise RuntimeError(
                        f"Chromium did not start its DevTools endpoint\n{err[-800:]}"
                    )
                await asyncio.sleep(0.1)
            port, path = port_file.read_text().splitlines()[:2]
            conn = await websocket_connect(
                f"ws://127.0.0.1:{port}{path}", max_message_size=1 << 30
            )
            try:
                cdp = DevTools(conn)
                target = await cdp.send("Target.createTarget", url="about:blank")
                session = (
                    await cdp.send(
                        "Target.attachToTarget",
                        targetId=target["targetId"],
                        flatten=True,
                    )
                )["sessionId"]
                yield cdp, session
            finally:
                conn.close()
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


async def print_pdf(chromium: str, page: Path, pdf: Path, timeout_s: float) -> dict:
    async with devtools_page(chromium, "build_pdf_") as (cdp, session):
        await cdp.send("Page.enable", session)
        await cdp.send("Page.navigate", session, url=page.as_uri())
        start = time.monotonic()
        result = await asyncio.wait_for(
            cdp.send(
                "Runtime.evaluate",
                session,
                expression=WAIT_JS,
                awaitPromise=True,
                returnByValue=True,
            ),
            timeout_s,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(
                f"waiting for the page failed: {result['exceptionDetails']}"
            )
        found = json.loads(result["result"]["value"])
        found["typeset_s"] = time.monotonic() - start
        if found["errors"] or found["broken"] or found["typeset"] < found["math"]:
            raise RuntimeError(f"the page is not ready to print: {found}")
        printed = await asyncio.wait_for(
            cdp.send(
                "Page.printToPDF",
                session,
                paperWidth=8.27,
                paperHeight=11.69,  # A4, inches
                marginTop=0.6,
                marginBottom=0.7,
                marginLeft=0.6,
                marginRight=0.6,
                printBackground=True,
                displayHeaderFooter=True,
                headerTemplate="<span></span>",
                footerTemplate=FOOTER,
                transferMode="ReturnAsStream",
            ),
            timeout_s,
        )
        with pdf.open("wb") as out:
            while True:
                chunk = await cdp.send(
                    "IO.read", session, handle=printed["stream"], size=1 << 22
                )
                data = chunk["data"]
                out.write(
                    base64.b64decode(data)
                    if chunk.get("base64Encoded")
                    else data.encode()
                )
                if chunk.get("eof"):
                    break
        await cdp.send("IO.close", session, handle=printed["stream"])
        return found


def find_chromium() -> str:
    return _find_chromium("build_pdf")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "pdf" / PDF_NAME)
    parser.add_argument(
        "--skip-build", action="store_true", help="print the existing _build/singlehtml"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=600,
        help="seconds for typesetting and printing",
    )
    args = parser.parse_args()

    start = time.monotonic()
    chromium = find_chromium()
    index = SINGLE / SINGLE_PAGE
    if not args.skip_build:
        index = build_singlehtml(sys.executable)
    built = time.monotonic()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    found = asyncio.run(print_pdf(chromium, index, args.out, args.timeout))
    html = ROOT / "_build" / "html"
    if html.is_dir():
        shutil.copyfile(args.out, html / PDF_NAME)
    done = time.monotonic()
    size = args.out.stat().st_size / 1e6
    print(
        f"build_pdf: {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}: "
        f"{size:.1f} MB, {found['typeset']} formulas, {found['images']} images; "
        f"single-page build {built - start:.0f} s, typesetting {found['typeset_s']:.0f} s, "
        f"printing {done - built - found['typeset_s']:.0f} s"
        + (
            f"; copied to {(html / PDF_NAME).relative_to(ROOT)}"
            if html.is_dir()
            else ""
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
