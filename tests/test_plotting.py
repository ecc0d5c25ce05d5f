"""olbook.plotting draws what it says on the Agg backend (set in conftest)."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.text import Annotation

import olbook
from olbook.plotting import plot_data_2d, plot_mistakes_vs_bound, plot_separator_2d


def test_backend_is_agg():
    assert matplotlib.get_backend().lower() == "agg"


def test_plot_data_2d():
    X = np.array([[0.0, 1.0], [1.0, 2.0], [3.0, -1.0], [-2.0, 0.5], [0.5, 0.5]])
    y = np.array([1.0, 1.0, -1.0, 1.0, -1.0])
    fig, ax = plt.subplots()
    out = plot_data_2d(X, y, ax)
    assert out is ax
    cols = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(cols) == 2
    pos, neg = cols
    assert np.array_equal(np.asarray(pos.get_offsets()), X[y > 0])
    assert np.array_equal(np.asarray(neg.get_offsets()), X[y < 0])
    _, labels = ax.get_legend_handles_labels()
    assert labels == ["$y=+1$", "$y=-1$"]
    assert ax.get_aspect() == 1.0


def test_plot_data_2d_uses_current_axes():
    fig, ax = plt.subplots()
    out = plot_data_2d([[1.0, 2.0], [2.0, 1.0]], [1, -1])
    assert out is ax and len(ax.collections) == 2


@pytest.mark.parametrize(
    ("X", "y", "match"),
    [
        (np.zeros((3, 3)), [1, -1, 1], "needs 2 features"),
        (np.zeros((3, 2)), [0, 1, 1], r"found \{0, 1\}"),
        ([[np.nan, 0.0]], [1], "non-finite"),
        (np.zeros((3, 2)), [1, -1], "shape mismatch"),
    ],
)
def test_plot_data_2d_rejects(X, y, match):
    with pytest.raises(ValueError, match=match):
        plot_data_2d(X, y)


@pytest.mark.parametrize(
    ("w", "b"),
    [((1.0, 1.0), 0.0), ((2.0, -1.0), 1.5), ((0.0, 3.0), -2.0), ((1.0, 0.0), 0.5)],
)
def test_plot_separator_2d_draws_the_line(w, b):
    fig, ax = plt.subplots()
    ax.set_xlim(-3, 3)
    ax.set_ylim(-2, 4)
    out = plot_separator_2d(w, b, ax, color="tab:green", ls=":")
    assert out is ax
    assert len(ax.lines) == 1
    line = ax.lines[0]
    pts = np.column_stack([line.get_xdata(), line.get_ydata()])
    assert np.allclose(pts @ np.asarray(w) + b, 0.0, atol=1e-9)
    # It spans the whole view and leaves the limits alone.
    assert np.ptp(pts[:, 0]) >= 6 or np.ptp(pts[:, 1]) >= 6
    assert ax.get_xlim() == (-3, 3) and ax.get_ylim() == (-2, 4)
    assert line.get_linestyle() == ":"
    assert matplotlib.colors.same_color(line.get_color(), "tab:green")
    assert not [t for t in ax.texts if isinstance(t, Annotation)]


def test_plot_separator_2d_normal_arrow():
    fig, ax = plt.subplots()
    ax.set_xlim(-2, 2)
    ax.set_ylim(-2, 2)
    w, b = np.array([1.0, 1.0]), -1.0
    plot_separator_2d(w, b, ax, normal=True)
    arrows = [t for t in ax.texts if isinstance(t, Annotation)]
    assert len(arrows) == 1
    # From the point of the line closest to the origin, -b w/|w|^2 = (0.5, 0.5), to that point + w.
    assert np.allclose(arrows[0].xyann, [0.5, 0.5]) and np.allclose(
        arrows[0].xy, [1.5, 1.5]
    )
    assert matplotlib.colors.same_color(ax.lines[0].get_color(), "k")


@pytest.mark.parametrize(
    ("w", "match"), [([0.0, 0.0], "zero vector"), ([1.0, 2.0, 3.0], "2 entries")]
)
def test_plot_separator_2d_rejects(w, match):
    with pytest.raises(ValueError, match=match):
        plot_separator_2d(w)


def test_plot_mistakes_vs_bound_from_trace():
    X, y, u = olbook.data.make_separable(40, 3, margin=0.1, random_state=0)
    p = olbook.Perceptron().fit(X, y)
    bound = olbook.perceptron_bound(X, y, u).bound
    fig, ax = plt.subplots()
    out = plot_mistakes_vs_bound(p.trace_, bound, ax)
    assert out is ax
    assert len(ax.lines) == 2
    step, hline = ax.lines
    assert np.array_equal(step.get_xdata(), np.arange(1, 41))
    assert np.array_equal(step.get_ydata(), np.cumsum(p.trace_.mistakes))
    assert step.get_ydata()[-1] == p.mistakes_
    assert step.get_drawstyle() == "steps-post"
    assert np.allclose(hline.get_ydata(), [bound, bound])
    assert hline.get_linestyle() == "--"
    _, labels = ax.get_legend_handles_labels()
    assert labels == ["cumulative mistakes", "bound"]
    assert ax.get_xlabel() == "round $t$"
    assert ax.get_ylabel() == "mistakes up to round $t$"


def test_plot_mistakes_vs_bound_updates_and_arrays():
    p = olbook.Perceptron().fit([[1.0, 0.0], [0.0, 1.0], [2.0, 0.0]], [-1, -1, 1])
    # rounds: tie y=-1 (update only), tie y=-1 (update only), f=-2 y=+1 (mistake, update)
    fig, ax = plt.subplots()
    plot_mistakes_vs_bound(p.trace_, ax=ax, what="updates", label="PLA")
    assert len(ax.lines) == 1
    assert ax.lines[0].get_ydata().tolist() == [1, 2, 3]
    assert ax.get_legend_handles_labels()[1] == ["PLA"]
    assert ax.get_ylabel() == "updates up to round $t$"
    fig, ax = plt.subplots()
    plot_mistakes_vs_bound(p.trace_, 5.0, ax=ax)
    assert ax.lines[0].get_ydata().tolist() == [0, 0, 1]
    assert np.allclose(ax.lines[1].get_ydata(), 5.0)
    fig, ax = plt.subplots()
    plot_mistakes_vs_bound(np.array([True, False, True, True]), ax=ax)
    assert ax.lines[0].get_ydata().tolist() == [1, 1, 2, 3]


def test_plot_mistakes_vs_bound_rejects():
    with pytest.raises(ValueError, match="what must be 'mistakes' or 'updates'"):
        plot_mistakes_vs_bound(olbook.Trace(), what="errors")


def test_figures_are_closed_between_tests():
    assert plt.get_fignums() == []


def test_fixed_limits_are_kept_beside_equal_aspect(caplog):
    """An equal aspect must not override limits the reader sets (matplotlib would log that it ignores them)."""
    X, y, u = olbook.data.make_separable(30, 2, margin=0.1, random_state=0)
    fig, ax = plt.subplots()
    plot_data_2d(X, y, ax)
    plot_separator_2d(u, ax=ax)
    ax.set_xlim(-1.0, 1.0)
    ax.set_ylim(-1.0, 1.0)
    with caplog.at_level("WARNING", logger="matplotlib"):
        fig.canvas.draw()
    assert ax.get_aspect() == 1.0
    assert ax.get_xlim() == (-1.0, 1.0) and ax.get_ylim() == (-1.0, 1.0)
    assert not [r for r in caplog.records if "Ignoring fixed" in r.getMessage()]
    plt.close(fig)
