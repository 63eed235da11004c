"""The canonical row form of docs/output.md."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal

from binlogwriter.schema import parse_tables
from binlogwriter.values import Geometry, MysqlDate, MysqlDateTime
from generators.columns import sql_literal
from generators.final_sort import write_sorted_jsonl
from generators.truth import canonical_key, canonical_renderer
from generators.values import mysql_json_text

DDL = """CREATE TABLE t (f FLOAT, d DECIMAL(10,4), d0 DECIMAL(5,0), tm TIME(2), ts TIMESTAMP(6), dt4 DATETIME(4),
  dd DATE, c CHAR(5), b BINARY(4), vb VARBINARY(4), j JSON, s SET('x','y','z'), g POINT, bt BIT(3), y YEAR)"""


def test_canonical_values() -> None:
    t = parse_tables(DDL, "db", "mysql80")[0]
    r = canonical_renderer(t, "mysql80")
    row = (0.1, Decimal("-0.01"), Decimal(12), -dt.timedelta(microseconds=10000),
           dt.datetime(2024, 2, 29, 12, 34, 56, 789000, tzinfo=dt.timezone(dt.timedelta(hours=2))),
           MysqlDateTime(0, 0, 0, 0, 0, 0, 0), MysqlDate(0, 0, 0), "ab  ", b"a", b"\x00\x01",
           {"bb": 1, "a": [True, None], "ccc": "é"}, frozenset({"z", "x"}),
           Geometry(0, bytes.fromhex("0101000000000000000000f83f00000000000000c0")), 5, 2024)
    assert r(row) == [0.10000000149011612, "-0.0100", "12", "-00:00:00.01", "2024-02-29 10:34:56.789000",
                      "0000-00-00 00:00:00.0000", "0000-00-00", "ab", "0x61000000", "0x0001",
                      '{"a": [true, null], "bb": 1, "ccc": "é"}', "x,z",
                      "0x000000000101000000000000000000f83f00000000000000c0", 5, 2024]
    assert r((None,) * 15) == [None] * 15


def test_json_text_orders_keys_by_length_then_bytes() -> None:
    assert mysql_json_text({"b": 1, "aa": 2, "a": {"x": []}}) == '{"a": {"x": []}, "b": 1, "aa": 2}'


def test_sort_is_null_number_string_and_spills(tmp_path) -> None:
    rows = [[None], [3], ["a"], [1.5], ["B"], [None]] * 7
    p = tmp_path / "x.jsonl"
    write_sorted_jsonl(p, ["c"], iter(rows), chunk=5)  # forces several runs + merge
    got = [json.loads(x)["c"] for x in p.read_text().splitlines()]
    assert got == [None] * 14 + [1.5] * 7 + [3] * 7 + ["B"] * 7 + ["a"] * 7
    assert canonical_key([None, 1, "x"]) < canonical_key([1, None, "x"])
    assert not list(tmp_path.glob(".sort-*"))


def test_sql_literals() -> None:
    t = parse_tables(DDL, "db", "mysql80")[0]
    c = {col.name: col for col in t.columns}
    assert sql_literal(c["c"], "it's\\", "mysql80") == "'it\\'s\\\\'"
    assert sql_literal(c["vb"], b"", "mysql80") == "''"
    assert sql_literal(c["b"], b"\x01", "mysql80") == "X'01'"
    assert sql_literal(c["g"], Geometry(0, b"\x01"), "mysql80") == "ST_GeomFromWKB(X'01', 0)"
    assert sql_literal(c["ts"], dt.datetime(2001, 2, 3, tzinfo=dt.UTC), "mysql80") == "'2001-02-03 00:00:00.000000'"
