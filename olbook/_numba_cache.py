"""Where numba keeps olbook's compiled code, and when that code is stale.

Imported (for its side effect) by the modules that compile with numba before
they define a function: :mod:`olbook._validation`, :mod:`olbook._rowops` and
:mod:`olbook._kernel_cache`, on which every other compiled module builds.

numba's own cache has two weaknesses for a package like olbook:

* **Staleness.** A cached function is keyed by the file it is written in
  (its modification time and size). olbook's compiled functions call each other
  across modules (every learner's loop inlines :mod:`olbook._rowops`), so after a
  change to ``_rowops`` the learners' cached machine code, which has the old
  ``_rowops`` compiled into it, would still be used. Here every olbook function
  is keyed by a hash of *all* of olbook's sources (:data:`SOURCE_STAMP`): any
  change to any module recompiles everything on first use.
* **Where to write.** numba writes next to the source (``__pycache__``) or in
  the user's cache folder, and raises ``RuntimeError: cannot cache function ...:
  no locator available`` on import when neither is writable (a read-only
  install with an unwritable home, as in some containers and on shared
  machines). Here the first writable of ``NUMBA_CACHE_DIR`` (if set), the
  package's ``__pycache__``, the user's cache folder and the system's temporary
  folder is used; if none is, the functions are compiled in memory, uncached.

Functions outside olbook keep numba's own rules: the locator below declines
them.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from numba.core import caching, config

PACKAGE = Path(__file__).resolve().parent


def _source_stamp() -> str:
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


#: A hash of every olbook source file: the freshness key of every cached function.
SOURCE_STAMP = _source_stamp()


def cache_roots() -> list[Path]:
    """The folders tried for the cache, first writable wins."""
    roots = []
    if config.CACHE_DIR:
        roots.append(Path(config.CACHE_DIR) / "olbook")
    roots.append(PACKAGE / "__pycache__")
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache"
    )
    roots.append(Path(xdg) / "olbook" / "numba")
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "")
    try:
        roots.append(Path(tempfile.gettempdir()) / f"olbook-numba-{user}")
    except OSError:  # no usable temporary folder at all
        pass
    return roots


class OlbookCacheLocator(caching._CacheLocator):
    """Cache olbook's functions in the first writable root, keyed by :data:`SOURCE_STAMP`."""

    def __init__(self, py_func, py_file, root: Path):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        sub = Path(py_file).resolve().parent.relative_to(PACKAGE)
        self._cache_path = str(root / sub)

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return SOURCE_STAMP

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            Path(py_file).resolve().relative_to(PACKAGE)
        except (ValueError, OSError):
            return None
        for root in cache_roots():
            self = cls(py_func, py_file, root)
            try:
                self.ensure_cache_path()
            except OSError:
                continue
            return self
        return None


def _register() -> None:
    classes = caching.CacheImpl._locator_classes
    if OlbookCacheLocator not in classes:
        classes.insert(0, OlbookCacheLocator)


def _compile_uncached_when_nowhere_to_write() -> None:
    """Let ``cache=True`` fall back to compiling in memory for olbook's functions.

    numba raises from ``enable_caching`` when no locator accepts a function; for
    olbook's functions (and only those) the dispatcher then keeps its in-memory
    compilation, as it would without ``cache=True``.
    """
    from numba.core.dispatcher import Dispatcher

    if getattr(Dispatcher.enable_caching, "_olbook", False):
        return
    original = Dispatcher.enable_caching

    def enable_caching(self):
        try:
            original(self)
        except RuntimeError:
            file = getattr(getattr(self, "py_func", None), "__code__", None)
            if file is None or not str(Path(file.co_filename).resolve()).startswith(
                str(PACKAGE)
            ):
                raise

    enable_caching._olbook = True
    Dispatcher.enable_caching = enable_caching


_register()
_compile_uncached_when_nowhere_to_write()
