"""Where every benchmark script records what it measured: ``benchmarks/results/<name>.json``.

Each file holds the machine's description (CPU model, cores, OS, versions of Python,
NumPy, SciPy, scikit-learn and numba, the date) and a list of rows, one per measured
case, as plain JSON. The appendix page "How fast is olbook?" reads these files; building
the book reruns nothing.

    from _results import save
    save("perceptron", rows=[{"case": "one pass, 200000 x 100", "olbook_s": 0.05,
                              "sklearn_s": 0.12, "ratio": 2.4, "target": 3.0}])

Keys the appendix page understands: ``case`` (what was measured); a row measured
against a target has ``ratio`` and ``target`` (met when ``ratio >= target``, a
speed-up, unless ``target_kind`` contains ``"<="``: then met when ``ratio <=
target``, e.g. a time over a reference's) or ``seconds`` and ``target_s`` (met when
``seconds <= target_s``), and ``met`` (bool). Every other key is shown as it is.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> dict:
    """The machine and the versions a measurement depends on."""
    import numba
    import numpy
    import scipy
    import sklearn

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "sklearn": sklearn.__version__,
        "numba": numba.__version__,
        "date": datetime.date.today().isoformat(),
    }


def save(name: str, rows: list[dict], notes: str = "") -> Path:
    """Write ``rows`` (a list of flat dicts of str/int/float/bool/None) to ``results/<name>.json``."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    payload = {"benchmark": name, "machine": machine(), "notes": notes, "rows": rows}
    path.write_text(json.dumps(payload, indent=1, sort_keys=False) + "\n")
    print(f"results written to {path.relative_to(RESULTS.parent.parent)}")
    return path
