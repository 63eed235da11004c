"""A catalogue of tables over every column type, edge values, and transactions with their
expected final rows — computed here by a plain Python model (key -> row), never by reading a
binlog back.

Used by test_writer_replay.py (write with BinlogWriter, replay into MariaDB, compare the
canonical dump, docs/output.md) and test_mysql_event_stream.py (decode with
mysql-event-stream, compare values).

``build(flavor)`` returns a :class:`Catalogue`: tables (``CatTable``: SQL, parsed Table, key
columns), ``transactions`` (list of list of statements ``("insert"|"update"|"delete", table
name, payload)``) and ``model`` (table name -> {key: full row}) after all of them. Rows are
full tuples of Python values in column order, the types the writer takes
(docs: binlogwriter/values/__init__.py).

Flavor differences: MariaDB's JSON is a LONGTEXT (values are the document's text); MySQL's
binary JSON (type 245) cannot be replayed into MariaDB, so ``t_json`` is marked
``mysql_binary_json`` for mysql flavors and the replay test leaves it out (docs/output.md "Known
limits"); it is still written and checked by the decoders.
"""

from __future__ import annotations

import datetime as dt
import decimal
import struct
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from binlogwriter.schema import Table
from binlogwriter.values import Geometry, MysqlDate, MysqlDateTime

DB = "cat"
UTC = dt.UTC

ENUM300 = tuple(f"m{i:03d}" for i in range(300))
SET64 = tuple(f"s{i:02d}" for i in range(64))


def _enum_sql(members) -> str:
    return ",".join(f"'{m}'" for m in members)


TABLE_SQL: dict[str, str] = {
    "t_int": """CREATE TABLE t_int (id INT NOT NULL PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED,
        si SMALLINT, su SMALLINT UNSIGNED, mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT,
        iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, y YEAR, b1 BIT(1), b10 BIT(10),
        b64 BIT(64), f FLOAT, d DOUBLE)""",
    "t_dec": """CREATE TABLE t_dec (id INT NOT NULL PRIMARY KEY, d1 DECIMAL(4,2), d2 DECIMAL(10,2),
        d3 DECIMAL(18,9), d4 DECIMAL(65,30), d5 DECIMAL(9,0), d6 DECIMAL(30,30),
        d7 DECIMAL(19,0) UNSIGNED)""",
    "t_time": """CREATE TABLE t_time (id INT NOT NULL PRIMARY KEY, dd DATE NULL, t0 TIME NULL,
        t2 TIME(2) NULL, t6 TIME(6) NULL, dt0 DATETIME NULL, dt3 DATETIME(3) NULL,
        dt4 DATETIME(4) NULL, dt6 DATETIME(6) NULL, ts0 TIMESTAMP NULL, ts1 TIMESTAMP(1) NULL,
        ts4 TIMESTAMP(4) NULL, ts6 TIMESTAMP(6) NULL, y YEAR NULL)""",
    "t_str": """CREATE TABLE t_str (id INT NOT NULL PRIMARY KEY,
        c CHAR(10) CHARACTER SET latin1, c4 CHAR(100) CHARACTER SET utf8mb4,
        vl VARCHAR(20) CHARACTER SET latin1, v3 VARCHAR(20) CHARACTER SET utf8mb3,
        v4 VARCHAR(300) CHARACTER SET utf8mb4, vg VARCHAR(20) CHARACTER SET gbk,
        vu VARCHAR(20) CHARACTER SET ucs2, v16 VARCHAR(20) CHARACTER SET utf16,
        v32 VARCHAR(20) CHARACTER SET utf32, vbin VARCHAR(20) CHARACTER SET binary,
        vb VARBINARY(20), bn BINARY(4))""",
    "t_blob": """CREATE TABLE t_blob (id INT NOT NULL PRIMARY KEY, tb TINYBLOB, tt TINYTEXT,
        b BLOB, tx TEXT CHARACTER SET utf8mb4, mt MEDIUMTEXT CHARACTER SET utf8mb4,
        lb LONGBLOB, tl TEXT CHARACTER SET latin1)""",
    "t_enum": f"""CREATE TABLE t_enum (id INT NOT NULL PRIMARY KEY,
        e ENUM({_enum_sql(ENUM300)}), s SET({_enum_sql(SET64)}),
        e2 ENUM('a','b','é') CHARACTER SET latin1, s2 SET('x','y','z'))""",
    "t_geo": """CREATE TABLE t_geo (id INT NOT NULL PRIMARY KEY, g GEOMETRY, p POINT)""",
    "t_json": """CREATE TABLE t_json (id INT NOT NULL PRIMARY KEY, j JSON)""",
    "t_nopk": """CREATE TABLE t_nopk (a INT, b VARCHAR(10), t TEXT)""",
    "t_uniq": """CREATE TABLE t_uniq (x INT, u INT NOT NULL, code CHAR(4) NOT NULL, note TEXT,
        UNIQUE KEY uk (u, code))""",
    "t_prefix": """CREATE TABLE t_prefix (name VARCHAR(20) NOT NULL, id INT NOT NULL, data TEXT,
        PRIMARY KEY (name(5), id))""",
    "t_big": """CREATE TABLE t_big (id INT NOT NULL PRIMARY KEY, v VARCHAR(50), n INT)""",
}

# the key of each table in the model: column names identifying a row (no-PK table: all)
KEYS = {"t_nopk": ("a", "b", "t"), "t_uniq": ("u", "code"), "t_prefix": ("name", "id")}


@dataclass
class CatTable:
    name: str
    sql: str
    table: Table
    key: tuple[str, ...]
    mysql_binary_json: bool = False

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.table.columns]

    def key_of(self, row: tuple) -> tuple:
        return tuple(row[self.table.index_of(k)] for k in self.key)


@dataclass
class Catalogue:
    flavor: str
    tables: dict[str, CatTable]
    transactions: list[list[tuple[str, str, Any]]] = field(default_factory=list)
    model: dict[str, dict[tuple, tuple]] = field(default_factory=dict)


def _point(x: float, y: float) -> bytes:
    return b"\x01" + (1).to_bytes(4, "little") + struct.pack("<dd", x, y)


def _linestring(points) -> bytes:
    return b"\x01" + (2).to_bytes(4, "little") + len(points).to_bytes(4, "little") + b"".join(
        struct.pack("<dd", x, y) for x, y in points)


def _rows(flavor: str) -> dict[str, list[tuple]]:
    maria = flavor.startswith("mariadb")
    big_text = ("0123456789abcdef" * 4375) + "é"  # 70 001 bytes: MEDIUMTEXT (3-byte length)
    return {
        "t_int": [
            (1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -(1 << 63), 0, 1901, 0, 0, 0,
             -3.4028234663852886e38, -1.7976931348623157e308),
            (2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, (1 << 63) - 1,
             (1 << 64) - 1, 2155, 1, 1023, (1 << 64) - 1, 1.5, 2.2250738585072014e-308),
            (3, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, 0, None, 0b1010101010, 1 << 63, 0.1, 0.1),
            (4, None, None, None, None, None, None, None, None, None, None, None, None, None, None,
             None, None),
        ],
        "t_dec": [
            (1, Decimal("-10.55"), Decimal("-123.45"), Decimal("-123456789.123456789"),
             Decimal("-" + "9" * 35 + "." + "9" * 30), Decimal("-999999999"),
             Decimal("-0.000000000000000000000000000001"), Decimal("0")),
            (2, Decimal("99.99"), Decimal("12345678.90"), Decimal("0.000000001"),
             Decimal("1" + "0" * 34 + ".000000000000000000000000000001"), Decimal("123456789"),
             Decimal("0.1"), Decimal("9999999999999999999")),
            (3, Decimal("0.00"), Decimal("-0.01"), Decimal("999999999.999999999"),
             Decimal("-0.000000001"), Decimal("0"), Decimal("-0.999999999999999999999999999999"),
             Decimal("1000000000")),
            (4, None, None, None, None, None, None, None),
        ],
        "t_time": [
            (1, MysqlDate(0, 0, 0), dt.timedelta(0), dt.timedelta(microseconds=-10000),
             -dt.timedelta(hours=838, minutes=59, seconds=59), MysqlDateTime(0, 0, 0),
             MysqlDateTime(0, 0, 0), MysqlDateTime(0, 0, 0), dt.datetime(1000, 1, 1),
             MysqlDateTime(0, 0, 0), dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC),
             dt.datetime(2000, 1, 1, 12, 0, 0, 123400, tzinfo=UTC),
             dt.datetime(2038, 1, 19, 3, 14, 7, 999999, tzinfo=UTC), 0),
            (2, dt.date(2024, 2, 29), dt.timedelta(hours=838, minutes=59, seconds=59),
             -dt.timedelta(hours=15, minutes=4, seconds=5, microseconds=120000),
             -dt.timedelta(microseconds=1), dt.datetime(9999, 12, 31, 23, 59, 59),
             dt.datetime(2024, 2, 29, 12, 34, 56, 789000), dt.datetime(1, 1, 1, 0, 0, 0, 123500),
             dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
             dt.datetime(2038, 1, 19, 3, 14, 7, tzinfo=UTC),
             dt.datetime(2001, 2, 3, 4, 5, 6, 900000, tzinfo=UTC),
             dt.datetime(1999, 12, 31, 23, 59, 59, 999900, tzinfo=UTC),
             dt.datetime(2024, 2, 29, 0, 0, 0, 1, tzinfo=UTC), 2024),
            (3, dt.date(1000, 1, 1), -dt.timedelta(seconds=1), dt.timedelta(hours=100, microseconds=990000),
             dt.timedelta(hours=-838, minutes=-59, seconds=-58, microseconds=-999999),
             dt.datetime(2016, 10, 28, 15, 30, 42), None, None, None, None, None, None, None, 1901),
            (4,) + (None,) * 13,
        ],
        "t_str": [
            (1, "ab  ", "€ padded  ", "é" * 20, "€uro中", "😀" * 300, "中文汉字", "ucs2 €", "utf16 😀",
             "utf32 😀", b"\x00bin\xff", b"\x00\x01\x02\xff", b"a\x00"),
            (2, "", "", "", "", "", "", "", "", "", b"", b"", b""),
            (3, "0123456789", "x" * 100, "a'b\\c\"d", "\n\t\r", "  lead", "x", "y", "z", "w", b" ", b"\xff" * 20,
             b"\xff\xff\xff\xff"),
            (4,) + (None,) * 12,
        ],
        "t_blob": [
            (1, b"\x00" * 255, "t" * 255, b"\x01" * 65535, "é" * 100, big_text, b"\x00\xff" * 40000, "é"),
            (2, b"", "", b"", "", "", b"", ""),
            (3, None, None, None, None, None, None, None),
        ],
        "t_enum": [
            (1, "", frozenset(), "a", frozenset()),  # ENUM index 0: the invalid-value ''
            (2, "m000", frozenset({"s00"}), "é", frozenset({"x", "z"})),
            (3, "m299", frozenset(SET64), "b", frozenset({"x", "y", "z"})),
            (4, "m255", frozenset({"s07", "s08", "s63"}), None, None),
            (5, None, None, None, None),
        ],
        "t_geo": [
            (1, Geometry(0, _point(1.5, -2)), Geometry(0, _point(0, 0))),
            (2, Geometry(4326, _linestring([(0, 0), (1, 1), (2, 0.5)])), Geometry(4326, _point(-1e10, 3.25))),
            (3, None, None),
        ],
        "t_json": [
            (1, '{"a": 1, "b": [true, null, "x"]}' if maria else {"a": 1, "b": [True, None, "x"]}),
            (2, '[]' if maria else []),
            (3, '"str"' if maria else "str"),
            (4, None),
        ],
        "t_nopk": [
            (1, "one", "t1"), (2, "two", None), (None, None, None), (4, "four", "x" * 300),
        ],
        "t_uniq": [
            (None, 1, "a", "n1"), (5, 1, "b", None), (6, 2, "a", "n3"),
        ],
        "t_prefix": [
            ("alpha-long-name", 1, "d1"), ("alpha-long-name", 2, None), ("beta", 1, "d3"),
        ],
    }


def build(flavor: str) -> Catalogue:
    """The catalogue for ``flavor``: tables, transactions and the model after them."""
    mysql = not flavor.startswith("mariadb")
    tables = {}
    for name, sql in TABLE_SQL.items():
        t = Table.from_sql(sql, database=DB, flavor=flavor)
        key = KEYS.get(name) or tuple(t.columns[i].name for i, _ in t.effective_primary_key())
        tables[name] = CatTable(name, sql, t, key, mysql_binary_json=mysql and name == "t_json")
    cat = Catalogue(flavor, tables)
    model: dict[str, dict[tuple, tuple]] = {n: {} for n in tables}
    txs: list[list[tuple[str, str, Any]]] = []

    def insert(stmts, name, rows):
        ct = tables[name]
        for r in rows:
            k = ct.key_of(r)
            assert k not in model[name], (name, k)
            model[name][k] = tuple(r)
        stmts.append(("insert", name, [tuple(r) for r in rows]))

    def update(stmts, name, changes):
        """changes: [(key, {column: new value})] -> (before full row, assigned) pairs."""
        ct = tables[name]
        pairs = []
        for k, assigned in changes:
            before = model[name].pop(k)
            after = list(before)
            for c, v in assigned.items():
                after[ct.table.index_of(c)] = v
            after = tuple(after)
            nk = ct.key_of(after)
            assert nk not in model[name], (name, nk)
            model[name][nk] = after
            pairs.append((before, dict(assigned)))
        stmts.append(("update", name, pairs))

    def delete(stmts, name, keys):
        rows = [model[name].pop(k) for k in keys]
        stmts.append(("delete", name, rows))

    rows = _rows(flavor)
    # 1: multi-row inserts into every table
    tx: list = []
    for name, rs in rows.items():
        insert(tx, name, rs)
    txs.append(tx)
    # 2: updates assigning some columns, deletes
    tx = []
    update(tx, "t_int", [((1,), {"ti": 5, "bu": 7}), ((3,), {"f": None, "b64": 1})])
    update(tx, "t_dec", [((2,), {"d2": Decimal("-0.50")})])
    update(tx, "t_time", [((3,), {"dt3": dt.datetime(2020, 5, 6, 7, 8, 9, 10000), "t0": dt.timedelta(hours=-1)})])
    update(tx, "t_str", [((2,), {"c": "x", "v4": "ж" * 10}), ((3,), {"bn": b"\x01"})])
    update(tx, "t_blob", [((2,), {"mt": "small now", "b": b"\x02"})])
    update(tx, "t_enum", [((1,), {"e": "m001", "s": frozenset({"s10", "s20"})})])
    update(tx, "t_geo", [((3,), {"p": Geometry(0, _point(7, 8))})])
    update(tx, "t_json", [((2,), {"j": '{"k": "v"}' if not mysql else {"k": "v"}})])
    update(tx, "t_nopk", [((1, "one", "t1"), {"b": "uno"})])
    update(tx, "t_uniq", [((1, "b"), {"note": "changed", "x": 50})])
    update(tx, "t_prefix", [(("beta", 1), {"data": "d3 changed"})])
    delete(tx, "t_int", [(4,)])
    delete(tx, "t_str", [(4,)])
    delete(tx, "t_nopk", [(2, "two", None)])
    delete(tx, "t_uniq", [(2, "a")])
    delete(tx, "t_prefix", [("alpha-long-name", 2)])
    delete(tx, "t_enum", [(5,)])
    txs.append(tx)
    # 3: a 3,000-row transaction
    tx = []
    insert(tx, "t_big", [(i, f"value {i:05d} " + "x" * (i % 30), i * 7 if i % 11 else None)
                         for i in range(1, 3001)])
    txs.append(tx)
    # 4: big update and delete (several rows events per statement)
    tx = []
    update(tx, "t_big", [((i,), {"n": -i}) for i in range(1, 3001, 5)])
    delete(tx, "t_big", [(i,) for i in range(2, 3001, 7)])
    txs.append(tx)
    cat.transactions = txs
    cat.model = model
    return cat


# ------------------------------------------------------------------------------ canonical form

_WIDE = decimal.Context(prec=100)


def _fsp(col) -> int:
    return col.fsp or 0


def canonical_value(col, v: Any) -> Any:
    """A Python value of ``col`` in docs/output.md's canonical form (as MariaDB's dump prints it)."""
    if v is None:
        return None
    t = col.type
    if t in ("TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR", "BIT"):
        return int(v)
    if t == "FLOAT":
        return struct.unpack("<f", struct.pack("<f", v))[0]
    if t == "DOUBLE":
        return float(v)
    if t == "DECIMAL":
        s = col.scale or 0
        return format(Decimal(v).quantize(Decimal(1).scaleb(-s), context=_WIDE), "f")
    if t == "DATE":
        return f"{v.year:04d}-{v.month:02d}-{v.day:02d}"
    if t in ("DATETIME", "TIMESTAMP"):
        if isinstance(v, dt.datetime) and v.tzinfo is not None:
            v = v.astimezone(UTC)
        s = f"{v.year:04d}-{v.month:02d}-{v.day:02d} {v.hour:02d}:{v.minute:02d}:{v.second:02d}"
        f = _fsp(col)
        return s + (f".{v.microsecond:06d}"[: f + 1] if f else "")
    if t == "TIME":
        us = (v.days * 86400 + v.seconds) * 1_000_000 + v.microseconds
        sign, us = ("-" if us < 0 else ""), abs(us)
        secs, frac = divmod(us, 1_000_000)
        s = f"{sign}{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}"
        f = _fsp(col)
        return s + (f".{frac:06d}"[: f + 1] if f else "")
    if t == "ENUM":
        return v
    if t == "SET":
        return ",".join(m for m in col.members if m in v)
    if isinstance(v, Geometry):
        return "0x" + v.to_bytes().hex()
    if isinstance(v, bytes):
        if t == "BINARY":
            v = v.ljust(col.length or 1, b"\0")
        return "0x" + v.hex()
    if t == "CHAR":
        return v.rstrip(" ")
    return v  # VARCHAR, TEXT, MariaDB JSON text


def sort_key(row: tuple) -> tuple:
    return tuple((0, 0) if v is None else (1, v) if isinstance(v, int | float) else (2, v) for v in row)


def expected_dump(cat: Catalogue, name: str) -> list[tuple]:
    """The canonical rows of table ``name`` after every transaction, in canonical order."""
    ct = cat.tables[name]
    rows = [tuple(canonical_value(c, v) for c, v in zip(ct.table.columns, r, strict=True))
            for r in cat.model[name].values()]
    return sorted(rows, key=sort_key)
