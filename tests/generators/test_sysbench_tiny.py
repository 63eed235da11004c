"""Tiny sysbench specs: generated, or refused up front with the typed spec error naming the
key — never a bare exception, never a run that cannot end. oltp_write_only updates, deletes
and re-inserts existing rows: with ``initial_rows: 0`` a ``--size`` (or ``serve --generate``
endless) run once looped forever and ``--transactions N`` failed only once planned; one row,
one transaction, with the DDL and rows-query texts in the binlog, once raised a ValueError."""

from __future__ import annotations

from pathlib import Path

import pytest


def _spec(tmp_path: Path, text: str) -> Path:
    spec = tmp_path / "spec.yaml"
    spec.write_text(text)
    return spec


@pytest.mark.parametrize("limit", [("--size", "1MB"), ("--transactions", "3")])
def test_an_empty_oltp_write_only_table_is_refused_with_the_line(tmp_path: Path, run_cli, limit) -> None:
    spec = _spec(tmp_path, "flavor: mysql80\nworkload: sysbench\ntables: 1\ninitial_rows: 0\n")
    out = tmp_path / "out"
    r = run_cli("--out", str(out), "--spec", str(spec), *limit, "--no-progress")
    assert r.exit_code == 2, r.output
    assert r.output.strip() == (
        f"binlogwriter generate: error: {spec}:4: --initial-rows: sysbench's oltp_write_only needs at least 1 "
        "(it updates, deletes and re-inserts existing rows; give --mix for INSERTs into empty tables)")
    assert not out.exists()


def test_an_empty_sysbench_table_with_a_mix_of_inserts_runs(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "out"
    r = run_cli("--out", str(out), "--workload", "sysbench", "--initial-rows", "0", "--mix", "insert=1",
                "--transactions", "4", "--no-progress")
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in out.iterdir()) == ["binlog.000001", "binlog.index", "manifest.json", "truth"]


@pytest.mark.parametrize("flavor", ["mysql80", "mysql84", "mariadb1011"])
def test_one_row_one_transaction_with_ddl_and_texts_in_the_binlog(tmp_path: Path, run_cli, flavor: str) -> None:
    spec = _spec(tmp_path, f"flavor: {flavor}\nworkload: sysbench\ntables: 1\ninitial_rows: 1\ntransactions: 1\n"
                           "ddl_in_binlog: true\nrows_query: true\nmax_binlog_size: 4096\n")
    r = run_cli("--out", str(tmp_path / "out"), "--spec", str(spec), "--no-progress")
    assert r.exit_code == 0, r.output
