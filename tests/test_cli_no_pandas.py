"""A command's own process keeps pandas out (binlogwriter/cli.py ``_NoPandas``): pyarrow asks
for pandas before it converts a value and would import it (about 0.2 CPU-s) although no
command uses it. The ``generate`` runs here import no pandas, and write the same bytes —
binlogs, truth (Parquet, JSONL, snapshot) and manifest — as the same runs in a process that
imported pandas first, where pyarrow takes its pandas-aware paths."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APP_SQL = ROOT / "bench" / "schemas" / "app.sql"

_RUN = """
import sys
{pre}
from binlogwriter.cli import main
sys.argv = ["binlogwriter", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
print("pandas" if sys.modules.get("pandas") is not None else "-")
"""

CASES = {
    "alltypes-mariadb": ["--workload", "alltypes", "--flavor", "mariadb1011", "--edge-values", "0.3"],
    "ecommerce-json": ["--workload", "ecommerce", "--flavor", "mysql80", "--rows-query"],
    "schema-multibyte": ["--schema", str(APP_SQL), "--charset-stress", "0.5", "--edge-values", "0.2",
                         "--ddl-every", "40"],
}


def _generate(out: Path, args: list[str], pre: str) -> str:
    got = subprocess.run([sys.executable, "-c", _RUN.format(pre=pre), "generate", *args, "--transactions", "300",
                          "--initial-rows", "40", "--seed", "11", "--out", str(out), "--no-progress"],
                         check=True, capture_output=True, text=True, timeout=600)
    return got.stdout.splitlines()[-1]


def _same_tree(a: Path, b: Path) -> list[str]:
    cmp = filecmp.dircmp(a, b)
    bad = [str(p) for p in cmp.left_only + cmp.right_only + cmp.funny_files]
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    bad += mismatch + errors
    for d in cmp.common_dirs:
        bad += [f"{d}/{x}" for x in _same_tree(a / d, b / d)]
    return bad


@pytest.mark.parametrize("case", sorted(CASES))
def test_generate_imports_no_pandas_and_writes_the_same_bytes(tmp_path: Path, case: str) -> None:
    args = CASES[case]
    assert _generate(tmp_path / "own", args, pre="") == "-"
    assert _generate(tmp_path / "with", args, pre="import pandas") == "pandas"
    assert _same_tree(tmp_path / "own", tmp_path / "with") == []
    assert list((tmp_path / "own").glob("binlog.0*"))
