"""Figures the book draws again and again (matplotlib).

Each function draws on the axes it is given (or the current ones) and returns them.
"""

from __future__ import annotations

import numpy as np

from ._base import Trace
from ._validation import check_X_y

__all__ = ["plot_data_2d", "plot_separator_2d", "plot_mistakes_vs_bound"]


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.gca()
    return ax


def plot_data_2d(X, y, ax=None, *, size: float = 30.0):
    """Scatter 2-D examples: +1 as blue circles, -1 as red crosses (the book's convention)."""
    Xa, ya = check_X_y(X, y)
    if Xa.shape[1] != 2:
        raise ValueError(f"plot_data_2d needs 2 features; X has {Xa.shape[1]}.")
    ax = _axes(ax)
    pos, neg = ya > 0, ya < 0
    ax.scatter(
        Xa[pos, 0],
        Xa[pos, 1],
        s=size,
        marker="o",
        facecolors="none",
        edgecolors="tab:blue",
        label="$y=+1$",
    )
    ax.scatter(
        Xa[neg, 0], Xa[neg, 1], s=size, marker="x", color="tab:red", label="$y=-1$"
    )
    ax.set_aspect("equal", adjustable="box")
    return ax


def plot_separator_2d(w, b: float = 0.0, ax=None, *, normal: bool = False, **line_kw):
    r"""Draw the line :math:`w_1 x_1 + w_2 x_2 + b = 0` across the current view.

    With ``normal=True`` also draw the vector :math:`\mathbf w` as an arrow from
    the point of the line closest to the origin (it points to the +1 side).
    """
    wa = np.asarray(w, dtype=np.float64).ravel()
    if wa.shape != (2,):
        raise ValueError(f"w must have 2 entries; got shape {wa.shape}.")
    norm2 = float(wa @ wa)
    if norm2 == 0.0:
        raise ValueError("w is the zero vector: it defines no line.")
    ax = _axes(ax)
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    span = 2.0 * max(abs(x0), abs(x1), abs(y0), abs(y1), 1.0)
    p = -b * wa / norm2  # point of the line closest to the origin
    direction = np.array([-wa[1], wa[0]]) / np.sqrt(norm2)
    ends = np.array([p - span * direction, p + span * direction])
    line_kw.setdefault("color", "k")
    (line,) = ax.plot(ends[:, 0], ends[:, 1], **line_kw)
    if normal:
        ax.annotate(
            "",
            xy=p + wa,
            xytext=p,
            arrowprops={"arrowstyle": "->", "color": line.get_color(), "lw": 1.5},
        )
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    return ax


def plot_mistakes_vs_bound(
    trace, bound: float | None = None, ax=None, *, what: str = "mistakes", label=None
):
    """Cumulative mistakes (or updates) per round, with a bound as a dashed horizontal line.

    Parameters
    ----------
    trace : Trace or array_like of bool
        A learner's ``trace_`` or a per-round boolean array.
    bound : float, optional
        Drawn as a horizontal line labelled "bound".
    what : {"mistakes", "updates"}
        Which count of a :class:`~olbook._base.Trace` to draw.
    """
    if what not in ("mistakes", "updates"):
        raise ValueError(f"what must be 'mistakes' or 'updates'; got {what!r}.")
    if isinstance(trace, Trace):
        flags = trace.mistakes if what == "mistakes" else trace.updates
    else:
        flags = np.asarray(trace, dtype=bool).ravel()
    ax = _axes(ax)
    rounds = np.arange(1, flags.size + 1)
    ax.step(rounds, np.cumsum(flags), where="post", label=label or f"cumulative {what}")
    if bound is not None:
        ax.axhline(bound, color="k", ls="--", lw=1, label="bound")
    ax.set_xlabel("round $t$")
    ax.set_ylabel(f"{what} up to round $t$")
    return ax
