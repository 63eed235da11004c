"""spark_gen depends only on public names of generators and binlogwriter, and its library
modules never import the command line (generators/cli.py dispatches to spark_gen.job, so
an import back would be a cycle; the command line of ``python -m spark_gen`` lives in the
entry script spark_gen/__main__.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import spark_gen

_ROOT = Path(spark_gen.__file__).parent
_MODULES = sorted(p for p in _ROOT.glob("*.py") if p.name != "__main__.py")
_OURS = ("generators", "binlogwriter")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _violations(source: str, name: str) -> list[str]:
    tree = ast.parse(source)
    bad: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in _OURS:
            if node.module == "generators.cli":
                bad.append(f"{name}:{node.lineno}: imports the CLI (generators.cli)")
            if any(_private(p) for p in node.module.split(".")):
                bad.append(f"{name}:{node.lineno}: private module {node.module}")
            bad += [f"{name}:{node.lineno}: private name {node.module}.{a.name}" for a in node.names
                    if _private(a.name)]
        elif isinstance(node, ast.Import):
            bad += [f"{name}:{node.lineno}: imports {a.name}" for a in node.names
                    if a.name.split(".")[0] in _OURS and (a.name == "generators.cli"
                                                            or any(_private(p) for p in a.name.split(".")))]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls", "SparkContext"):
                continue  # its own classes' attributes; pyspark's gateway start-up
            bad.append(f"{name}:{node.lineno}: private attribute .{node.attr}")
    return bad


@pytest.mark.parametrize("path", _MODULES, ids=lambda p: p.name)
def test_only_public_names_of_the_generator_and_the_codec(path: Path) -> None:
    bad = _violations(path.read_text(encoding="utf-8"), path.name)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("source", ["from generators.engine import _scan_file\n", "import generators.cli\n",
                                    "from generators.cli import generate\n", "from binlogwriter._collations import x\n",
                                    "def f(run):\n    return run._do_ddl\n"])
def test_the_checker_catches_what_it_forbids(source: str) -> None:
    assert _violations(source, "m.py")
