"""Check that olbook works installed from a wheel, as readers and Colab install it.

Builds the sdist and the wheel into a temporary folder, checks that both hold
every module of the package (``olbook/data`` included), creates a fresh virtual
environment outside the source tree, installs the wheel there **non-editable**
with the ``book`` extra, and, from a folder that is not the source tree, imports
every public name of olbook and of its public modules, runs one learner, and
imports every module the notebooks import; then runs the same check once more
with site-packages, HOME and the temporary folder read-only (numba can cache
nowhere, and olbook must still work). Exits non-zero on the first failure.

    .venv/bin/python tools/check_install.py
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tarfile
import tempfile
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SMOKE = r"""
import importlib, sys, numpy as np
import olbook
assert "site-packages" in olbook.__file__, olbook.__file__  # the installed copy, not the source tree
missing = [n for n in olbook.__all__ if not hasattr(olbook, n)]
assert not missing, missing
for mod in ("data", "kernels", "plotting", "vc", "experts", "hedge", "ogd", "boosting", "display",
            "perceptron", "pocket", "margins", "svm"):
    m = importlib.import_module("olbook." + mod)
    for n in getattr(m, "__all__", []):
        getattr(m, n)
X, y, u = olbook.data.make_separable(200, 5, margin=0.1, random_state=0)
clf = olbook.Perceptron(max_iter=100).fit(X, y)
assert clf.converged_ and clf.n_updates_ <= olbook.perceptron_bound(X, y, u).bound
assert (clf.predict(X) == y).all()
for name in sys.argv[1:]:
    importlib.import_module(name)
print(f"olbook {olbook.__version__} installed from the wheel: {len(olbook.__all__)} public names, "
      f"a Perceptron ({clf.n_updates_} updates), and {len(sys.argv) - 1} notebook imports")
"""


def run(cmd: list[str], **kw) -> None:
    shown = [("<smoke test>" if c == SMOKE else str(c)) for c in cmd]
    print("+", " ".join(shown), flush=True)
    subprocess.run(cmd, check=True, **kw)


def notebook_imports() -> list[str]:
    """Top-level modules imported by the notebooks' code cells."""
    names = set()
    for nb in sorted((ROOT / "book").rglob("*.ipynb")):
        for cell in json.loads(nb.read_text())["cells"]:
            if cell["cell_type"] == "code":
                for line in "".join(cell["source"]).splitlines():
                    m = re.match(r"\s*(?:from|import)\s+([A-Za-z_]\w*)", line)
                    if m:
                        names.add(m.group(1))
    return sorted(names - {"olbook"})


def main() -> int:
    modules = sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "olbook").rglob("*.py")
        if "__pycache__" not in p.parts
    )
    with tempfile.TemporaryDirectory(prefix="olbook-install-") as tmp:
        tmp = Path(tmp)
        dist = tmp / "dist"
        run(
            [
                sys.executable,
                "-m",
                "build",
                "--sdist",
                "--wheel",
                "--outdir",
                str(dist),
                str(ROOT),
            ],
            stdout=subprocess.DEVNULL,
        )
        wheel = next(dist.glob("olbook-*.whl"))
        sdist = next(dist.glob("olbook-*.tar.gz"))
        in_wheel = set(zipfile.ZipFile(wheel).namelist())
        with tarfile.open(sdist) as tar:
            in_sdist = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
        for name, content in (("wheel", in_wheel), ("sdist", in_sdist)):
            lost = [m for m in modules if m not in content]
            if lost:
                print(
                    f"the {name} lacks {len(lost)} module(s): {lost}", file=sys.stderr
                )
                return 1
        for must in ("LICENSE",):
            if not any(n.endswith(must) for n in in_wheel):
                print(f"the wheel lacks {must}", file=sys.stderr)
                return 1
        print(f"{wheel.name} and {sdist.name}: all {len(modules)} modules present")
        env = tmp / "venv"
        venv.EnvBuilder(with_pip=True).create(env)
        py = env / "bin" / "python"
        run(
            [
                str(py),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                # not byte-compiled: pip compiles every file of numpy, scipy, SymPy ... one at
                # a time, about half of this step; the smoke tests compile what they import
                "--no-compile",
                f"{wheel}[book]",
            ]
        )
        run([str(py), "-c", SMOKE, *notebook_imports()], cwd=tmp)
        return read_only_smoke(py, env, tmp)


def read_only_smoke(py: Path, env: Path, tmp: Path) -> int:
    """The smoke test again with site-packages, HOME and the temporary folder read-only.

    numba cannot cache anywhere then; olbook must compile in memory instead of
    raising "no locator available" (olbook/_numba_cache.py). As root, permissions
    do not stop writes, so the folders are read-only bind mounts in a mount
    namespace (``unshare -m``); elsewhere they are made read-only with chmod.
    """
    home = tmp / "home"
    home.mkdir()
    ro_env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home)}
    ro_env.pop("NUMBA_CACHE_DIR", None)
    cmd = [str(py), "-c", SMOKE]
    if os.getuid() == 0:
        if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode:
            print("read-only install check skipped: unshare -m is not permitted here")
            return 0
        folders = (env, home, Path(tempfile.gettempdir()))
        mounts = " && ".join(
            f"mount --bind {d} {d} && mount -o remount,bind,ro {d}" for d in folders
        )
        cmd = ["unshare", "-m", "sh", "-c", f"{mounts} && exec {shlex.join(cmd)}"]
    else:
        for path in [home, env, *env.rglob("*")]:
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & ~0o222)
    print("read-only site-packages, HOME and temporary folder:", end=" ", flush=True)
    subprocess.run(cmd, check=True, cwd=tmp, env=ro_env)
    if os.getuid() != 0:  # let TemporaryDirectory remove them
        for path in [home, env, *env.rglob("*")]:
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o200)
    return 0


if __name__ == "__main__":
    sys.exit(main())
