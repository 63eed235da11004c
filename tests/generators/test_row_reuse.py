"""generators/reuse.py ``compute_rows``: a before row that is the after row of the op before it on
the same key is not computed again but reused (speed only). Runs with the reuse forced
wherever a row repeats and runs without it write the same bytes (binlogs, manifest, every
truth file, rows-query texts), through the whole-image path (FULL) and the per-shape path
(MINIMAL / NOBLOB), across workloads, DDL mid-stream, small tables (many repeats) and the
Spark-free batch engine's other knobs."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import generators.reuse as greuse
from binlogwriter.cli import main as cli_main

from .conftest import tree_digest

_RUNS = st.sampled_from([
    ["--workload", "sysbench", "--transactions", "400", "--initial-rows", "50", "--max-binlog-size", "60KB"],
    ["--workload", "sysbench", "--size", "300KB", "--flavor", "mariadb1011", "--row-image", "minimal", "--tables", "3",
     "--initial-rows", "40", "--rows-query"],
    ["--workload", "ecommerce", "--transactions", "300", "--ddl-every", "50", "--flavor", "mysql84",
     "--row-metadata", "full", "--rows-query", "--initial-rows", "20"],
    ["--workload", "alltypes", "--transactions", "120", "--row-image", "noblob", "--initial-rows", "10"],
    ["--workload", "sysbench", "--transactions", "500", "--key-dist", "zipf:1.5", "--mix", "insert=3,update=5,delete=2",
     "--initial-rows", "30", "--checksum", "none"],
    ["--workload", "sysbench", "--transactions", "300", "--initial-rows", "25", "--row-image", "noblob",
     "--flavor", "mysql80", "--rows-per-txn", "1-6", "--mix", "update=8,delete=1,insert=1"],
])


def run_cli(*args: str) -> None:
    r = CliRunner().invoke(cli_main, ["generate", *args], catch_exceptions=False)
    assert r.exit_code == 0, r.output


@settings(max_examples=14, deadline=None)
@given(args=_RUNS, seed=st.integers(1, 5))
def test_reused_rows_write_the_same_bytes(tmp_path_factory: pytest.TempPathFactory, args: list[str],
                                          seed: int) -> None:
    base = tmp_path_factory.mktemp("reuse")
    argv = [*args, "--seed", str(seed), "--no-progress"]
    reused = []
    real = greuse.compute_rows

    def counting(*a):
        cols, src, n = real(*a)
        reused.append(src is not None)
        return cols, src, n
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(greuse, "compute_rows", counting)
        mp.setattr(greuse, "REUSE_SHARE", 10 ** 9)  # reuse wherever one row repeats
        run_cli(*argv, "--out", str(base / "reuse"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(greuse, "REUSE_SHARE", 0)  # never
        run_cli(*argv, "--out", str(base / "plain"))
    assert any(reused), "no batch reused a row: the test would not see a wrong reuse"
    assert tree_digest(Path(base / "reuse")) == tree_digest(Path(base / "plain"))
