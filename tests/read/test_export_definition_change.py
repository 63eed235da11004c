"""Columnar export of a table whose definition changes mid-stream (ALTER TABLE), on a real
MariaDB 10.11 binlog (tests/data/definition_change/README.md).

``changes_tables`` unifies a table's batches by column name: a column added or dropped is
null where the definition lacks it. A column whose Arrow type changed (INT -> BIGINT UNSIGNED
-> VARCHAR) cannot be held in one table column: that is a typed error naming the table, the
column, both types and where the new definition starts, never a pyarrow exception.
``export_parquet`` writes a part per definition, each with its own types.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from binlogwriter.errors import BinlogError
from binlogwriter.read.export import changes_tables, export_parquet
from binlogwriter.reader import BinlogReader

BINLOG = Path(__file__).resolve().parents[1] / "data" / "definition_change" / "mariadb-10.11-alter.binlog"
RETYPED_AT = 1556
"""The GTID event of ``ALTER TABLE t MODIFY a BIGINT UNSIGNED``: before it, only ADD / DROP."""


def test_added_and_dropped_columns_unify_by_name(tmp_path: Path) -> None:
    prefix = tmp_path / "binlog.000001"
    prefix.write_bytes(BINLOG.read_bytes()[:RETYPED_AT])
    tab = changes_tables(prefix)["d.t"]
    assert tab.schema.field("after.a").type == pa.int32()
    assert tab.schema.field("after.c").type == pa.timestamp("us")
    rows = tab.to_pylist()
    assert [(r["op"], r["after.id"], r["after.a"], r["after.b"], r["after.c"]) for r in rows] == [
        ("insert", 1, -1, "x", None), ("insert", 2, 2, "y", None),
        ("insert", 3, 3, None, dt.datetime(2021, 1, 1, 0, 0, 0, 500000)), ("update", 1, 99, None, None)]
    assert [r["position"] for r in rows] == [c.position for c in BinlogReader([prefix]).changes()]


def test_a_retyped_column_is_a_typed_error_naming_table_column_and_place() -> None:
    with pytest.raises(BinlogError) as info:
        changes_tables(BINLOG)
    msg = str(info.value)
    assert "d.t" in msg and "before.a" in msg and "int32" in msg and "uint64" in msg
    assert f"{BINLOG}:1885" in msg


def test_export_writes_a_part_per_definition(tmp_path: Path) -> None:
    assert export_parquet([BINLOG], tmp_path) == {"d.t": 7}
    parts = sorted((tmp_path / "d.t").glob("part-*.parquet"))
    types = [pq.read_schema(p).field("after.a").type for p in parts]
    assert types == [pa.int32(), pa.int32(), pa.uint64(), pa.string()]
    assert pq.read_table(parts[2]).column("after.a").to_pylist() == [18446744073709551615, None]
    assert pq.read_table(parts[3]).column("after.a").to_pylist() == ["five"]


def test_export_cli_on_the_altered_table(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "binlogwriter", "export", str(BINLOG), "--to", "parquet",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert len(list((tmp_path / "out" / "d.t").glob("part-*.parquet"))) == 4
