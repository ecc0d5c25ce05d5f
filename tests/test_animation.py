"""olbook.animation: frames drawn by matplotlib, played by a self-contained HTML/JS player."""

from __future__ import annotations

import base64
import io
import re

import matplotlib.pyplot as plt
import numpy as np
import pytest
from bs4 import BeautifulSoup
from PIL import Image

from olbook import animation
from olbook.animation import Animation, animate, render_frames, snapshot_points

URI = re.compile(r"data:(image/[a-z+]+);base64,([A-Za-z0-9+/=]+)")


def moving_dot(n):
    """A figure with a dot that moves right by one unit per frame, and its draw function."""
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.set_xlim(-1, n)
    ax.set_ylim(-1, 1)
    (dot,) = ax.plot([], [], "o", color="tab:red")
    calls = []

    def draw(k):
        calls.append(k)
        dot.set_data([k], [0.0])
        ax.set_title(f"frame {k}")

    return fig, draw, calls


def js_frames(page: str) -> list[str]:
    """The entries of the player's JS frame array: data URIs, or 'null'."""
    body = re.search(r"var frames = \[(.*?)\];", page, re.S).group(1)
    return [e.strip().strip('"') for e in body.split(",\n")]


def test_snapshot_points():
    assert snapshot_points(10, 4).tolist() == [3, 5, 8, 10]
    assert snapshot_points(3, 60).tolist() == [1, 2, 3]
    assert snapshot_points(7, 7).tolist() == list(range(1, 8))
    for total, n in [(1000, 37), (61, 60), (12345, 50)]:
        ends = snapshot_points(total, n)
        assert ends.size == n and ends[-1] == total and ends[0] >= 1
        assert np.all(np.diff(ends) > 0)
        gaps = np.diff(np.r_[0, ends])
        assert gaps.max() - gaps.min() <= 1  # evenly spread
    for bad in [(0, 5), (5, 0), (2.5, 3)]:
        with pytest.raises(ValueError):
            snapshot_points(*bad)


def test_render_png_frames_are_palette_pngs_of_one_size():
    fig, draw, calls = moving_dot(5)
    frames = render_frames(fig, draw, 5, dpi=50, colors=16)
    plt.close(fig)
    assert calls == [0, 1, 2, 3, 4] and len(frames) == 5
    sizes = set()
    for data in frames:
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
        with Image.open(io.BytesIO(data)) as im:
            assert im.mode == "P" and len(im.getcolors()) <= 16
            sizes.add(im.size)
    assert sizes == {(150, 100)}  # figsize (3, 2) at 50 dpi, every frame
    assert len(set(frames)) == 5  # the dot moved: every frame differs


def test_render_full_colour_png_and_svg():
    fig, draw, _ = moving_dot(3)
    full = render_frames(fig, draw, 3, dpi=50, colors=None)
    svg = render_frames(fig, draw, 3, fmt="svg")
    plt.close(fig)
    with Image.open(io.BytesIO(full[0])) as im:
        assert im.mode == "RGBA"
    assert len(svg) == 3 and all(
        f.lstrip().startswith(b"<?xml") and b"<svg" in f for f in svg
    )
    assert len(set(svg)) == 3  # the dot moved
    assert all(b"Date" not in f for f in svg)  # no date in the metadata: reproducible


def test_animate_returns_self_contained_html_with_every_frame():
    n = 6
    fig, draw, _ = moving_dot(n)
    anim = animate(
        fig, draw, n, dpi=40, interval=100, mode="loop", alt="a <moving> dot"
    )
    assert not plt.fignum_exists(fig.number)  # closed: no still image after the player
    assert anim.n_frames == n and len(anim.frames) == n
    page = anim._repr_html_()
    soup = BeautifulSoup(page, "html.parser")
    # offline: no external script, stylesheet or image; no URL at all outside the frames
    assert not soup.find_all("link") and not soup.find_all("script", src=True)
    assert "http" not in URI.sub("", page)
    assert len(soup.find_all("script")) == 1 and len(soup.find_all("img")) == 1
    img = soup.find("img")
    assert img["alt"] == "a <moving> dot"
    # every frame once: the last (initial by default) in the <img>, the others in the JS array
    entries = js_frames(page)
    assert len(entries) == n and entries[-1] == "null"
    decoded = [base64.b64decode(URI.fullmatch(e).group(2)) for e in entries[:-1]]
    decoded.append(base64.b64decode(URI.fullmatch(img["src"]).group(2)))
    assert decoded == list(anim.frames)
    assert len(URI.findall(page)) == n
    slider = soup.find("input", attrs={"type": "range"})
    assert slider["max"] == str(n - 1) and slider["value"] == str(n - 1)
    # mode="loop"
    assert soup.find("input", attrs={"type": "checkbox"}).has_attr("checked")
    assert "setInterval(tick, 100)" in page
    acts = [b["data-act"] for b in soup.find_all("button")]
    assert acts == ["first", "prev", "play", "next", "last"]


def test_initial_frame_and_ids():
    frames = [b"one", b"two", b"three"]
    a = Animation(frames, initial=0, mode="once")
    page = a.to_html()
    soup = BeautifulSoup(page, "html.parser")
    assert base64.b64decode(URI.fullmatch(soup.find("img")["src"]).group(2)) == b"one"
    assert js_frames(page)[0] == "null"
    assert not soup.find("input", attrs={"type": "checkbox"}).has_attr("checked")
    # two displays of one animation in a page do not share an element id
    ids = {BeautifulSoup(a.to_html(), "html.parser").div["id"] for _ in range(2)}
    assert len(ids) == 2
    assert Animation(frames, initial=-2).initial == 1
    assert repr(a) == "<Animation: 3 png frames, 11 bytes>"


def test_svg_frames_use_their_mime_type():
    fig, draw, _ = moving_dot(2)
    anim = animate(fig, draw, 2, fmt="svg")
    mimes = {m.group(1) for m in URI.finditer(anim.to_html())}
    assert mimes == {"image/svg+xml"}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"mode": "forever"}, "mode"),
        ({"initial": 4}, "initial"),
        ({"initial": -5}, "initial"),
        ({"fmt": "gif"}, "fmt"),
        ({"colors": 1}, "colors"),
        ({"colors": 300}, "colors"),
        ({"dpi": 0}, "dpi"),
        ({"interval": 0}, "interval"),
    ],
)
def test_bad_arguments_are_refused_before_drawing(kwargs, match):
    fig, draw, calls = moving_dot(4)
    with pytest.raises(ValueError, match=match):
        animate(fig, draw, 4, **kwargs)
    assert calls == [] and plt.fignum_exists(fig.number)
    plt.close(fig)


def test_bad_frames_are_refused():
    with pytest.raises(ValueError, match="frames"):
        Animation([])
    with pytest.raises(ValueError, match="frames"):
        Animation([b"x", b""])
    with pytest.raises(ValueError, match="n_frames"):
        render_frames(None, print, 0)
    assert animation.MIME["png"] == "image/png"
