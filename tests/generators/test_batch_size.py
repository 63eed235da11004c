"""The batch size (generators/batch.py ``BATCH_TXNS``) is a speed knob only: runs cut into
batches of a few transactions write the same bytes (binlogs, manifest, every truth file) as
runs with the default batches, across workloads, flavors, images, rotation, DDL mid-stream and
the ``--size`` cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import generators.batch as gbatch
import generators.run_batched as grun
from binlogwriter.cli import main as cli_main

from .conftest import tree_digest


def run_cli(*args: str) -> None:
    r = CliRunner().invoke(cli_main, ["generate", *args], catch_exceptions=False)
    assert r.exit_code == 0, r.output

_RUNS = st.sampled_from([
    ["--workload", "sysbench", "--transactions", "300", "--max-binlog-size", "40KB"],
    ["--workload", "sysbench", "--size", "300KB", "--flavor", "mariadb1011", "--row-image", "minimal", "--tables", "3"],
    ["--workload", "ecommerce", "--transactions", "250", "--ddl-every", "60", "--flavor", "mysql84",
     "--row-metadata", "full", "--rows-query"],
    ["--workload", "alltypes", "--transactions", "80", "--row-image", "noblob", "--checksum", "none"],
    ["--workload", "sysbench", "--transactions", "400", "--key-dist", "zipf:1.2", "--mix", "insert=5,update=3,delete=2"],
])


@settings(max_examples=12, deadline=None)
@given(args=_RUNS, size=st.integers(1, 97), seed=st.integers(1, 3))
def test_batch_size_does_not_change_a_byte(tmp_path_factory: pytest.TempPathFactory, args: list[str],
                                           size: int, seed: int) -> None:
    base = tmp_path_factory.mktemp("batches")
    argv = [*args, "--seed", str(seed), "--no-progress"]
    run_cli(*argv, "--out", str(base / "default"))
    with pytest.MonkeyPatch.context() as mp:
        for mod in (gbatch, grun):
            mp.setattr(mod, "BATCH_TXNS", size)
            mp.setattr(mod, "FIRST_TXNS", min(size, 5))
            mp.setattr(mod, "BATCH_BYTES", size * 300)
        run_cli(*argv, "--out", str(base / "small"))
    assert tree_digest(Path(base / "small")) == tree_digest(Path(base / "default"))
