"""Rows written with BinlogWriter read back with BinlogReader: hypothesis over generated tables
and rows, in every flavor x row image x row metadata (format.md §12–§13, mariadb.md "Row
images", docs/edge-cases.md 6–15, 20–22).

For each example: a random table (``binlogwriter.strategies.tables``: random column types, charsets, lengths; keys: PRIMARY KEY,
composite, prefix PK, UNIQUE NOT NULL promoted to PK, no key at all; NULLable columns; up to
14 columns; values from ``binlogwriter.strategies.values``), random INSERT / UPDATE / DELETE statements, a small ``row_event_max_size``
sometimes (forces splits). Checks:

- every decoded row equals what was written restricted to the image columns, the other
  columns ``ABSENT``; the image columns are computed here from the documented rules
  (:func:`image_columns`, independent of ``binlogwriter.images``);
- STMT_END_F is set on the last rows event of each statement only;
- consecutive rows events of one statement obey format.md §13's split rule: the event is
  closed only when ``overhead + rows bytes + next row > binlog_row_event_max_size``, and an
  event stays within the limit unless it holds a single row;
- ``binlogwriter verify --roundtrip`` passes on the files.

Image rules used (mariadb.md "Row images" for MariaDB; MySQL 8 ``TABLE::mark_columns_per_
binlog_row_image`` + ``binlog_prepare_row_images`` for MySQL): "blob" = binlog type 252
(TEXT/BLOB; MariaDB's JSON is a LONGTEXT so it counts; MySQL's JSON (type() = MYSQL_TYPE_JSON)
and GEOMETRY do not). MySQL NOBLOB after images are the non-blob columns plus the assigned
ones, with or without a PKE; MariaDB NOBLOB without a PKE logs all columns everywhere.
"""

from __future__ import annotations

import datetime as dt
import struct
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from binlogwriter import strategies
from binlogwriter.cli import main as cli_main
from binlogwriter.format import BinlogFormat
from binlogwriter.layouts.primitives import packed_int_size
from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Column, Table
from binlogwriter.values import ABSENT, Geometry, encode_row_image
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter

FLAVORS = ("mysql80", "mysql84", "mariadb1011")
IMAGES = ("FULL", "MINIMAL", "NOBLOB")
METADATA = ("MINIMAL", "FULL")
UTC = dt.UTC
DB = "db"

# ------------------------------------------------------------------------------ schemas
# Tables, rows and statements come from the package (binlogwriter.strategies round-trip
# strategies: the primary key equivalent and the "blob" columns are worked out there from the
# DDL rules, independently of binlogwriter.images). The image model below is this test's own.

GenTable = strategies.RoundTripTable
Stmt = strategies.WriterStatement
BLOB_TYPES = strategies.BLOB_TYPES


def tables(flavor: str) -> st.SearchStrategy[GenTable]:
    return strategies.roundtrip_tables(flavor, database=DB)


row_values = strategies.roundtrip_rows
workloads = strategies.roundtrip_transactions


def _point(x: float, y: float) -> bytes:
    return b"\x01" + (1).to_bytes(4, "little") + struct.pack("<dd", x, y)


# ------------------------------------------------------------------------------ images model

def image_columns(gt: GenTable, flavor: str, image: str, kind: str,
                  given: set[int]) -> tuple[set[int], set[int] | None]:
    """(before or only image columns, after image columns or None) of one row change."""
    n = len(gt.specs)
    allc = set(range(n))
    nonblob = allc - gt.blobs
    pke = set(gt.pke) if gt.pke is not None else None
    maria = flavor.startswith("mariadb")
    if image == "FULL":
        return (allc, allc) if kind == "update" else (allc, None)
    if image == "MINIMAL":
        if kind == "insert":  # MariaDB, no PKE: every column (tests/data/row_images/)
            return (allc if maria and pke is None else given), None
        if kind == "delete":
            return (pke if pke is not None else allc), None
        if pke is None:
            return allc, (allc if maria else given)
        return pke, given
    # NOBLOB
    if maria and pke is None:
        return (allc, allc) if kind == "update" else (allc, None)
    if kind == "insert":
        return nonblob | given, None
    before = (nonblob | pke) if pke is not None else allc
    if kind == "delete":
        return before, None
    after = (nonblob | (pke or set()) | given) if maria else (nonblob | given)
    return before, after


# ------------------------------------------------------------------------------ the test

def _restrict(vals: tuple, cols: set[int]) -> tuple:
    return tuple(v if i in cols else ABSENT for i, v in enumerate(vals))


def _eq(a: Any, b: Any) -> bool:
    if isinstance(a, bytes | str) or isinstance(b, bytes | str):
        return type(a) is type(b) and a == b
    return a == b


def write_workload(w: BinlogWriter, gt: GenTable, txs: list[list[Stmt]], db: str = DB, *,
                   partial: bool = False) -> None:
    """``gt``'s database and table, then ``txs``, one writer transaction each (UPDATEs as
    PARTIAL_UPDATE_ROWS_EVENT when ``partial``)."""
    w.ddl(f"CREATE DATABASE {db}")
    w.ddl(gt.sql, db)
    for stmts in txs:
        with w.transaction() as tx:
            for s in stmts:
                s.write(tx, gt, partial=partial)


def run_example(tmp: Path, flavor: str, image: str, metadata: str, gt: GenTable,
                txs: list[list[Stmt]], max_size: int) -> None:
    fmt = BinlogFormat.preset(flavor)
    st_ = SessionSettings(row_metadata=metadata, row_image=image, row_event_max_size=max_size)
    expected_stmts = []  # per statement: (kind, [(before, after) or image]) in decoded form
    with BinlogWriter(tmp, fmt, settings=st_) as w:
        w.ddl(f"CREATE DATABASE {DB}")
        w.ddl(gt.sql, DB)
        for stmts in txs:
            with w.transaction() as tx:
                for s in stmts:
                    b_cols, a_cols = image_columns(gt, flavor, image, s.kind, s.given)
                    s.write(tx, gt)
                    if s.kind in ("insert", "delete"):
                        exp = [_restrict(r[1], b_cols) for r in s.rows]
                    else:
                        exp = []
                        for b, a in s.rows:
                            merged = tuple(a[1][i] if i in s.given else b[1][i] for i in range(len(gt.specs)))
                            exp.append((_restrict(b[1], b_cols), _restrict(merged, a_cols)))
                    expected_stmts.append((s.kind, exp, b_cols, a_cols))
            w.advance(1)
    files = w.files

    # read back ------------------------------------------------------------------------
    events = list(BinlogReader(files, schemas={f"{DB}.t": gt.table}))
    stmts_seen: list[list] = []
    for ev in events:
        if ev.type_code == 19:
            stmts_seen.append([])
        elif ev.type_code in (23, 24, 25, 30, 31, 32):
            assert stmts_seen, "rows event without a Table_map"
            stmts_seen[-1].append(ev)
    assert len(stmts_seen) == len(expected_stmts)
    cols = gt.table.column_descs(flavor)
    pad = -1 if flavor.startswith("mariadb") else 0
    width = len(cols)
    for evs, (kind, exp, b_cols, a_cols) in zip(stmts_seen, expected_stmts, strict=True):
        assert evs, "statement without rows events"
        # STMT_END_F only on the last event of the statement
        assert [bool(e.rows_flags & 1) for e in evs] == [False] * (len(evs) - 1) + [True]
        got = [r for e in evs for r in e.rows]
        assert len(got) == len(exp)
        for r, (g, x) in enumerate(zip(got, exp, strict=True)):
            for img, (gi, xi) in enumerate(zip(g, x, strict=True) if kind == "update" else [(g, x)]):
                bad = [(i, gv, xv) for i, (gv, xv) in enumerate(zip(gi, xi, strict=True)) if not _eq(gv, xv)]
                assert not bad, f"{kind} row {r} image {img}: (column, read, written) {bad}"
        for e in evs:
            assert tuple(e.columns_present) == tuple(i in b_cols for i in range(width))
            if kind == "update":
                assert tuple(e.columns_after) == tuple(i in a_cols for i in range(width))
        # split rule (format.md §13)
        post = 8 if flavor.startswith("mariadb") else 10
        nbm = (width + 7) // 8
        overhead = post + packed_int_size(width) + nbm * (2 if kind == "update" else 1)

        def row_len(e, r, kind=kind):
            if kind == "update":
                return (len(encode_row_image(cols, tuple(e.columns_present), r[0], pad))
                        + len(encode_row_image(cols, tuple(e.columns_after), r[1], pad)))
            return len(encode_row_image(cols, tuple(e.columns_present), r, pad))

        sizes = [[row_len(e, r) for r in e.rows] for e in evs]
        for k, s in enumerate(sizes):
            assert len(s) >= 1
            if len(s) > 1:
                assert overhead + sum(s) <= max_size, "event over the limit with more than one row"
            if k + 1 < len(sizes):
                assert overhead + sum(s) + sizes[k + 1][0] > max_size, "event closed too early"

    res = CliRunner().invoke(cli_main, ["verify", "--roundtrip", *map(str, files)])
    assert res.exit_code == 0, res.output


COMBOS = [(f, i, m) for f in FLAVORS for i in IMAGES for m in METADATA]


@pytest.mark.parametrize("flavor,image,metadata", COMBOS, ids=["-".join(c) for c in COMBOS])
# no shrink phase: a failing example shrinks for minutes (the falsifying example is printed as
# generated; the focused tests below name the known failures precisely)
@settings(max_examples=25, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_rows_roundtrip(flavor: str, image: str, metadata: str, data) -> None:
    gt = data.draw(tables(flavor), label="table")
    txs = data.draw(workloads(gt, flavor, image), label="workload")
    max_size = data.draw(st.sampled_from([8192, 8192, 64, 200, 700]), label="row_event_max_size")
    with tempfile.TemporaryDirectory() as d:
        run_example(Path(d), flavor, image, metadata, gt, txs, max_size)


def test_column_model_consistent_with_schema() -> None:
    """The generated DDL types map to what the schema module says (sanity of this file)."""
    t = Table.from_sql("CREATE TABLE t (a INT, b TEXT, j JSON)", database=DB, flavor="mariadb1011")
    assert [c.binlog_type("mariadb1011") for c in t.columns] == [3, 252, 252]
    assert Column("x", "JSON").binlog_type("mysql80") == 245


# ------------------------------------------------------------------------------ focused cases

def _read_rows(files, table) -> list:
    return [ev for ev in BinlogReader(files, schemas={f"{DB}.t": table})
            if ev.type_code in (23, 24, 25, 30, 31, 32)]


@pytest.mark.parametrize("flavor", FLAVORS)
def test_split_into_three_or_more_events_keeps_every_row(tmp_path: Path, flavor: str) -> None:
    """A statement split into >= 3 events: every row once, in order (format.md §13)."""
    t = Table.from_sql("CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b VARCHAR(20))", database=DB, flavor=flavor)
    with BinlogWriter(tmp_path, BinlogFormat.preset(flavor), settings=SessionSettings(row_event_max_size=40)) as w:
        with w.transaction() as tx:
            tx.insert(t, [(i, "x" * 5) for i in range(10)])
    evs = _read_rows(w.files, t)
    assert len(evs) >= 3
    assert [r[0] for e in evs for r in e.rows] == list(range(10))
    assert [e.rows_flags & 1 for e in evs] == [0] * (len(evs) - 1) + [1]


def test_mysql_noblob_keeps_json_and_geometry(tmp_path: Path) -> None:
    """MySQL NOBLOB drops only fields whose type() is MYSQL_TYPE_BLOB (TEXT/BLOB); JSON
    (MYSQL_TYPE_JSON) and GEOMETRY stay in the before image of UPDATE/DELETE."""
    t = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, j JSON, g POINT, b BLOB)", database=DB)
    row = (1, {"a": 1}, Geometry(0, _point(1, 2)), b"x")
    with BinlogWriter(tmp_path, BinlogFormat.mysql80(), settings=SessionSettings(row_image="NOBLOB")) as w:
        with w.transaction() as tx:
            tx.delete(t, [row])
    (ev,) = _read_rows(w.files, t)
    assert tuple(ev.columns_present) == (True, True, True, False)


def test_mysql_noblob_without_pk_logs_non_blob_and_given(tmp_path: Path) -> None:
    """MySQL NOBLOB, no PKE: INSERT logs the non-blob columns and the given blobs (the write_set
    of mark_columns_per_binlog_row_image; only the before image is widened to all columns)."""
    t = Table.from_sql("CREATE TABLE t (a INT, b BLOB)", database=DB)
    with BinlogWriter(tmp_path, BinlogFormat.mysql80(), settings=SessionSettings(row_image="NOBLOB")) as w:
        with w.transaction() as tx:
            tx.insert(t, [{"a": 1}])
    (ev,) = _read_rows(w.files, t)
    assert tuple(ev.columns_present) == (True, False)
    assert ev.rows == [(1, ABSENT)]
