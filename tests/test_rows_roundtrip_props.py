"""Rows written with BinlogWriter read back with BinlogReader: hypothesis over generated tables
and rows, in every flavor x row image x row metadata (format.md §12–§13, mariadb.md "Row
images", docs/edge-cases.md 6–15, 20–22).

For each example: a random table (random column types, charsets, lengths; keys: PRIMARY KEY,
composite, prefix PK, UNIQUE NOT NULL promoted to PK, no key at all; NULLable columns; up to
14 columns), random INSERT / UPDATE / DELETE statements, a small ``row_event_max_size``
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
import json
import struct
import tempfile
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from binlogwriter.cli import main as cli_main
from binlogwriter.format import BinlogFormat
from binlogwriter.layouts.primitives import packed_int_size
from binlogwriter.reader import BinlogReader
from binlogwriter.schema import Column, Table
from binlogwriter.transaction import SessionSettings
from binlogwriter.values import ABSENT, Geometry, encode_row_image
from binlogwriter.writer import BinlogWriter

FLAVORS = ("mysql80", "mysql84", "mariadb1011")
IMAGES = ("FULL", "MINIMAL", "NOBLOB")
METADATA = ("MINIMAL", "FULL")
UTC = dt.UTC
DB = "db"

# characters each charset can hold (ASCII + a few from its repertoire)
_EXTRA = {
    "latin1": "éàüß£",
    "utf8mb3": "é中€ж",
    "utf8mb4": "é中€ж😀",
    "gbk": "中文汉字",
    "ucs2": "é中€ж",
    "utf16": "é中€😀",
    "utf32": "é中€😀",
}
CHARSETS = tuple(_EXTRA)


def text(charset: str, max_chars: int, min_chars: int = 0) -> st.SearchStrategy[str]:
    alphabet = st.sampled_from(list("abc XYZ019_'\\\n") + list(_EXTRA[charset]))
    return st.text(alphabet, min_size=min_chars, max_size=max_chars)


# ------------------------------------------------------------------------------ schemas

@dataclass
class ColSpec:
    """One generated column: its DDL and a strategy for (value written, value read back)."""

    name: str
    ddl: str
    values: st.SearchStrategy
    blob: bool = False  # binlog type 252 in this flavor
    key_ok: bool = False  # may be part of a key (whole column)
    prefix_ok: bool = False  # VARCHAR: may be a prefix key part


def _same(v):
    return (v, v)


def _int_col(draw, name):
    t, bits = draw(st.sampled_from([("TINYINT", 8), ("SMALLINT", 16), ("MEDIUMINT", 24),
                                    ("INT", 32), ("BIGINT", 64)]))
    uns = draw(st.booleans())
    lo, hi = (0, (1 << bits) - 1) if uns else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    vals = st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi, 0])).map(_same)
    return ColSpec(name, f"{t}{' UNSIGNED' if uns else ''}", vals, key_ok=True)


def _decimal_col(draw, name):
    p = draw(st.integers(1, 65))
    s = draw(st.integers(0, min(p, 30)))

    @st.composite
    def vals(d):
        ip = d(st.integers(0, 10 ** (p - s) - 1)) if p > s else 0
        fp = d(st.integers(0, 10 ** s - 1)) if s else 0
        neg = d(st.booleans()) and (ip or fp)
        v = Decimal(f"{'-' if neg else ''}{ip}" + (f".{fp:0{s}d}" if s else ""))
        return v, v

    return ColSpec(name, f"DECIMAL({p},{s})", vals(), key_ok=True)


def _float_col(draw, name):
    if draw(st.booleans()):
        return ColSpec(name, "DOUBLE", st.floats(allow_nan=False, allow_infinity=False).map(_same))
    f32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
    return ColSpec(name, "FLOAT", f32.map(lambda v: (v, struct.unpack("<f", struct.pack("<f", v))[0])))


def _bit_col(draw, name):
    m = draw(st.sampled_from([1, 2, 7, 8, 9, 17, 33, 63, 64]))
    return ColSpec(name, f"BIT({m})", st.integers(0, (1 << m) - 1).map(_same))


def _trunc(us: int, fsp: int) -> int:
    q = 10 ** (6 - fsp)
    return us // q * q


def _temporal_col(draw, name):
    kind = draw(st.sampled_from(["YEAR", "DATE", "TIME", "DATETIME", "TIMESTAMP"]))
    fsp = draw(st.integers(0, 6))
    if kind == "YEAR":
        return ColSpec(name, "YEAR", st.one_of(st.just(0), st.integers(1901, 2155)).map(_same), key_ok=True)
    if kind == "DATE":
        return ColSpec(name, "DATE", st.dates(dt.date(1000, 1, 1)).map(_same), key_ok=True)
    if kind == "TIME":
        lim = (838 * 3600 + 59 * 60 + 58) * 10 ** 6
        vals = st.integers(-lim, lim).map(
            lambda us: dt.timedelta(microseconds=_trunc(abs(us), fsp) * (1 if us >= 0 else -1))).map(_same)
        return ColSpec(name, f"TIME({fsp})", vals)
    if kind == "DATETIME":
        vals = st.datetimes(dt.datetime(1000, 1, 1)).map(
            lambda v: v.replace(microsecond=_trunc(v.microsecond, fsp))).map(_same)
        return ColSpec(name, f"DATETIME({fsp})", vals, key_ok=True)
    secs = st.integers(1, (1 << 31) - 1)
    vals = st.tuples(secs, st.integers(0, 999_999)).map(
        lambda t: dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(seconds=t[0], microseconds=_trunc(t[1], fsp)))
    return ColSpec(name, f"TIMESTAMP({fsp})", vals.map(_same))


def _string_col(draw, name, flavor):
    kind = draw(st.sampled_from(["CHAR", "VARCHAR", "BINARY", "VARBINARY", "TEXT", "BLOB"]))
    cs = draw(st.sampled_from(CHARSETS))
    if kind == "CHAR":
        n = draw(st.sampled_from([1, 5, 20, 64, 100, 255]))
        return ColSpec(name, f"CHAR({n}) CHARACTER SET {cs}",
                       text(cs, n).map(lambda s: (s, s.rstrip(" "))), key_ok=True)
    if kind == "VARCHAR":
        n = draw(st.sampled_from([1, 10, 60, 64, 85, 300]))
        return ColSpec(name, f"VARCHAR({n}) CHARACTER SET {cs}", text(cs, min(n, 80)).map(_same),
                       key_ok=True, prefix_ok=n > 4)
    if kind == "BINARY":
        n = draw(st.sampled_from([1, 4, 16, 255]))
        return ColSpec(name, f"BINARY({n})", st.binary(max_size=n).map(lambda b: (b, b.ljust(n, b"\0"))),
                       key_ok=True)
    if kind == "VARBINARY":
        n = draw(st.sampled_from([1, 10, 255, 256, 1000]))
        return ColSpec(name, f"VARBINARY({n})", st.binary(max_size=min(n, 300)).map(_same), key_ok=True)
    size = draw(st.sampled_from(["TINY", "", "MEDIUM"]))
    if kind == "TEXT":
        return ColSpec(name, f"{size}TEXT CHARACTER SET {cs}", text(cs, 60).map(_same), blob=True)
    return ColSpec(name, f"{size}BLOB", st.binary(max_size=250).map(_same), blob=True)


def _enum_set_col(draw, name):
    if draw(st.booleans()):
        n = draw(st.sampled_from([1, 2, 3, 255, 256, 300]))
        members = [f"e{i}" for i in range(n)]
        vals = st.one_of(st.sampled_from(members), st.just("")).map(_same)
        ddl = "ENUM(" + ",".join(f"'{m}'" for m in members) + ")"
        return ColSpec(name, ddl, vals, key_ok=True)
    n = draw(st.sampled_from([1, 8, 9, 16, 17, 24, 25, 32, 33, 64]))
    members = [f"s{i}" for i in range(n)]
    vals = st.sets(st.sampled_from(members)).map(lambda s: (frozenset(s), frozenset(s)))
    return ColSpec(name, "SET(" + ",".join(f"'{m}'" for m in members) + ")", vals)


json_docs = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(1 << 63), (1 << 63) - 1),
              st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=10)),
    lambda ch: st.one_of(st.lists(ch, max_size=4), st.dictionaries(st.text(max_size=5), ch, max_size=4)),
    max_leaves=10,
).filter(lambda v: v is not None)


def _point(x: float, y: float) -> bytes:
    return b"\x01" + (1).to_bytes(4, "little") + struct.pack("<dd", x, y)


def _other_col(draw, name, flavor):
    if draw(st.booleans()):
        if flavor.startswith("mariadb"):  # JSON is LONGTEXT utf8mb4_bin: the document's text
            return ColSpec(name, "JSON", json_docs.map(lambda d: json.dumps(d)).map(_same), blob=True)
        return ColSpec(name, "JSON", json_docs.map(_same))
    t = draw(st.sampled_from(["GEOMETRY", "POINT"]))
    coords = st.floats(-1e9, 1e9, allow_nan=False)
    vals = st.builds(lambda s, x, y: Geometry(s, _point(x, y)), st.sampled_from([0, 4326]), coords, coords)
    return ColSpec(name, t, vals.map(_same))


@st.composite
def column_specs(draw, name: str, flavor: str) -> ColSpec:
    kind = draw(st.sampled_from(["int", "int", "decimal", "float", "bit", "temporal", "temporal",
                                 "string", "string", "string", "enumset", "other"]))
    if kind == "int":
        return _int_col(draw, name)
    if kind == "decimal":
        return _decimal_col(draw, name)
    if kind == "float":
        return _float_col(draw, name)
    if kind == "bit":
        return _bit_col(draw, name)
    if kind == "temporal":
        return _temporal_col(draw, name)
    if kind == "string":
        return _string_col(draw, name, flavor)
    if kind == "enumset":
        return _enum_set_col(draw, name)
    return _other_col(draw, name, flavor)


@dataclass
class GenTable:
    table: Table
    specs: list[ColSpec]
    nullable: list[bool]
    pke: list[int] | None  # primary key equivalent (column indexes), None = none
    sql: str = ""
    blobs: set[int] = field(default_factory=set)


@st.composite
def tables(draw, flavor: str) -> GenTable:
    n = draw(st.one_of(st.integers(1, 8), st.integers(9, 14)))
    specs = [draw(column_specs(f"c{i}", flavor)) for i in range(n)]
    keyable = [i for i, s in enumerate(specs) if s.key_ok]
    key_kind = draw(st.sampled_from(["pk", "pk", "prefix_pk", "unique_not_null", "none", "unique_nullable"]))
    key_cols: list[int] = []
    if key_kind != "none" and keyable:
        key_cols = draw(st.lists(st.sampled_from(keyable), min_size=1, max_size=min(3, len(keyable)), unique=True))
    prefixable = [i for i in key_cols if specs[i].prefix_ok]
    if key_kind == "prefix_pk" and not prefixable:
        key_kind = "pk"
    if not key_cols:
        key_kind = "none"
    not_null_keys = key_kind in ("pk", "prefix_pk", "unique_not_null")
    nullable = [draw(st.booleans()) and not (not_null_keys and i in key_cols) for i in range(n)]
    lines = [f"`{s.name}` {s.ddl} {'NULL' if nullable[i] else 'NOT NULL'}" for i, s in enumerate(specs)]
    parts = []
    for i in key_cols:
        if key_kind == "prefix_pk" and i in prefixable:
            parts.append(f"`{specs[i].name}`(3)")
        else:
            parts.append(f"`{specs[i].name}`")
    if key_kind in ("pk", "prefix_pk"):
        lines.append(f"PRIMARY KEY ({', '.join(parts)})")
    elif key_kind in ("unique_not_null", "unique_nullable"):
        lines.append(f"UNIQUE KEY uk ({', '.join(parts)})")
    sql = "CREATE TABLE t (\n  " + ",\n  ".join(lines) + "\n)"
    table = Table.from_sql(sql, database=DB, flavor=flavor)
    pke = None
    if key_kind in ("pk", "prefix_pk"):
        pke = sorted(key_cols)
    elif key_kind == "unique_not_null" or (key_kind == "unique_nullable" and not any(nullable[i] for i in key_cols)):
        pke = sorted(key_cols)
    blobs = {i for i, s in enumerate(specs) if s.blob}
    return GenTable(table, specs, nullable, pke, sql, blobs)


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
        if kind == "insert":
            return given, None
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


# ------------------------------------------------------------------------------ workload

@dataclass
class Stmt:
    kind: str
    rows: list  # insert/delete: [(written_full_tuple, given)] ; update: [(before, after_map)]
    given: set[int]


@st.composite
def row_values(draw, gt: GenTable) -> tuple[tuple, tuple]:
    written, expected = [], []
    for i, s in enumerate(gt.specs):
        if gt.nullable[i] and draw(st.integers(0, 4)) == 0:
            w = e = None
        else:
            w, e = draw(s.values)
        written.append(w)
        expected.append(e)
    return tuple(written), tuple(expected)


@st.composite
def workloads(draw, gt: GenTable, flavor: str, image: str) -> list[list[Stmt]]:
    n = len(gt.specs)
    allc = set(range(n))
    txs = []
    for _ in range(draw(st.integers(1, 3))):
        stmts = []
        for _ in range(draw(st.integers(1, 3))):
            kind = draw(st.sampled_from(["insert", "update", "delete"]))
            nrows = draw(st.integers(1, 6))
            rows = [draw(row_values(gt)) for _ in range(nrows)]
            if kind == "insert":
                if image == "FULL" or (image == "NOBLOB" and flavor.startswith("mariadb") and gt.pke is None):
                    given = allc
                elif image == "MINIMAL":
                    given = set(draw(st.lists(st.sampled_from(sorted(allc)), min_size=1, unique=True)))
                else:
                    given = (allc - gt.blobs) | set(draw(st.lists(st.sampled_from(sorted(allc)), unique=True)))
                stmts.append(Stmt("insert", rows, given))
            elif kind == "delete":
                stmts.append(Stmt("delete", rows, allc))
            else:
                assigned = set(draw(st.lists(st.sampled_from(sorted(allc)), min_size=1, unique=True)))
                pairs = [(r, draw(row_values(gt))) for r in rows]
                stmts.append(Stmt("update", pairs, assigned))
        txs.append(stmts)
    return txs


# ------------------------------------------------------------------------------ the test

def _restrict(vals: tuple, cols: set[int]) -> tuple:
    return tuple(v if i in cols else ABSENT for i, v in enumerate(vals))


def _eq(a: Any, b: Any) -> bool:
    if isinstance(a, bytes | str) or isinstance(b, bytes | str):
        return type(a) is type(b) and a == b
    return a == b


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
                    if s.kind == "insert":
                        tx.insert(gt.table, [{gt.specs[i].name: r[0][i] for i in sorted(s.given)} for r in s.rows])
                        exp = [_restrict(r[1], b_cols) for r in s.rows]
                    elif s.kind == "delete":
                        tx.delete(gt.table, [r[0] for r in s.rows])
                        exp = [_restrict(r[1], b_cols) for r in s.rows]
                    else:
                        tx.update(gt.table, [(b[0], {gt.specs[i].name: a[0][i] for i in sorted(s.given)})
                                             for b, a in s.rows])
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
