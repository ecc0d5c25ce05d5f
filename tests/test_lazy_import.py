"""``import olbook`` is lazy: it loads none of the heavy libraries, and every public name resolves.

Issue 16 asks for ``import olbook`` in at most 0.5 s warm; benchmarks/imports.py measures
the time. This test checks the mechanism that makes it so, in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys

import olbook

HEAVY = ("numpy", "scipy", "sklearn", "numba", "matplotlib")


def _fresh(code: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout)


def test_import_olbook_loads_no_heavy_library():
    loaded = _fresh(
        "import json, sys; import olbook; "
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    )
    assert loaded == []


def test_first_use_imports_the_learner_and_numpy():
    loaded = _fresh(
        "import json, sys; import olbook; olbook.Perceptron; "
        "print(json.dumps(['numpy' in sys.modules, 'olbook.perceptron' in sys.modules]))"
    )
    assert loaded == [True, True]


def test_every_public_name_resolves_and_dir_lists_it():
    names = set(dir(olbook))
    for name in olbook.__all__:
        assert name in names, name
        assert getattr(olbook, name) is not None, name


def test_star_import_gives_all():
    ns: dict = {}
    exec("from olbook import *", ns)
    assert set(olbook.__all__) <= set(ns)


def test_unknown_name_is_an_attribute_error():
    try:
        olbook.NoSuchLearner  # noqa: B018
    except AttributeError as e:
        assert "NoSuchLearner" in str(e)
    else:
        raise AssertionError("olbook.NoSuchLearner resolved")
