"""The Spark job (local[2]) writes what the single-process engine writes, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogwriter.cli import main as cli_main
from generators.engine import generate
from generators.spec import Spec
from spark_gen.job import generate_spark
from spark_gen.partition import InjectedFailure
from tests.generators.edge_schemas import EVERY_FAMILY_DDL, JSON_DDL

from .conftest import tree_digest

CASES = {
    "sysbench-mysql80": dict(workload="sysbench", tables=2, key_dist="zipf:1.1", transactions=150),
    "ecommerce-mariadb-rotation-ddl": dict(workload="ecommerce", flavor="mariadb1011", max_binlog_size="8K",
                                           ddl_every=7, key_dist="latest", transactions=150, rows_query=True),
}


def _spec(**kw) -> Spec:
    return Spec.from_dict({"initial_rows": 20, "seed": 11, **kw})


@pytest.fixture(scope="module")
def local_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("local")
    return {name: generate(_spec(**kw), root / name).out for name, kw in CASES.items()}


@pytest.mark.parametrize("parts", [1, 2, 7])
@pytest.mark.parametrize("case", list(CASES))
def test_spark_equals_single_process(spark, local_runs, tmp_path: Path, case: str, parts: int) -> None:
    out = tmp_path / "spark"
    generate_spark(_spec(**CASES[case]), out, partitions=parts, spark=spark, parquet=False)
    assert tree_digest(out) == tree_digest(local_runs[case])
    if case.startswith("ecommerce"):
        assert len(json.loads((out / "manifest.json").read_text())["files"]) > 2


def test_alltypes_ddl_in_binlog_and_parquet_truth(spark, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    spec = _spec(workload="alltypes", flavor="mysql84", transactions=40, initial_rows=4, ddl_in_binlog=True,
                 ddl_every=5, max_binlog_size="16K", rows_query=True)
    generate(spec, tmp_path / "local")
    generate_spark(spec, tmp_path / "spark", partitions=2, spark=spark, parquet=True)
    # typed final-state Parquet included: the same bytes as the single-process engine's
    assert tree_digest(tmp_path / "spark", parquet=True) == tree_digest(tmp_path / "local", parquet=True)
    final = tmp_path / "spark" / "truth" / "final"
    for jl in sorted(final.glob("*.jsonl")):
        want = [json.loads(line) for line in jl.read_text("utf-8").splitlines()]
        tab = pq.read_table(final / "parquet" / (jl.name[:-len(".jsonl")] + ".parquet"))
        got = tab.to_pylist()
        assert len(got) == len(want), jl.name
        first = tab.column_names[0]
        assert [r[first] is None for r in got] == [r[first] is None for r in want]


def test_edge_values_on_spark_equal_the_single_process(spark, tmp_path: Path) -> None:
    """--edge-values over every type family (and the integers' whole range of --schema):
    the same bytes from Spark tasks as from one process."""
    spec = _spec(workload=None, schema_sql=EVERY_FAMILY_DDL + JSON_DDL, schema_file="e.sql", flavor="mariadb1011",
                 edge_values=0.3, transactions=80, max_binlog_size="16K")
    generate(spec, tmp_path / "local")
    generate_spark(spec, tmp_path / "spark", partitions=3, spark=spark, parquet=True)
    assert tree_digest(tmp_path / "spark", parquet=True) == tree_digest(tmp_path / "local", parquet=True)


def test_size_mode_stops_where_the_engine_stops(spark, tmp_path: Path) -> None:
    spec = _spec(workload="ecommerce", flavor="mariadb1011", gtid="7", server_id=42, checksum="NONE",
                 size="96K", max_binlog_size="16K", row_event_max_size="1K")
    generate(spec, tmp_path / "local")
    generate_spark(spec, tmp_path / "spark", partitions=7, spark=spark, parquet=False)
    assert tree_digest(tmp_path / "spark") == tree_digest(tmp_path / "local")


def test_a_task_failing_mid_write_changes_no_byte(spark, local_runs, tmp_path: Path) -> None:
    case = "ecommerce-mariadb-rotation-ddl"
    out = tmp_path / "spark"
    generate_spark(_spec(**CASES[case]), out, partitions=2, spark=spark, parquet=False, fail=("write", 1))
    assert tree_digest(out) == tree_digest(local_runs[case])
    assert not list(out.glob(".spark-staging*")) and not list(out.rglob("*.part*"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spark"]


def test_a_failed_job_leaves_nothing(spark, tmp_path: Path) -> None:
    out = tmp_path / "spark"
    with pytest.raises(Exception) as ei:  # noqa: B017 - Spark wraps the task's exception
        generate_spark(_spec(workload="sysbench", transactions=60), out, partitions=2, spark=spark,
                       parquet=False, fail=("write!", 1))
    assert InjectedFailure.__name__ in str(ei.value)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [], "the run's temporary directory beside --out must be removed"


def test_cli_engine_spark_and_python_m_entry(spark, local_runs, tmp_path: Path) -> None:
    kw = CASES["sysbench-mysql80"]
    args = ["--workload", "sysbench", "--tables", "2", "--key-dist", "zipf:1.1", "--transactions", "150",
            "--initial-rows", "20", "--seed", "11", "--no-progress"]
    r = CliRunner().invoke(cli_main, ["generate", "--engine", "spark", "--partitions", "3",
                                      "--out", str(tmp_path / "cli"), *args])
    assert r.exit_code == 0, r.output
    assert tree_digest(tmp_path / "cli") == tree_digest(local_runs["sysbench-mysql80"])
    from spark_gen.__main__ import main

    with pytest.raises(SystemExit) as e:
        main(["--out", str(tmp_path / "m"), *args])
    assert e.value.code == 0
    assert tree_digest(tmp_path / "m") == tree_digest(local_runs["sysbench-mysql80"])
    assert kw["transactions"] == 150


def test_partitions_needs_engine_spark(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli_main, ["generate", "--partitions", "3", "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "--partitions needs --engine spark" in r.output


def test_truth_changes_identical_at_any_partition_count(spark, tmp_path: Path) -> None:
    """truth/changes of Spark at 1 and 7 partitions: the single-process engine's bytes, and
    equal to what the reader decodes from the Spark run's binlogs (DDL mid-stream, MINIMAL
    images, rotation, a partition boundary inside most files)."""
    from binlogwriter.reader import BinlogReader
    from binlogwriter.testing import assert_matches_truth

    spec = _spec(workload="ecommerce", flavor="mysql80", row_image="MINIMAL", ddl_every=6, max_binlog_size="4K",
                 transactions=80, initial_rows=10)
    generate(spec, tmp_path / "local")
    want = tree_digest(tmp_path / "local" / "truth" / "changes")
    assert {"changes.jsonl", "test.orders.parquet"} <= set(want)
    for parts in (1, 7):
        out = tmp_path / f"spark{parts}"
        generate_spark(spec, out, partitions=parts, spark=spark, parquet=False)
        assert tree_digest(out / "truth" / "changes") == want, parts
    files = sorted((tmp_path / "spark7").glob("binlog.0*"))
    assert assert_matches_truth(BinlogReader(files).changes(), tmp_path / "spark7") > 80


@pytest.mark.parametrize("jsonl_max_rows", [100, 10])
def test_final_truth_after_pass_two_or_not_rendered(spark, local_runs, tmp_path: Path, jsonl_max_rows: int) -> None:
    """``jsonl_max_rows`` below the initial rows plus the changes (the sorted runs of
    truth/final are then made after pass 2, beside the commits): with the final tables'
    rows at most that limit truth/final is the engine's; above it, it is not written and
    every other file is the engine's."""
    case = "sysbench-mysql80"
    out = tmp_path / "spark"
    generate_spark(_spec(**CASES[case]), out, partitions=3, spark=spark, parquet=False, jsonl_max_rows=jsonl_max_rows)
    got, want = tree_digest(out), tree_digest(local_runs[case])
    live = sum(t["live_rows"] for t in json.loads((out / "manifest.json").read_text())["tables"])
    assert 10 < live <= 100
    if jsonl_max_rows == 100:
        assert got == want
    else:
        assert not list((out / "truth" / "final").glob("*.jsonl"))
        assert got == {k: v for k, v in want.items() if not k.startswith("truth/final/")}
