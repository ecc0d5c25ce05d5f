"""Animations that play in the HTML book offline: matplotlib frames and a small JS player.

A figure is redrawn once per frame by a function the notebook supplies; every
frame is saved as a small PNG (or SVG), and :class:`Animation` writes them,
base64-encoded, into one self-contained piece of HTML with a player of a few
lines of JavaScript (first, previous, play/pause, next, last, a slider and a
loop switch). Nothing is fetched from a server: the page works offline, in
Jupyter, in Colab and in the HTML book, whose build copies the notebook's
output as it is.

matplotlib's own ``FuncAnimation(...).to_jshtml()`` would do the same, but its
player takes its button icons from a stylesheet on a CDN (Font Awesome), so
offline its buttons are blank; and it stores full-colour PNGs. Here a PNG frame
is reduced to a palette of at most ``colors`` colours (line art has few), which
makes it several times smaller. matplotlib is imported only when frames are
drawn.

The bytes of a PNG depend on the CPU, freetype and Agg: a notebook excludes
the cell that shows an animation from nbval's comparison and prints the numbers
the animation shows in a separate, compared cell (CONTRIBUTING).
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import itertools
from collections.abc import Callable, Sequence

import numpy as np

from ._validation import check_positive_int

__all__ = ["Animation", "animate", "render_frames", "snapshot_points"]

#: MIME type of each frame format.
MIME = {"png": "image/png", "svg": "image/svg+xml"}
MODES = ("once", "loop")
_ids = itertools.count()


def snapshot_points(total: int, n_frames: int) -> np.ndarray:
    """Evenly spread ends of the prefixes a run is shown at: one per frame.

    Frame ``k`` (0-based) shows the run after its first ``ceil((k + 1) total / n)``
    steps (rounds, updates, losses), with ``n = min(n_frames, total)``: the
    ends strictly increase and the last one is ``total``, so the last frame shows
    the finished run. Integer arithmetic only: the same ends on every machine.

    Parameters
    ----------
    total : int
        Number of steps of the run (``>= 1``).
    n_frames : int
        Number of frames wanted (``>= 1``); at most ``total`` are returned.

    Returns
    -------
    ndarray of int64, shape (min(n_frames, total),)
        The number of steps shown in each frame.

    Examples
    --------
    >>> snapshot_points(10, 4).tolist()
    [3, 5, 8, 10]
    >>> snapshot_points(3, 60).tolist()
    [1, 2, 3]
    """
    total = check_positive_int(total, "total")
    n = min(check_positive_int(n_frames, "n_frames"), total)
    k = np.arange(1, n + 1, dtype=np.int64)
    return (k * total + n - 1) // n


def _check_format(fmt: str) -> str:
    if fmt not in MIME:
        raise ValueError(f"fmt must be one of {sorted(MIME)}; got {fmt!r}.")
    return fmt


def _quantize_png(data: bytes, colors: int) -> bytes:
    from PIL import Image  # Pillow is a dependency of matplotlib

    with Image.open(io.BytesIO(data)) as im:
        pal = im.convert("RGB").quantize(
            colors=colors, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
        )
    out = io.BytesIO()
    pal.save(out, format="png", optimize=True)
    return out.getvalue()


def render_frames(
    fig,
    draw: Callable[[int], object],
    n_frames: int,
    *,
    fmt: str = "png",
    dpi: float = 88.0,
    colors: int | None = 64,
) -> list[bytes]:
    """Draw ``fig`` once per frame and save each state as an image.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure; ``draw`` changes its artists. Every frame has the figure's
        size (no tight bounding box), so the frames do not jump.
    draw : callable
        ``draw(k)`` puts the figure in the state of frame ``k`` (``0 <= k < n_frames``);
        its return value is ignored.
    n_frames : int
        Number of frames.
    fmt : {"png", "svg"}, default="png"
        Image format of each frame.
    dpi : float, default=88
        Resolution of a PNG frame (pixels per inch of ``fig``'s size): a figure
        8 inches wide gives 704 pixels, about the width of the book's text.
    colors : int or None, default=64
        For PNG, the largest number of colours of a frame's palette (2 to
        256; no dithering); ``None`` keeps matplotlib's full-colour PNG.

    Returns
    -------
    list of bytes
        The frames, in order.
    """
    n = check_positive_int(n_frames, "n_frames")
    fmt = _check_format(fmt)
    if colors is not None and not (
        isinstance(colors, int | np.integer) and 2 <= colors <= 256
    ):
        raise ValueError(
            f"colors must be None or an int from 2 to 256; got {colors!r}."
        )
    if not (np.isfinite(dpi) and dpi > 0):
        raise ValueError(f"dpi must be a positive number; got {dpi!r}.")
    # Metadata naming the software and the date would differ between machines and runs.
    meta = {"Software": None} if fmt == "png" else {"Creator": None, "Date": None}
    frames = []
    for k in range(n):
        draw(k)
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, dpi=dpi, metadata=meta)
        data = buf.getvalue()
        frames.append(
            _quantize_png(data, int(colors)) if fmt == "png" and colors else data
        )
    return frames


_PLAYER = """<div class="olbook-animation" id="{id}" style="max-width:{width}px">
<img src="{first}" alt="{alt}" style="width:100%;height:auto;display:block">
<div class="olbook-animation-controls" style="display:flex;flex-wrap:wrap;gap:4px;\
align-items:center;font-size:13px;margin-top:4px">
<button type="button" data-act="first" title="first frame">|&lt;</button>
<button type="button" data-act="prev" title="previous frame">&lt;</button>
<button type="button" data-act="play" title="play or pause" style="min-width:4.5em">play</button>
<button type="button" data-act="next" title="next frame">&gt;</button>
<button type="button" data-act="last" title="last frame">&gt;|</button>
<input type="range" min="0" max="{last}" value="{initial}" aria-label="frame" style="flex:1;min-width:8em">
<span data-act="label" style="font-family:monospace">{label}</span>
<label><input type="checkbox" data-act="loop"{loop}> loop</label>
</div>
<script>
(function () {{
  var root = document.getElementById("{id}");
  var frames = [{frames}];
  var img = root.querySelector("img"), slider = root.querySelector("input[type=range]");
  var label = root.querySelector("[data-act=label]"), loop = root.querySelector("[data-act=loop]");
  var play = root.querySelector("[data-act=play]"), n = frames.length, k = {initial}, timer = null;
  frames[k] = img.src;
  function show(j) {{
    k = Math.max(0, Math.min(n - 1, j)); img.src = frames[k]; slider.value = k;
    label.textContent = "frame " + (k + 1) + " / " + n;
  }}
  function stop() {{ if (timer) {{ clearInterval(timer); timer = null; }} play.textContent = "play"; }}
  function tick() {{
    if (k < n - 1) {{ show(k + 1); }} else if (loop.checked) {{ show(0); }} else {{ stop(); }}
  }}
  function start() {{
    if (k === n - 1) {{ show(0); }}
    timer = setInterval(tick, {interval}); play.textContent = "pause";
  }}
  var acts = {{first: function () {{ stop(); show(0); }}, prev: function () {{ stop(); show(k - 1); }},
    next: function () {{ stop(); show(k + 1); }}, last: function () {{ stop(); show(n - 1); }},
    play: function () {{ if (timer) {{ stop(); }} else {{ start(); }} }}}};
  root.querySelectorAll("button").forEach(function (b) {{
    b.addEventListener("click", acts[b.getAttribute("data-act")]);
  }});
  slider.addEventListener("input", function () {{ stop(); show(parseInt(slider.value, 10)); }});
}})();
</script>
</div>"""


class Animation:
    """Frames and a self-contained HTML player for them (shown by Jupyter as HTML).

    Parameters
    ----------
    frames : sequence of bytes
        The images, in order (at least one).
    fmt : {"png", "svg"}, default="png"
        Their format.
    interval : int, default=250
        Milliseconds between two frames while playing.
    mode : {"once", "loop"}, default="once"
        Whether playing stops at the last frame or starts again; the reader can
        change it with the player's "loop" box.
    initial : int, default=-1
        The frame shown before the reader presses play (a negative index counts
        from the end). The last frame by default: a printed page and a reader
        without JavaScript see the finished run; "play" starts from the first.
    alt : str, default="animation"
        Text alternative of the image.
    width : int, default=640
        Largest width of the player, in CSS pixels.

    Attributes
    ----------
    n_frames : int
        Number of frames.
    """

    def __init__(
        self,
        frames: Sequence[bytes],
        *,
        fmt: str = "png",
        interval: int = 250,
        mode: str = "once",
        initial: int = -1,
        alt: str = "animation",
        width: int = 640,
    ) -> None:
        frames = [bytes(f) for f in frames]
        if not frames or not all(frames):
            raise ValueError(
                f"frames must be a non-empty sequence of non-empty images; "
                f"got {len(frames)} frames."
            )
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}; got {mode!r}.")
        n = len(frames)
        if not (isinstance(initial, int | np.integer) and -n <= initial < n):
            raise ValueError(
                f"initial must be a frame index in [{-n}, {n}); got {initial!r}."
            )
        self.fmt = _check_format(fmt)
        self.frames = tuple(frames)
        self.interval = check_positive_int(interval, "interval")
        self.width = check_positive_int(width, "width")
        self.mode, self.initial, self.alt = mode, int(initial) % n, str(alt)

    @property
    def n_frames(self) -> int:
        return len(self.frames)

    def _uri(self, data: bytes) -> str:
        return f"data:{MIME[self.fmt]};base64," + base64.b64encode(data).decode("ascii")

    def to_html(self) -> str:
        """The player and its frames as one piece of HTML, with no external resource."""
        digest = hashlib.sha1(b"".join(self.frames)).hexdigest()[:10]
        uris = [
            f'"{self._uri(f)}"' if i != self.initial else "null"  # the <img> holds it
            for i, f in enumerate(self.frames)
        ]
        return _PLAYER.format(
            id=f"olbook-anim-{digest}-{next(_ids)}",
            width=self.width,
            first=self._uri(self.frames[self.initial]),
            alt=html.escape(self.alt, quote=True),
            last=self.n_frames - 1,
            initial=self.initial,
            label=f"frame {self.initial + 1} / {self.n_frames}",
            loop=" checked" if self.mode == "loop" else "",
            interval=self.interval,
            frames=",\n".join(uris),
        )

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        size = sum(len(f) for f in self.frames)
        return f"<Animation: {self.n_frames} {self.fmt} frames, {size} bytes>"


def animate(
    fig,
    draw: Callable[[int], object],
    n_frames: int,
    *,
    fmt: str = "png",
    dpi: float = 88.0,
    colors: int | None = 64,
    interval: int = 250,
    mode: str = "once",
    initial: int = -1,
    alt: str = "animation",
    close: bool = True,
) -> Animation:
    """Draw the frames of ``fig`` (:func:`render_frames`) and wrap them in an :class:`Animation`.

    Parameters
    ----------
    fig, draw, n_frames, fmt, dpi, colors
        As in :func:`render_frames`.
    interval, mode, initial, alt
        As in :class:`Animation`.
    close : bool, default=True
        Close ``fig`` afterwards, so that Jupyter does not also show its last
        state as a still image.

    Returns
    -------
    Animation
        Displayed by Jupyter (and the HTML book) as the player.
    """
    if mode not in MODES:  # checked before anything is drawn
        raise ValueError(f"mode must be one of {MODES}; got {mode!r}.")
    check_positive_int(interval, "interval")
    n = check_positive_int(n_frames, "n_frames")
    if not (isinstance(initial, int | np.integer) and -n <= initial < n):
        raise ValueError(
            f"initial must be a frame index in [{-n}, {n}); got {initial!r}."
        )
    frames = render_frames(fig, draw, n_frames, fmt=fmt, dpi=dpi, colors=colors)
    # CSS: 96 px/in
    width = int(round(fig.get_figwidth() * (dpi if fmt == "png" else 96.0)))
    anim = Animation(
        frames,
        fmt=fmt,
        interval=interval,
        mode=mode,
        initial=initial,
        alt=alt,
        width=max(width, 1),
    )
    if close:
        import matplotlib.pyplot as plt

        plt.close(fig)
    return anim
