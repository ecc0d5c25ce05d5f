"""What a notebook prints: floats that print the same on every CPU, and olbook's source.

Two small helpers that every chapter uses (CONTRIBUTING, "Outputs are the same
on every CPU" and "The code the reader sees is the code that runs").
"""

from __future__ import annotations

import inspect
import math

__all__ = ["fmt", "show_source"]


def fmt(x: float, digits: int = 3) -> str:
    """Format ``x`` with ``digits`` decimals, refusing a value at a rounding near-tie.

    A computed float whose scaled value lies within a millionth of ``k + 1/2``
    could print differently on another CPU (``np.exp`` and ``np.log`` may differ
    in the last bit between SIMD paths). Such a value raises ``ValueError``
    instead of printing a digit that may not reproduce.

    Parameters
    ----------
    x : float
        The value to print (any real number; NaN and inf are refused).
    digits : int, default=3
        Decimals shown.

    Returns
    -------
    str
        ``f"{x:.{digits}f}"``.

    Raises
    ------
    ValueError
        If ``x`` is not finite or lies within 1e-6 (in units of the last digit) of a
        rounding tie.

    Examples
    --------
    >>> fmt(2.0 / 3.0)
    '0.667'
    >>> try:
    ...     fmt(0.1235, digits=3)
    ... except ValueError as err:
    ...     print(err)
    0.1235 is too close to a rounding tie to print with 3 decimals
    """
    v = float(x)
    if not math.isfinite(v):
        raise ValueError(f"cannot print {v!r}: not a finite number")
    scaled = abs(v) * 10**digits
    if abs(scaled - math.floor(scaled) - 0.5) <= 1e-6:
        raise ValueError(
            f"{v!r} is too close to a rounding tie to print with {digits} decimals"
        )
    return f"{v:.{digits}f}"


def show_source(obj):
    """Show the source code of an olbook function or class, syntax-highlighted.

    Returns an ``IPython.display.Code`` object, which Jupyter, Colab and the HTML
    book render highlighted (its plain-text form, which ``nbval`` compares, is
    the source itself). Without IPython it returns the source as a string.

    Parameters
    ----------
    obj : function, class or module
        Anything :func:`inspect.getsource` accepts; for a numba-compiled function
        the Python function it compiles is shown.
    """
    # numba's dispatcher keeps the Python function
    target = getattr(obj, "py_func", obj)
    src = inspect.getsource(target)
    try:
        from IPython.display import Code
    except ImportError:  # pragma: no cover - olbook without IPython
        return src
    return Code(src, language="python")
