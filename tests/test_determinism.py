"""No output of the book may depend on unseeded randomness, the clock, memory addresses or set order.

nbval (strict, under two CPU settings) re-runs every notebook and compares its text outputs, which
catches most of this once it happens; this test finds the causes in the source before they do, by
reading (never running) the code cells of every notebook and the modules of olbook:

- numpy's legacy global generator: ``np.random.<fn>(...)`` other than ``default_rng``,
  ``Generator``, ``SeedSequence`` and the bit generators (``np.random.seed`` included: global state);
  ``RandomState()`` without a seed;
- a generator without a seed: ``default_rng()``, ``default_rng(None)``;
- the standard library's ``random`` module: any ``random.<fn>(...)`` (its global generator), and
  ``random.Random()`` without a seed;
- an olbook function or class that draws random numbers (it has a ``random_state`` parameter whose
  default is None) called without ``random_state`` (found by introspection of olbook, so a new one is
  covered);
- the clock printed: a value read from ``time.time``, ``perf_counter``, ``monotonic``,
  ``process_time``, ``datetime.now`` / ``today`` / ``utcnow``, ``date.today`` (or a name assigned
  from such a call) in what a cell prints or shows (``print``, ``display``, its last expression);
  in olbook, any read of the clock;
- memory addresses and hashes: ``id(...)`` or ``hash(...)`` (olbook: outside ``__hash__``);
- set order: iterating, listing, joining or printing a set (a ``{...}`` literal, a set
  comprehension, ``set(...)``, ``frozenset(...)`` or a name assigned one) other than through
  ``sorted(...)``. String hashes change from run to run (PYTHONHASHSEED), and so does the order.

ALLOWED lists the exceptions with the reason for each; an exception that no longer matches anything
fails too, so that the list cannot rot.
"""

from __future__ import annotations

import ast
import inspect
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

import olbook

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(
    p for p in (ROOT / "book").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
)
MODULES = sorted((ROOT / "olbook").rglob("*.py"))

NP_RANDOM_OK = {
    "default_rng",
    "Generator",
    "SeedSequence",
    "BitGenerator",
    "PCG64",
    "PCG64DXSM",
    "MT19937",
    "Philox",
    "SFC64",
}
CLOCK = {
    ("time", "time"),
    ("time", "perf_counter"),
    ("time", "monotonic"),
    ("time", "process_time"),
    ("time", "time_ns"),
    ("time", "perf_counter_ns"),
    ("time", "monotonic_ns"),
    ("datetime", "now"),
    ("datetime", "today"),
    ("datetime", "utcnow"),
    ("date", "today"),
}
CLOCK_NAMES = {
    "perf_counter",
    "monotonic",
    "process_time",
    "time_ns",
    "perf_counter_ns",
    "monotonic_ns",
}
SHOW = {"print", "display", "Markdown", "HTML", "Latex"}
ORDER_CONSUMERS = {
    "list",
    "tuple",
    "enumerate",
    "zip",
    "print",
    "display",
    "next",
    "iter",
    "reversed",
}

# (file relative to the repository, rule, a piece of the offending line): why it is allowed.
# (olbook's `hash` in a kernel's __hash__ is not an exception: hash() in __hash__ is never flagged.)
ALLOWED: dict[tuple[str, str, str], str] = {}


@dataclass(frozen=True)
class Finding:
    where: str  # file, with the cell for a notebook
    line: int
    rule: str
    text: str

    def __str__(self) -> str:
        return f"{self.where}, line {self.line}: {self.rule}: {self.text}"


def dotted(node: ast.AST) -> str:
    """'np.random.rand' for the expression np.random.rand; '' if it is not a dotted name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def bound_names(target: ast.AST) -> set[str]:
    """The variables an assignment target binds or changes: `a`, `a, b`, the `a` of a[i] or a.x."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Tuple | ast.List):
        return (
            set().union(*(bound_names(t) for t in target.elts))
            if target.elts
            else set()
        )
    if isinstance(target, ast.Starred):
        return bound_names(target.value)
    if isinstance(target, ast.Subscript | ast.Attribute):
        return bound_names(target.value)
    return set()


def random_state_callables() -> dict[str, int]:
    """Public olbook callables that draw random numbers: name -> position of `random_state`."""
    found: dict[str, int] = {}
    for module in (olbook, olbook.data):
        for name in getattr(module, "__all__", dir(module)):
            obj = getattr(module, name, None)
            if not callable(obj) or name.startswith("_"):
                continue
            try:
                params = list(inspect.signature(obj).parameters.values())
            except (TypeError, ValueError):
                continue
            for i, p in enumerate(params):
                if p.name == "random_state" and p.default is None:
                    found[name] = i
    return found


RANDOM_STATE = random_state_callables()


class Scanner(ast.NodeVisitor):
    """Collects findings in one piece of code (a module, or a notebook's cells in order)."""

    def __init__(self, library: bool) -> None:
        self.library = (
            library  # olbook: stricter on the clock, hash() allowed in __hash__
        )
        self.findings: list[tuple[int, str, str]] = []
        self.clock_names: set[str] = set()  # names assigned a value read from the clock
        self.set_names: set[str] = set()  # names assigned a set
        self.function: list[str] = []
        self.source_lines: list[str] = []
        self.stdlib_random = False  # `import random` seen (not numpy's)

    def add(self, node: ast.AST, rule: str) -> None:
        line = (
            self.source_lines[node.lineno - 1].strip()
            if node.lineno <= len(self.source_lines)
            else ""
        )
        self.findings.append((node.lineno, rule, line))

    # --- helpers -------------------------------------------------------------------------------
    def reads_clock(self, node: ast.AST) -> bool:
        """Is `node` a time: it calls the clock, or is arithmetic on a time (t1 - t0, elapsed / n)?"""
        if any(
            isinstance(sub, ast.Call)
            and (
                tuple(dotted(sub.func).split(".")[-2:]) in CLOCK
                or dotted(sub.func) in CLOCK_NAMES
            )
            for sub in ast.walk(node)
        ):
            return True
        arithmetic = isinstance(
            node, ast.BinOp | ast.UnaryOp | ast.Name | ast.Subscript
        ) or (
            isinstance(node, ast.Call)
            and dotted(node.func) in {"round", "float", "int", "min", "max", "abs"}
        )
        return arithmetic and self.is_clock(node)

    def is_clock(self, node: ast.AST) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                name = dotted(sub.func)
                parts = tuple(name.split(".")[-2:])
                if parts in CLOCK or name in CLOCK_NAMES:
                    return True
            if isinstance(sub, ast.Name) and sub.id in self.clock_names:
                return True
        return False

    def is_set(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Set | ast.SetComp):
            return True
        if isinstance(node, ast.Call) and dotted(node.func) in {"set", "frozenset"}:
            return True
        return isinstance(node, ast.Name) and node.id in self.set_names

    # --- visitors ------------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        if any(
            alias.name == "random" and alias.asname in (None, "random")
            for alias in node.names
        ):
            self.stdlib_random = True
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.function.append(node.name)
        self.generic_visit(node)
        self.function.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node: ast.Assign) -> None:
        targets = set().union(*(bound_names(t) for t in node.targets))
        if self.reads_clock(node.value):
            self.clock_names |= targets
        if self.is_set(node.value):
            self.set_names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self.set_names.discard(node.targets[0].id)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if self.reads_clock(node.value):
            self.clock_names |= bound_names(node.target)
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        if self.is_set(node.iter):
            self.add(node, "iteration over a set (order of hashes): use sorted(...)")
        self.generic_visit(node)

    def ordered_comprehension(self, node: ast.ListComp | ast.DictComp) -> None:
        # a set comprehension over a set is a set again: no order is made
        for generator in node.generators:
            if self.is_set(generator.iter):
                self.add(
                    generator.iter,
                    "comprehension over a set (order of hashes): use sorted(...)",
                )
        self.generic_visit(node)

    visit_ListComp = visit_DictComp = ordered_comprehension

    def visit_Call(self, node: ast.Call) -> None:
        name = dotted(node.func)
        parts = name.split(".")
        # numpy's global generator, and generators without a seed
        if len(parts) >= 3 and parts[-3] in ("np", "numpy") and parts[-2] == "random":
            if parts[-1] not in NP_RANDOM_OK and parts[-1] != "RandomState":
                self.add(
                    node,
                    f"numpy's global generator ({name}): use np.random.default_rng(seed)",
                )
        if parts[-1] in ("default_rng", "RandomState", "check_random_state") and (
            not node.args
            and not node.keywords
            or node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value is None
        ):
            self.add(node, f"a generator without a seed ({name}())")
        # the standard library's random module
        if self.stdlib_random and len(parts) == 2 and parts[0] == "random":
            if parts[1] == "Random":
                if not node.args and not node.keywords:
                    self.add(node, "random.Random() without a seed")
            else:
                self.add(node, f"the random module's global generator ({name})")
        # olbook's random draws without random_state
        if parts[-1] in RANDOM_STATE and (
            len(parts) == 1 or parts[0] in ("olbook", "data")
        ):
            position = RANDOM_STATE[parts[-1]]
            if (
                not any(k.arg == "random_state" for k in node.keywords)
                and len(node.args) <= position
                and not any(isinstance(a, ast.Starred) for a in node.args)
                and not any(k.arg is None for k in node.keywords)
            ):
                self.add(node, f"{parts[-1]} draws random numbers: pass random_state")
        # id() and hash()
        if name in ("id", "hash") and not (
            self.library and self.function and self.function[-1] == "__hash__"
        ):
            self.add(node, name)
        # the clock
        if self.library and (tuple(parts[-2:]) in CLOCK or name in CLOCK_NAMES):
            self.add(node, f"olbook reads the clock ({name})")
        if name in SHOW and any(
            self.is_clock(a) for a in [*node.args, *(k.value for k in node.keywords)]
        ):
            self.add(node, f"the clock printed ({name}(...) shows a time)")
        # set order consumed
        joins = isinstance(node.func, ast.Attribute) and node.func.attr == "join"
        if (
            (name in ORDER_CONSUMERS or joins)
            and node.args
            and self.is_set(node.args[0])
        ):
            self.add(node, f"{name}(a set): the order of hashes; use sorted(...)")
        self.generic_visit(node)

    # --- entry points --------------------------------------------------------------------------
    def scan(self, source: str, shows_last: bool) -> None:
        self.source_lines = source.splitlines()
        tree = ast.parse(source)
        self.visit(tree)
        if shows_last and tree.body and isinstance(tree.body[-1], ast.Expr):
            last = tree.body[-1].value
            if self.is_clock(last):
                self.add(last, "the clock shown (the cell's last expression is a time)")
            if self.is_set(last):
                self.add(
                    last,
                    "a set shown (the cell's last expression): the order of hashes; use sorted(...)",
                )
            if isinstance(last, ast.Call) and dotted(last.func) in ("id", "hash"):
                self.add(last, "an id() or hash() shown")


def code_cells(path: Path) -> list[tuple[int, str]]:
    """(cell number, source) of the code cells, IPython magics and shell lines blanked."""
    cells = []
    for number, cell in enumerate(
        json.loads(path.read_text(encoding="utf-8"))["cells"]
    ):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        try:
            ast.parse(source)
        except SyntaxError:  # IPython magics (%time, !pip): blanked
            lines = [
                "" if line.lstrip().startswith(("%", "!")) else line
                for line in source.splitlines()
            ]
            source = "\n".join(lines)
        cells.append((number, source))
    return cells


def scan_notebook(path: Path) -> list[Finding]:
    scanner = Scanner(library=False)  # one scanner per notebook: its cells share names
    findings = []
    rel = path.relative_to(ROOT).as_posix()
    for number, source in code_cells(path):
        scanner.findings = []
        scanner.scan(source, shows_last=True)
        findings += [
            Finding(f"{rel} (cell {number})", line, rule, text)
            for line, rule, text in scanner.findings
        ]
    return findings


def scan_module(path: Path) -> list[Finding]:
    scanner = Scanner(library=True)
    scanner.scan(path.read_text(encoding="utf-8"), shows_last=False)
    rel = path.relative_to(ROOT).as_posix()
    return [Finding(rel, line, rule, text) for line, rule, text in scanner.findings]


def allowed(finding: Finding) -> bool:
    file = finding.where.split(" (cell")[0]
    return any(
        file == f
        and finding.rule.split(" ")[0] == rule.split(" ")[0]
        and piece in finding.text
        for (f, rule, piece) in ALLOWED
    )


def scan_source(source: str, library: bool = False) -> list[str]:
    """The rules a snippet breaks (for the tests of the scanner itself)."""
    scanner = Scanner(library=library)
    scanner.scan(source, shows_last=not library)
    return [rule for _, rule, _ in scanner.findings]


# --- the checks ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT / "book").as_posix()
)
def test_notebook_is_deterministic(path: Path) -> None:
    bad = [f for f in scan_notebook(path) if not allowed(f)]
    assert not bad, "sources of non-deterministic output:\n" + "\n".join(map(str, bad))


def test_olbook_is_deterministic() -> None:
    bad = [f for path in MODULES for f in scan_module(path) if not allowed(f)]
    assert not bad, "sources of non-deterministic output in olbook:\n" + "\n".join(
        map(str, bad)
    )


def test_every_allowed_exception_is_used() -> None:
    found = [f for path in MODULES for f in scan_module(path)]
    found += [f for path in NOTEBOOKS for f in scan_notebook(path)]
    for (file, rule, piece), reason in ALLOWED.items():
        assert reason
        assert any(
            f.where.split(" (cell")[0] == file
            and f.rule.split(" ")[0] == rule
            and piece in f.text
            for f in found
        ), f"ALLOWED entry matches nothing any more: {file}, {rule}, {piece!r}"


def test_there_is_something_to_scan() -> None:
    assert len(NOTEBOOKS) >= 40 and len(MODULES) >= 20
    assert {"make_separable", "Pocket", "BudgetPerceptron"} <= set(RANDOM_STATE)


# --- the scanner finds what it should, and only that --------------------------------------------


@pytest.mark.parametrize(
    "source, rule",
    [
        ("import numpy as np\nx = np.random.rand(3)", "numpy's global generator"),
        ("import numpy as np\nnp.random.seed(0)", "numpy's global generator"),
        ("import numpy as np\nnp.random.shuffle(a)", "numpy's global generator"),
        (
            "import numpy as np\nrng = np.random.default_rng()",
            "a generator without a seed",
        ),
        (
            "import numpy as np\nrng = np.random.default_rng(None)",
            "a generator without a seed",
        ),
        (
            "from numpy.random import default_rng\nrng = default_rng()",
            "a generator without a seed",
        ),
        (
            "import numpy as np\nrs = np.random.RandomState()",
            "a generator without a seed",
        ),
        ("import random\nrandom.shuffle(a)", "the random module's global generator"),
        ("import random\nr = random.Random()", "random.Random() without a seed"),
        (
            "import olbook\nX, y, u = olbook.data.make_separable(100, 2, margin=0.1)",
            "make_separable draws",
        ),
        ("from olbook import Pocket\nclf = Pocket(max_updates=5)", "Pocket draws"),
        (
            "import time\nt0 = time.time()\nprint(f'took {time.time() - t0:.2f} s')",
            "the clock printed",
        ),
        (
            "import time\nstart = time.perf_counter()\nelapsed = time.perf_counter() - start\nprint(elapsed)",
            "the clock printed",
        ),
        ("from datetime import datetime\nprint(datetime.now())", "the clock printed"),
        (
            "import time\nt0 = time.time()\nt1 = time.time()\nrate = n / (t1 - t0)\nprint(rate)",
            "the clock printed",
        ),
        ("from datetime import datetime\ndatetime.now()", "the clock shown"),
        ("print(id(obj))", "id"),
        ("print(hash('a'))", "hash"),
        ("for name in {'a', 'b'}:\n    print(name)", "iteration over a set"),
        ("s = set(words)\nfor w in s:\n    print(w)", "iteration over a set"),
        ("print(', '.join(set(words)))", "(a set)"),
        ("names = list({w for w in words})", "list(a set)"),
        ("s = set(words)\nfirst = [w for w in s]", "comprehension over a set"),
        ("{'a', 'b'}", "a set shown"),
    ],
)
def test_scanner_finds(source: str, rule: str) -> None:
    assert any(rule in found for found in scan_source(source)), (
        source,
        scan_source(source),
    )


@pytest.mark.parametrize(
    "source",
    [
        "import numpy as np\nrng = np.random.default_rng(0)\nx = rng.normal(size=3)",
        "import numpy as np\nrng = np.random.default_rng(SEED)",
        "import numpy as np\ng = np.random.Generator(np.random.PCG64(1))",
        "import random\nr = random.Random(3)\nr.shuffle(a)",
        "import olbook\nX, y, u = olbook.data.make_separable(100, 2, margin=0.1, random_state=0)",
        "import olbook\nX, y, u = olbook.data.make_separable(100, 2, 0.1, 1.0, rng)",
        "import time\nstart = time.perf_counter()\nseconds = time.perf_counter() - start\nprint('done')",
        "for name in sorted({'a', 'b'}):\n    print(name)",
        "print(', '.join(sorted(set(words))))",
        "assert set(a) == {1, 2}",
        "n = len(set(values))",
        "s = set(words)\nt = {w.upper() for w in s}",
        "import time\nt = {}\nt[name, k] = time.perf_counter()\nprint(name, k)",
        "import time\ns = time.perf_counter() - t0\nresults = {'seconds': s, 'n': 3}\nprint(results['n'])",
    ],
)
def test_scanner_passes(source: str) -> None:
    assert scan_source(source) == []


def test_library_rules() -> None:
    assert any(
        "reads the clock" in r
        for r in scan_source("import time\nt = time.time()", library=True)
    )
    assert (
        scan_source(
            "class K:\n    def __hash__(self):\n        return hash((1, 2))",
            library=True,
        )
        == []
    )
    assert scan_source("def f(x):\n    return hash(x)", library=True) == ["hash"]
