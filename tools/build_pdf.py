"""Build the whole book as one PDF, offline: Jupyter Book's single-page HTML printed by headless Chromium.

Usage: .venv/bin/python tools/build_pdf.py [--rebuild] [--timeout S]   (`make pdf`)
       .venv/bin/python tools/build_pdf.py --html --single-page-only         (`make book`)
       .venv/bin/python tools/build_pdf.py --html --strict --single-page-only  (`make test`)

1. `jupyter-book build . --builder singlehtml` with the book's own _config.yml plus one local Sphinx
   extension (this file's `setup`): myst-nb registers its node for hidden code cells for the `html`
   builder only, so the single-page build needs a translation for it; there the hidden input (the
   Colab install cell) is left out of the PDF, as it is hidden on the web page. Skipped when the
   single-page book is newer than every source (`make book` builds it too). With --html, the HTML
   book is built first with the same configuration (_build/pdf/_config.yml), so that the
   single-page build reuses its parsed sources (_build/.doctrees) and only writes the page: the
   book's sources are read once for both.
2. The page is cut into parts of whole documents, at most about 1 MB of HTML each
   (tools/pdf_chunks.py): Chromium needed about 4 GB to typeset the whole page and 8 GB to print
   it, and stays within about 2 GB one part at a time. Every heading gets an id, the printed
   contents link their headings and get boxes for page numbers, and links between parts are
   marked for step 4.
3. Headless Chromium opens each part in a new tab, offline (every host name fails to resolve),
   through the DevTools protocol, with the print media emulated at the width of the printed text
   column: it waits until MathJax (shipped in _static/mathjax) has typeset every formula and every
   image has loaded, and fails on a MathJax error. Every display formula or table wider than the
   column is set smaller until it fits (tools/pdf_layout.py), every block is measured, and the
   build fails if any still sticks out. The part is printed to A4 (no tagged PDF: the tags were a
   third of the file); _static/print.css hides the web page's navigation, starts each chapter on a
   new page and leaves out shadows (each was a rasterized image).
4. tools/pdf_finish.py puts the parts together: the page of every heading comes from the parts'
   named destinations; the contents alone, with the numbers filled in, are printed once more and
   laid over the contents pages; every page gets "page / pages" at its foot; links between parts
   become links to named destinations; every chapter, section and subsection gets a bookmark.
5. The PDF is written to _build/pdf/online-learning-executably.pdf and copied to
   _build/html/online-learning-executably.pdf, as the book's introduction says (it does not link it);
   _build/pdf/build.json records pages, size, each step's time and Chromium's peak memory (the sum of
   its processes' PSS), and the layout measurement, which tools/check_pdf.py checks.

Each step has a time limit that scales with the book's size and the machine's load
(`scaled_timeout`); running out names the step and how to give more time (PDF_TIMEOUT).
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
from pypdf import PdfReader

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_pages import HEADLESS  # noqa: E402
from check_pages import find_chromium as _find_chromium  # noqa: E402
from pdf_chunks import cut, numbers_only  # noqa: E402
from pdf_finish import destination_pages, finish  # noqa: E402
from pdf_layout import FIT_JS  # noqa: E402

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


def book_config() -> Path:
    """The book's _config.yml plus this file as a local Sphinx extension, written to _build/pdf.

    The HTML build (``--html``) and the single-page build both use it: with the same configuration
    the single-page build reuses the HTML build's parsed sources (_build/.doctrees) and only writes.
    """
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    sphinx = config.setdefault("sphinx", {})
    sphinx.setdefault("local_extensions", {})[Path(__file__).stem] = str(
        Path(__file__).resolve().parent
    )
    out = ROOT / "_build" / "pdf"
    out.mkdir(parents=True, exist_ok=True)
    config_path = out / "_config.yml"
    text = yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
    if not config_path.is_file() or config_path.read_text(encoding="utf-8") != text:
        config_path.write_text(text, encoding="utf-8")
    return config_path


def jupyter_book(python: str, builder: str, *options: str) -> None:
    """``jupyter-book build`` of the book with ``builder`` and the shared configuration."""
    jb = Path(python).parent / "jupyter-book"
    cmd = [str(jb), "build", str(ROOT), "--builder", builder, "--config"]
    if subprocess.run([*cmd, str(book_config()), *options], cwd=ROOT).returncode:
        sys.exit(f"build_pdf: the {builder} build of the book failed (above)")


def build_html(python: str, strict: bool) -> None:
    """The HTML book, every page read afresh (``--all``); ``strict``: warnings are errors."""
    jupyter_book(python, "html", "--all", *(["-W", "--keep-going"] if strict else []))


def build_singlehtml(python: str) -> Path:
    """Run the single-page build with the book's config plus this file as a local extension."""
    jupyter_book(python, "singlehtml")
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
                cdp.process = proc
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


# The page: A4 with these margins (inches); the text column is the page's width less the margins,
# in CSS px (96 per inch), the width at which FIT_JS lays the book out and measures it.
PAGE = {
    "paperWidth": 8.27,
    "paperHeight": 11.69,
    "marginTop": 0.6,
    "marginBottom": 0.7,
    "marginLeft": 0.6,
    "marginRight": 0.6,
}
COLUMN_PX = int((PAGE["paperWidth"] - PAGE["marginLeft"] - PAGE["marginRight"]) * 96)


async def evaluate(cdp: DevTools, session: str, expression: str, what: str):
    """Run ``expression`` in the page and return its value; a JavaScript error names ``what``."""
    result = await cdp.send(
        "Runtime.evaluate",
        session,
        expression=expression,
        awaitPromise=True,
        returnByValue=True,
    )
    if "exceptionDetails" in result:
        details = result["exceptionDetails"]
        message = details.get("exception", {}).get("description") or details
        raise RuntimeError(f"{what} failed in the page: {message}")
    return result["result"].get("value")


async def print_to(cdp: DevTools, session: str, pdf: Path, **options) -> None:
    """Print the page with ``PAGE`` and ``options`` to ``pdf``, streamed (the book is large)."""
    printed = await cdp.send(
        "Page.printToPDF",
        session,
        **PAGE,
        generateTaggedPDF=False,  # the tags were a third of the file and of the time
        transferMode="ReturnAsStream",
        **options,
    )
    with pdf.open("wb") as out:
        while True:
            chunk = await cdp.send(
                "IO.read", session, handle=printed["stream"], size=1 << 22
            )
            data = chunk["data"]
            out.write(
                base64.b64decode(data) if chunk.get("base64Encoded") else data.encode()
            )
            if chunk.get("eof"):
                break
    await cdp.send("IO.close", session, handle=printed["stream"])


class Step:
    """Each step under its own time limit, with a message that says which step ran out of time."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.times: dict[str, float] = {}
        self.memory: MemoryWatch | None = None
        self.peaks: dict[str, int] = {}

    async def __call__(self, name: str, awaitable):
        start = time.monotonic()
        if self.memory is not None:
            self.memory.peak = 0
        try:
            return await asyncio.wait_for(awaitable, self.timeout_s)
        except asyncio.TimeoutError:
            raise SystemExit(
                f"build_pdf: {name} did not finish in {self.timeout_s:.0f} s (the limit scales "
                "with the size of the book and the load of the machine; on a slow or busy machine "
                "give more: `PDF_TIMEOUT=<seconds> make pdf` or "
                "`tools/build_pdf.py --timeout <seconds>`)"
            ) from None
        finally:
            self.times[name] = round(time.monotonic() - start, 1)
            if self.memory is not None:
                self.peaks[name] = round(self.memory.peak / 2**20)
            print(
                f"build_pdf: {name}: {self.times[name]:.0f} s, "
                f"{self.peaks.get(name, 0)} MB",
                flush=True,
            )


async def print_pdf(chromium: str, page: Path, pdf: Path, timeout_s: float) -> dict:
    """Print the book part by part, then its page numbers; finish the PDF; return a report."""
    step = Step(timeout_s)
    work = pdf.parent / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    parts, outline = cut(page.read_text(encoding="utf-8"))
    printed: list[Path] = []
    layout = {"column": COLUMN_PX, "changed": [], "over": [], "n_over": 0}
    found = {"math": 0, "typeset": 0, "images": 0}
    async with devtools_page(chromium, "build_pdf_", "--hide-scrollbars") as (
        cdp,
        session,
    ):
        memory = MemoryWatch(cdp.process)
        memory.start()
        step.memory = memory
        try:
            await cdp.send("Page.enable", session)
            for n, part in enumerate(parts):
                source = page.parent / f"_pdf_part_{n:02d}.html"
                source.write_text(part.html, encoding="utf-8")
                name = f"part {n + 1} of {len(parts)} ({part.docs[0]})"
                # Each part in a new tab, closed after it: its memory goes with it.
                target = await cdp.send("Target.createTarget", url="about:blank")
                tab = (
                    await cdp.send(
                        "Target.attachToTarget",
                        targetId=target["targetId"],
                        flatten=True,
                    )
                )["sessionId"]
                try:
                    await cdp.send("Page.enable", tab)
                    measured, seen = await step(
                        name, lay_out_and_print(cdp, tab, source, work / f"{n:02d}.pdf")
                    )
                finally:
                    await cdp.send("Target.closeTarget", targetId=target["targetId"])
                printed.append(work / f"{n:02d}.pdf")
                for key in found:
                    found[key] += seen[key]
                layout["changed"] += measured["changed"]
                layout["over"] += measured["over"]
                layout["n_over"] += measured["n_over"]
            dests, offset = {}, 0
            for part_pdf in printed:
                for dest, (index, top) in destination_pages(part_pdf).items():
                    dests.setdefault(dest, (offset + index, top))
                offset += len(PdfReader(part_pdf).pages)
            numbers = {hid: dests[hid][0] + 1 for _, _, hid in outline if hid in dests}
            small = page.parent / "_pdf_page_numbers.html"
            small.write_text(numbers_only(parts[0].html, numbers), encoding="utf-8")
            await step(
                "the contents' page numbers",
                load_and_print(cdp, session, small, work / "numbers.pdf"),
            )
        finally:
            memory.stop()
    metadata = {"Title": "Online Learning, Executably", "Creator": "tools/build_pdf.py"}
    finished = await step(
        "finishing",
        asyncio.to_thread(
            finish,
            printed,
            work / "numbers.pdf",
            pdf,
            outline,
            dests,
            metadata,
        ),
    )
    for n in range(len(parts)):
        (page.parent / f"_pdf_part_{n:02d}.html").unlink(missing_ok=True)
    (page.parent / "_pdf_page_numbers.html").unlink(missing_ok=True)
    return {
        **found,
        **finished,
        "parts": len(parts),
        "layout": layout,
        "steps_s": step.times,
        "peak_memory_mb": max(step.peaks.values()),
    }


async def lay_out_and_print(cdp: DevTools, session: str, source: Path, out: Path):
    """Open one part in the print layout, typeset it, fit it to the column, and print it."""
    await cdp.send("Emulation.setEmulatedMedia", session, media="print")
    await cdp.send(
        "Emulation.setDeviceMetricsOverride",
        session,
        width=COLUMN_PX,
        height=1000,
        deviceScaleFactor=1,
        mobile=False,
    )
    await cdp.send("Page.navigate", session, url=source.as_uri())
    seen = json.loads(
        await evaluate(cdp, session, WAIT_JS, f"waiting for {source.name}")
    )
    if seen["errors"] or seen["broken"] or seen["typeset"] < seen["math"]:
        raise RuntimeError(f"{source.name} is not ready to print: {seen}")
    measured = json.loads(
        await evaluate(cdp, session, f"({FIT_JS})({COLUMN_PX})", "fitting")
    )
    await cdp.send("Emulation.clearDeviceMetricsOverride", session)
    await cdp.send("Emulation.setEmulatedMedia", session, media="")
    await print_to(cdp, session, out, printBackground=True)
    return measured, seen


async def load_and_print(cdp: DevTools, session: str, source: Path, out: Path) -> None:
    """Open a small page and print it."""
    await cdp.send("Page.navigate", session, url=source.as_uri())
    await evaluate(cdp, session, WAIT_JS, f"waiting for {source.name}")
    await print_to(cdp, session, out, printBackground=False)


class MemoryWatch:
    """The peak memory of a process and all its children (Chromium's), as the sum of their PSS."""

    def __init__(self, process: subprocess.Popen, every_s: float = 0.5) -> None:
        import threading

        self.pid = process.pid
        self.every_s = every_s
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        try:
            root = psutil.Process(self.pid)
        except psutil.NoSuchProcess:
            return
        while not self._stop.is_set():
            total = 0
            try:
                for proc in [root, *root.children(recursive=True)]:
                    with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
                        # PSS: memory shared between Chromium's processes counted once
                        total += proc.memory_full_info().pss
            except psutil.NoSuchProcess:
                return
            self.peak = max(self.peak, total)
            self._stop.wait(self.every_s)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def find_chromium() -> str:
    return _find_chromium("build_pdf")


def scaled_timeout(page: Path) -> float:
    """Seconds allowed for each step: 120 s plus 30 s per MB of the single-page HTML (about 400 s
    for today's 9 MB book, whose slowest step, one part, takes about 35 s on 2 busy cores), times
    the load of the machine per core when it is above 1."""
    size_mb = page.stat().st_size / 1e6
    load = (
        os.getloadavg()[0] / (os.cpu_count() or 1) if hasattr(os, "getloadavg") else 1
    )
    return (120 + 30 * size_mb) * max(1.0, load)


def sources_newer_than(built: Path) -> list[Path]:
    """The book's sources changed since ``built`` was written (all of them when it is missing)."""
    if not built.is_file():
        return [built]
    stamp = built.stat().st_mtime
    sources = [ROOT / "_config.yml", ROOT / "_toc.yml", Path(__file__)]
    for folder, patterns in (
        ("book", ("*.ipynb", "*.md", "*.bib")),
        ("_static", ("*",)),
    ):
        for pattern in patterns:
            sources += (ROOT / folder).rglob(pattern)
    return [path for path in sources if path.is_file() and path.stat().st_mtime > stamp]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "pdf" / PDF_NAME)
    parser.add_argument(
        "--rebuild",
        action="store_true",
        help="run the single-page build even when it is newer than every source",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=float(os.environ.get("PDF_TIMEOUT", 0)) or None,
        help="seconds for each step (default: scaled with the book's size and the load)",
    )
    parser.add_argument(
        "--single-page-only",
        action="store_true",
        help="only (re)build the single-page book when a source changed",
    )
    parser.add_argument(
        "--html",
        action="store_true",
        help="first build the HTML book afresh (jupyter-book build --all) with the same "
        "configuration, whose parsed sources the single-page build then reuses: "
        "`make book` runs --html --single-page-only",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="with --html: warnings are errors (-W --keep-going), as in `make test`",
    )
    args = parser.parse_args()
    if args.html:
        build_html(sys.executable, args.strict)
        build_singlehtml(sys.executable)  # only writes: the sources were just read
    if args.single_page_only:
        if args.rebuild or sources_newer_than(SINGLE / SINGLE_PAGE):
            build_singlehtml(sys.executable)
        return 0

    start = time.monotonic()
    chromium = find_chromium()
    index = SINGLE / SINGLE_PAGE
    changed = sources_newer_than(index)
    if args.rebuild or changed:
        index = build_singlehtml(sys.executable)
    else:
        print(
            f"build_pdf: {index.relative_to(ROOT)} is newer than every source: printing it"
        )
    built = time.monotonic()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    timeout = args.timeout or scaled_timeout(index)
    report = asyncio.run(print_pdf(chromium, index, args.out, timeout))
    done = time.monotonic()
    size = args.out.stat().st_size / 1e6
    report.update(
        {
            "pages": len(PdfReader(args.out).pages),
            "size_mb": round(size, 1),
            "single_page_build_s": round(built - start, 1),
            "print_s": round(done - built, 1),
            "timeout_s": round(timeout),
        }
    )
    (args.out.parent / "build.json").write_text(
        json.dumps(report, indent=1), encoding="utf-8"
    )
    layout = report["layout"]
    print(
        f"build_pdf: {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}: "
        f"{report['pages']} pages, {size:.1f} MB, {report['typeset']} formulas, "
        f"{report['images']} images, {report['bookmarks']} bookmarks, contents on "
        f"{report['numbered_pages']} pages; single-page build {built - start:.0f} s, "
        f"typesetting, printing and finishing {done - built:.0f} s ({report['steps_s']}); "
        f"Chromium's peak memory {report['peak_memory_mb']} MB; "
        f"{len(layout['changed'])} formulas and tables set smaller to fit the "
        f"{layout['column']} px column"
    )
    if layout["n_over"]:
        print(
            f"build_pdf: {layout['n_over']} blocks are wider than the text column "
            f"({layout['column']} px) in the print layout:",
            file=sys.stderr,
        )
        for item in layout["over"]:
            print(
                f"  {item['tag']} {item['width']} px  {item['where']}", file=sys.stderr
            )
        return 1
    html = ROOT / "_build" / "html"
    if html.is_dir():
        shutil.copyfile(args.out, html / PDF_NAME)
        print(f"build_pdf: copied to {(html / PDF_NAME).relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
