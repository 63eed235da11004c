"""build_table_map / TableMap: server field choices and schema <-> TABLE_MAP round trips.

format.md §12, §12.1; mariadb.md "TABLE_MAP optional metadata".
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.charsets import collation
from binlogwriter.errors import DecodeError, EncodeError, SchemaError
from binlogwriter.layouts.table_map import table_map_layout
from binlogwriter.schema import Column, Key, KeyPart, Table
from binlogwriter.table_map.metadata import TableMap, build_table_map, encode_table_map
from binlogwriter.table_map.tlv import TLV_LAYOUTS

VECTORS = Path(__file__).resolve().parents[1] / "data" / "vectors"


def tlv_types(d) -> list[int]:
    return [t["type"] for t in d["optional_metadata"]]


def tlv(d, t) -> bytes:
    return next(x["value"] for x in d["optional_metadata"] if x["type"] == t)


# -- field choice ----------------------------------------------------------------------

def test_full_order_mysql_and_mariadb():
    t = Table.from_sql("""CREATE TABLE t (id INT PRIMARY KEY, y YEAR, c CHAR(3), g POINT,
        e ENUM('a','b'), s SET('x'), d INT INVISIBLE)""")
    assert tlv_types(build_table_map(t, 1, "mysql80", "FULL")) == [1, 2, 7, 4, 10, 5, 6, 8, 12]
    tm = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, y YEAR, c CHAR(3), g POINT, "
                        "e ENUM('a','b'), s SET('x'), d INT INVISIBLE)", flavor="mariadb1011")
    assert tlv_types(build_table_map(tm, 1, "mariadb1011", "FULL")) == [1, 3, 7, 4, 10, 5, 6, 8]
    assert tlv_types(build_table_map(t, 1, "mysql80", "MINIMAL")) == [1, 2, 7]
    assert tlv_types(build_table_map(tm, 1, "mariadb1011", "NO_LOG")) == []


def test_year_signedness_bit_per_flavor():
    sql = "CREATE TABLE t (y YEAR, u INT UNSIGNED, d DECIMAL(5,1) UNSIGNED)"
    assert tlv(build_table_map(Table.from_sql(sql), 1, "mysql80"), 1) == b"\x60"
    assert tlv(build_table_map(Table.from_sql(sql, flavor="mariadb1011"), 1, "mariadb1011"), 1) == b"\xe0"


def test_no_log_rejected_for_mysql():
    t = Table.from_sql("CREATE TABLE t (a INT)")
    for fl in ("mysql80", "mysql84"):
        with pytest.raises(EncodeError, match="NO_LOG"):
            build_table_map(t, 1, fl, "NO_LOG")


def test_charset_rule_examples():
    # {63x6, 224x5, 28x1}: 12 < 13 -> COLUMN_CHARSET (format.md §12.1)
    cols = [Column(f"b{i}", "VARBINARY", 4) for i in range(6)] + \
        [Column(f"u{i}", "VARCHAR", 4, collation="utf8mb4_unicode_ci") for i in range(5)] + \
        [Column("g", "VARCHAR", 4, charset="gbk")]
    assert tlv_types(build_table_map(Table("d", "t", tuple(cols)), 1, "mysql80", "MINIMAL")) == [3]
    # two columns both 224 -> DEFAULT_CHARSET
    t = Table("d", "t", (Column("a", "CHAR", 1, collation="utf8mb4_unicode_ci"),
                         Column("b", "CHAR", 1, collation="utf8mb4_unicode_ci")))
    assert build_table_map(t, 1, "mysql80", "MINIMAL")["optional_metadata"][0] == \
        {"type": 2, "value": b"\xe0"}
    # ids >= 251 are packed: {1248 x3, 1071} -> 02 | fc e0 04 02 fc 2f 04 (MariaDB 10.11)
    n1248, n1071 = collation(1248, "mariadb1011").name, collation(1071, "mariadb1011").name
    cols = [Column(f"c{i}", "CHAR", 1, collation=n1248) for i in range(2)] + \
        [Column("x", "CHAR", 1, collation=n1071), Column("y", "CHAR", 1, collation=n1248)]
    d = build_table_map(Table("d", "t", tuple(cols), flavor="mariadb1011"), 1, "mariadb1011", "MINIMAL")
    assert d["optional_metadata"][0] == {"type": 2, "value": bytes.fromhex("fce00402fc2f04")}


def test_enum_set_only_table_writes_no_charset_tlv():
    t = Table.from_sql("CREATE TABLE t (e ENUM('a') CHARSET latin1, s SET('b') CHARSET latin1)")
    assert tlv_types(build_table_map(t, 1, "mysql80", "FULL")) == [4, 10, 5, 6, 12]


def test_enum_strings_in_column_charset():
    t = Table.from_sql("CREATE TABLE t (e ENUM('a','é','z') CHARACTER SET latin1)", flavor="mariadb1011")
    assert tlv(build_table_map(t, 1, "mariadb1011"), 6) == bytes.fromhex("0301610" "1e9017a")


def test_primary_key_with_prefix_in_characters():
    t = Table.from_sql("CREATE TABLE t (id INT, name VARCHAR(20), PRIMARY KEY (name(10), id))")
    d = build_table_map(t, 1, "mysql80")
    assert tlv(d, 9) == bytes.fromhex("010a0000")  # format.md §12.1: (1, 10), (0, 0)


def test_unique_not_null_promoted_to_primary_key():
    t = Table.from_sql("""CREATE TABLE t_uniq (x INT, u INT NOT NULL, code CHAR(4) NOT NULL,
        UNIQUE KEY uk (u, code))""", flavor="mariadb1011")
    assert tlv(build_table_map(t, 1, "mariadb1011"), 8) == b"\x01\x02"
    t2 = Table.from_sql("CREATE TABLE t (u INT, UNIQUE KEY (u))")
    assert 8 not in tlv_types(build_table_map(t2, 1, "mysql80"))
    t3 = Table.from_sql("CREATE TABLE t (c CHAR(9) NOT NULL, UNIQUE KEY (c(3)))")
    assert 8 not in tlv_types(build_table_map(t3, 1, "mysql80")) and 9 not in tlv_types(
        build_table_map(t3, 1, "mysql80"))


def test_visibility_always_in_mysql_full_and_version_knob():
    t = Table.from_sql("CREATE TABLE t (a INT, b INT INVISIBLE)")
    assert tlv(build_table_map(t, 1, "mysql80"), 12) == b"\x80"
    assert 12 not in tlv_types(build_table_map(t, 1, "mysql80", server_version=(8, 0, 22)))


def test_wide_table_packed_count_and_bitmaps():
    cols = tuple(Column(f"c{i}", "INT", nullable=i % 3 == 0) for i in range(300))
    t = Table("d", "wide", cols)
    body = encode_table_map(build_table_map(t, 7, "mysql80"))
    tm = TableMap.from_bytes(body, "mysql80")
    assert tm.column_count == 300 and tm.encode() == body
    assert body[len(b"\x07\x00\x00\x00\x00\x00\x01\x00\x01d\x00\x04wide\x00"):][:3] == b"\xfc\x2c\x01"
    assert list(tm.nullable) == [c.nullable for c in cols]


def test_table_id_size_4():
    t = Table.from_sql("CREATE TABLE t (a INT)")
    body = encode_table_map(build_table_map(t, 9, "mysql80"), 4)
    assert body[:4] == b"\x09\x00\x00\x00"
    assert TableMap.from_bytes(body, "mysql80", 4).table_id == 9


def test_bad_bytes_raise_decode_error():
    t = Table.from_sql("CREATE TABLE t (a INT, b VARCHAR(3))")
    body = encode_table_map(build_table_map(t, 9, "mysql80"))
    with pytest.raises(DecodeError):
        TableMap.from_bytes(body[:-1], "mysql80")
    with pytest.raises(DecodeError):
        TableMap.from_bytes(body + b"\x01\x05\x00", "mysql80")


def test_minimal_views_merged_from_schema():
    t = Table.from_sql("CREATE TABLE t (id INT UNSIGNED PRIMARY KEY, e ENUM('a','b'), s SET('x','y'))")
    tm = TableMap.from_table(t, 3, "mysql80", "MINIMAL")
    assert tm.column_names is None and tm.columns[1].enum_values is None
    assert tm.column_descs(t) == t.column_descs("mysql80")
    with pytest.raises(SchemaError):
        tm.column_descs(Table.from_sql("CREATE TABLE t (id INT)"))


def test_every_vector_tlv_value_parse_build_identity():
    for fname in ("table_map.json", "mariadb.json"):
        for e in json.loads((VECTORS / fname).read_text()):
            raw = bytes.fromhex(e["hex"])
            if e["kind"] == "event_body" and e["context"].get("event_type") == 19:
                body = raw
            elif e["kind"] == "event" and raw[4] == 19:
                body = raw[19:-4] if "CRC32" in e["context"].get("checksum", "") else raw[19:]
            else:
                continue
            parsed = table_map_layout().parse(body)
            assert table_map_layout().build(parsed) == body
            for f in parsed.optional_metadata:
                lay = TLV_LAYOUTS[f.type]
                ctx = {"count": len(f.value) * 8} if f.type in (1, 12) else {}
                assert lay.build(lay.parse(f.value, **ctx), **ctx) == f.value


# -- property: random schemas ------------------------------------------------------------

CHARSETS = ["latin1", "utf8mb4", "utf8mb3", "ascii", "latin2", "ucs2", "utf32", "gbk", None]


@st.composite
def columns(draw, idx: int, flavor: str):
    name = f"c{idx}"
    kind = draw(st.sampled_from(["int", "dec", "float", "bit", "temporal", "char", "varchar",
                                 "binary", "text", "blob", "enum", "set", "json", "geo", "year",
                                 "date"] + (["inet"] if flavor.startswith("mariadb") else [])))
    nullable = draw(st.booleans())
    invisible = draw(st.integers(0, 5)) == 0
    cs = draw(st.sampled_from(CHARSETS))
    coll = None
    if cs in ("latin1", "utf8mb4", "ascii") and draw(st.booleans()):
        coll = cs + "_bin"
    common = dict(nullable=nullable, invisible=invisible)
    if kind == "int":
        return Column(name, draw(st.sampled_from(["TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT"])),
                      unsigned=draw(st.booleans()), **common)
    if kind == "dec":
        p = draw(st.integers(1, 65))
        return Column(name, "DECIMAL", precision=p, scale=draw(st.integers(0, min(p, 30))),
                      unsigned=draw(st.booleans()), **common)
    if kind == "float":
        return Column(name, draw(st.sampled_from(["FLOAT", "DOUBLE"])), unsigned=draw(st.booleans()),
                      **common)
    if kind == "bit":
        return Column(name, "BIT", draw(st.integers(1, 64)), **common)
    if kind == "temporal":
        return Column(name, draw(st.sampled_from(["TIME", "DATETIME", "TIMESTAMP"])),
                      fsp=draw(st.integers(0, 6)), **common)
    if kind in ("year", "date"):
        return Column(name, kind.upper(), **common)
    if kind == "char":
        return Column(name, "CHAR", draw(st.integers(0, 255)), charset=cs, collation=coll, **common)
    if kind == "varchar":
        return Column(name, "VARCHAR", draw(st.integers(0, 16383)), charset=cs, collation=coll, **common)
    if kind == "binary":
        return Column(name, draw(st.sampled_from(["BINARY", "VARBINARY"])), draw(st.integers(0, 255)),
                      **common)
    if kind == "text":
        return Column(name, draw(st.sampled_from(["TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT"])),
                      charset=cs, collation=coll, **common)
    if kind == "blob":
        return Column(name, draw(st.sampled_from(["TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB"])), **common)
    if kind in ("enum", "set"):
        n = draw(st.integers(1, 300 if kind == "enum" else 64))
        members = tuple(f"m{i}" for i in range(n))
        return Column(name, kind.upper(), members=members, charset=cs or "binary", **common)
    if kind == "json":
        return Column(name, "JSON", **common)
    if kind == "inet":
        return Column(name, draw(st.sampled_from(["INET6", "INET4", "UUID"])), **common)
    return Column(name, draw(st.sampled_from(["GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT",
                                              "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION"])),
                  **common)


@st.composite
def tables(draw):
    flavor = draw(st.sampled_from(["mysql80", "mysql84", "mariadb1011"]))
    n = draw(st.integers(1, 14))
    cols = [draw(columns(i, flavor)) for i in range(n)]
    if all(c.invisible for c in cols):
        cols[0] = Column(cols[0].name, "INT")
    keys = []
    keyable = [c for c in cols if c.type in ("INT", "BIGINT", "CHAR", "VARCHAR", "BINARY")
               and c.char_length() != 0]
    if keyable and draw(st.booleans()):
        chosen = draw(st.lists(st.sampled_from(keyable), min_size=1, max_size=3, unique_by=lambda c: c.name))
        parts = []
        for c in chosen:
            prefix = None
            if c.type in ("CHAR", "VARCHAR", "BINARY") and draw(st.booleans()):
                prefix = draw(st.integers(1, c.char_length()))
            parts.append(KeyPart(c.name, prefix))
        keys.append(Key(draw(st.sampled_from(["PRIMARY", "UNIQUE"])), tuple(parts)))
    tcs = draw(st.sampled_from(["latin1", "utf8mb4", None]))
    return Table("db", "t", tuple(cols), tuple(keys), charset=tcs, flavor=flavor), flavor


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.sampled_from(["FULL", "MINIMAL", "NO_LOG"]), st.integers(0, (1 << 48) - 1))
def test_random_schema_roundtrip(tf, mode, table_id):
    table, flavor = tf
    if mode == "NO_LOG" and not flavor.startswith("mariadb"):
        mode = "FULL"
    d = build_table_map(table, table_id, flavor, mode)
    body = encode_table_map(d)
    tm = TableMap.from_bytes(body, flavor)
    assert tm.encode() == body
    assert tm.table_id == table_id and tm.schema == "db" and tm.table == "t"
    assert tm.column_descs(table) == table.column_descs(flavor)
    pk = table.effective_primary_key()
    if mode == "FULL":
        # json_text (MariaDB JSON is a LONGTEXT) is schema knowledge no TLV carries
        assert tm.columns == [dataclasses.replace(c, json_text=False) for c in table.column_descs(flavor)]
        assert tm.column_names == [c.name for c in table.columns]
        assert tm.primary_key == (pk or None)
        if flavor.startswith("mysql"):
            assert tm.visibility == [not c.invisible for c in table.columns]
        else:
            assert tm.visibility is None
    else:
        assert tm.column_names is None and tm.primary_key is None
    if mode != "NO_LOG":
        geo = {i: c.geometry_type for i, c in enumerate(table.columns) if c.geometry_type is not None}
        assert (tm.geometry_types or {}) == geo
        assert tm.signedness == ({i: c.is_unsigned_in_binlog(flavor) for i, c in enumerate(table.columns)
                                  if c.is_numeric} or None)
        chars = {i: c.collation_id(flavor) for i, c in enumerate(table.columns) if c.is_character(flavor)}
        assert tm.charsets == (chars or None)
    else:
        assert tm.optional_metadata == ()
