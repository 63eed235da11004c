"""Package boundaries and import cycles among binlogwriter, generators and spark_gen (issue 12).

Reads every module's imports with ``ast`` and looks for strongly connected components: none
among the top-level imports (load-time cycles), and none either once the imports inside
functions are counted (a loop hidden in a function is still two modules that need each
other). The codec knows nothing of generation: no module of ``binlogwriter`` imports
``generators`` or ``spark_gen``, not even inside a function, nor names them to
``importlib.import_module`` / ``__import__``; the generator plugs in through entry points
(binlogwriter/plugins.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("binlogwriter", "generators", "spark_gen")


def _modules() -> dict[str, Path]:
    mods = {}
    for pkg in PACKAGES:
        for f in (ROOT / pkg).rglob("*.py"):
            parts = list(f.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join(parts)] = f
    return mods


def _type_checking(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): imports for annotations only."""
    if not isinstance(node, ast.If):
        return False
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or \
        (isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module, everywhere: bool) -> list[ast.stmt]:
    """The import statements of a module that run: top level only, or ``everywhere``
    (inside functions, classes, ``if``/``try`` blocks too); never those under ``if
    TYPE_CHECKING:``, which no interpreter runs."""
    if not everywhere:
        return [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    out: list[ast.stmt] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        elif not _type_checking(node):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _graph(mods: dict[str, Path], everywhere: bool = False) -> dict[str, set[str]]:
    def owner(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for mod, path in mods.items():
        deps: set[str] = set()
        for node in _imports(ast.parse(path.read_text()), everywhere):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    pkg = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
                    pkg = pkg[:len(pkg) - node.level + 1]
                    base = ".".join(pkg + ([base] if base else []))
                # ``from pkg import submodule`` depends on the submodule, not on pkg's body
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            else:
                continue
            deps.update(o for o in map(owner, names) if o and o != mod)
        graph[mod] = deps
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_checker_sees_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle() -> None:
    mods = _modules()
    assert "binlogwriter.events.table" in mods
    assert _cycles(_graph(mods)) == []


KNOWN_LOOPS: dict[tuple[str, str], str] = {}
"""Call-time imports that close a loop, each with its reason; every other loop fails the test
below, and an entry whose import is gone fails :func:`test_known_loops_still_exist` (then
delete it)."""


def test_no_import_cycle_inside_functions() -> None:
    """Counting the imports inside functions too: no two modules need each other."""
    graph = _graph(_modules(), everywhere=True)
    for a, b in KNOWN_LOOPS:
        graph.get(a, set()).discard(b)
    cycles = _cycles(graph)
    assert cycles == [], "\n".join(" <-> ".join(c) for c in cycles)


def test_known_loops_still_exist() -> None:
    graph = _graph(_modules(), everywhere=True)
    gone = [f"{a} -> {b}" for a, b in KNOWN_LOOPS if b not in graph.get(a, set())]
    assert gone == [], "no longer imported, remove from KNOWN_LOOPS: " + ", ".join(gone)


def test_the_checker_sees_a_cycle_inside_a_function(tmp_path: Path) -> None:
    a = tmp_path / "a.py"
    b = tmp_path / "b.py"
    a.write_text("import b\n")
    b.write_text("def f():\n    from a import x\n    return x\n")
    mods = {"a": a, "b": b}
    assert _cycles(_graph(mods)) == []
    assert _cycles(_graph(mods, everywhere=True)) == [["a", "b"]]
    b.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from a import x\n")
    assert _cycles(_graph(mods, everywhere=True)) == []  # annotations only: never imported


_GENERATION = ("generators", "spark_gen")


def _codec_reaches_generation(source: str, packages: tuple[str, ...] = _GENERATION) -> list[str]:
    """Places in a module's source that import one of ``packages`` (by default the generation
    packages, which the codec must not reach): an import statement anywhere, or a string
    naming one given to a dynamic import."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] if not node.level else []
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str) and (
                    (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                    or (isinstance(node.func, ast.Name) and node.func.id in ("__import__", "import_module"))):
            names = [node.args[0].value]
        else:
            continue
        bad += [f"line {node.lineno}: {n}" for n in names if n.split(".")[0] in packages]
    return bad


def test_the_codec_imports_nothing_of_generation() -> None:
    bad = []
    for mod, path in _modules().items():
        if mod.split(".")[0] == "binlogwriter":
            bad += [f"{mod} {b}" for b in _codec_reaches_generation(path.read_text())]
    assert bad == [], "\n".join(bad)


def test_the_local_engine_imports_nothing_of_spark() -> None:
    """Packages depend one way (binlogwriter <- generators <- spark_gen): the ``generate``
    command finds ``--engine spark`` through an entry point (generators/engines.py), so no
    module of ``generators`` imports ``spark_gen``, not even inside a function."""
    bad = []
    for mod, path in _modules().items():
        if mod.split(".")[0] == "generators":
            bad += [f"{mod} {b}" for b in _codec_reaches_generation(path.read_text(), ("spark_gen",))]
    assert bad == [], "\n".join(bad)


@pytest.mark.parametrize("source", [
    "import generators\n", "import spark_gen.job as j\n", "from generators.engine import Run\n",
    "def f():\n    from generators.truth import column_renderer\n",
    "import importlib\nimportlib.import_module('generators.cli')\n", "__import__('spark_gen')\n",
])
def test_the_boundary_checker_catches_what_it_forbids(source: str) -> None:
    assert _codec_reaches_generation(source)


def test_the_boundary_checker_allows_the_codec() -> None:
    assert _codec_reaches_generation("import binlogwriter.events\nfrom . import generated\n"
                                     "from binlogwriter.serve import generated\n") == []
