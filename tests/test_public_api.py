"""The names users start from: importable from ``binlogwriter`` (lazily), and the two import
paths the docs gave before the packages-by-concept move still work, with a DeprecationWarning."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import binlogwriter

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(binlogwriter.PUBLIC_HOMES))
def test_top_level_name_is_the_defining_modules(name: str) -> None:
    home = importlib.import_module(binlogwriter.PUBLIC_HOMES[name])
    assert getattr(binlogwriter, name) is getattr(home, name)
    assert name in dir(binlogwriter)


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        binlogwriter.Nope  # noqa: B018


def test_import_binlogwriter_imports_nothing_else() -> None:
    code = "import sys, binlogwriter; print(sorted(m for m in sys.modules if m.startswith(('binlogwriter.', 'numpy', 'construct'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("old,new", [("binlogwriter.writer", "binlogwriter.write.writer"),
                                     ("binlogwriter.transaction", "binlogwriter.write.transaction")])
def test_old_import_paths_warn_and_give_the_same_objects(old: str, new: str) -> None:
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mod = importlib.import_module(old)
    assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message) for w in caught)
    target = importlib.import_module(new)
    assert mod.__all__ == target.__all__
    assert all(getattr(mod, n) is getattr(target, n) for n in target.__all__)


def test_nothing_in_the_project_imports_the_old_paths() -> None:
    users = []
    for pkg in ("binlogwriter", "generators", "spark_gen", "tests", "bench", "tools"):
        for p in (ROOT / pkg).rglob("*.py"):
            text = p.read_text(encoding="utf-8")
            if p.name != "test_public_api.py" and ("binlogwriter.writer import" in text
                                                   or "binlogwriter.transaction import" in text):
                users.append(str(p.relative_to(ROOT)))
    assert users == []
