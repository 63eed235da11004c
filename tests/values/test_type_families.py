"""The codec side's type-family registry (binlogwriter/values/families.py, docs/adding-a-type.md).

Every SQL type the schema model knows is in exactly one family; every family module has every
face (FAMILY, SQL_TYPES, TYPE_CODES, binlog_type, binlog_meta, renderer, truth_renderer,
arrow_type, type_text, a registered codec for each of its type codes); and the faces agree with each other on real
columns of every type and flavor: the type code a family writes is read by a codec the
registry finds for that column, a value of the type goes through that codec and both
renderers.
"""

from __future__ import annotations

import datetime as dt
import inspect
from decimal import Decimal
from types import ModuleType

import pyarrow as pa
import pytest

from binlogwriter.read.export import arrow_type as export_arrow_type
from binlogwriter.schema import KNOWN_TYPES, parse_tables
from binlogwriter.text.columns import type_string
from binlogwriter.values import Geometry, bind_column
from binlogwriter.values._common import REGISTRY
from binlogwriter.values.families import FAMILIES, family_of_code, family_of_column, family_of_type
from binlogwriter.values.render import renderer as render_dispatch

FLAVORS = ("mysql80", "mysql84", "mariadb1011")

# the faces of docs/adding-a-type.md and the parameter names each takes
FACES = {
    "binlog_type": ("col", "flavor"),
    "binlog_meta": ("col", "flavor"),
    "renderer": ("col", "family"),
    "truth_renderer": ("col", "flavor"),
    "arrow_type": ("col",),
    "type_text": ("type_code", "meta", "family"),
}

# one column definition and one value per SQL type: the faces are exercised on each
SAMPLES: dict[str, tuple[str, object]] = {
    "TINYINT": ("TINYINT", -5), "SMALLINT": ("SMALLINT UNSIGNED", 65535), "MEDIUMINT": ("MEDIUMINT", -8388608),
    "INT": ("INT", 7), "BIGINT": ("BIGINT", -(1 << 63)),
    "FLOAT": ("FLOAT", 1.5), "DOUBLE": ("DOUBLE", -0.1),
    "DECIMAL": ("DECIMAL(10,2)", Decimal("-12.50")),
    "BIT": ("BIT(5)", 0b10110),
    "YEAR": ("YEAR", 2024),
    "DATE": ("DATE", dt.date(2024, 2, 29)),
    "TIME": ("TIME(3)", dt.timedelta(hours=-838, microseconds=-5000)),
    "DATETIME": ("DATETIME(6)", dt.datetime(2024, 1, 2, 3, 4, 5, 123456)),
    "TIMESTAMP": ("TIMESTAMP(2)", dt.datetime(2024, 1, 2, 3, 4, 5, 120000, tzinfo=dt.UTC)),
    "CHAR": ("CHAR(3)", "ab"), "VARCHAR": ("VARCHAR(10)", "héllo"),
    "BINARY": ("BINARY(3)", b"\x01\x02\x00"), "VARBINARY": ("VARBINARY(10)", b"\x00\xff"),
    "TINYTEXT": ("TINYTEXT", "t"), "TEXT": ("TEXT", "text"), "MEDIUMTEXT": ("MEDIUMTEXT", "m"),
    "LONGTEXT": ("LONGTEXT", "l"),
    "TINYBLOB": ("TINYBLOB", b"\x01"), "BLOB": ("BLOB", b"\x02"), "MEDIUMBLOB": ("MEDIUMBLOB", b""),
    "LONGBLOB": ("LONGBLOB", b"\x03\x04"),
    "ENUM": ("ENUM('a','b','c')", "b"), "SET": ("SET('x','y','z')", frozenset({"x", "z"})),
    "JSON": ("JSON", {"k": [1, "two", None]}),
    "GEOMETRY": ("GEOMETRY", Geometry(0, bytes.fromhex("0101000000" + "00" * 16))),
    "POINT": ("POINT", Geometry(4326, bytes.fromhex("0101000000" + "00" * 16))),
    "LINESTRING": ("LINESTRING", Geometry(0, bytes.fromhex("010200000000000000"))),
    "POLYGON": ("POLYGON", Geometry(0, bytes.fromhex("010300000000000000"))),
    "MULTIPOINT": ("MULTIPOINT", Geometry(0, bytes.fromhex("010400000000000000"))),
    "MULTILINESTRING": ("MULTILINESTRING", Geometry(0, bytes.fromhex("010500000000000000"))),
    "MULTIPOLYGON": ("MULTIPOLYGON", Geometry(0, bytes.fromhex("010600000000000000"))),
    "GEOMETRYCOLLECTION": ("GEOMETRYCOLLECTION", Geometry(0, bytes.fromhex("010700000000000000"))),
    "INET4": ("INET4", b"\x7f\x00\x00\x01"), "INET6": ("INET6", bytes(range(16))),
    "UUID": ("UUID", bytes(range(16, 32))),
}
MARIADB_ONLY = {"INET4", "INET6", "UUID"}


def test_every_known_type_is_in_exactly_one_family() -> None:
    owners: dict[str, list[str]] = {}
    for name, mod in FAMILIES.items():
        for t in mod.SQL_TYPES:
            owners.setdefault(t, []).append(name)
    assert {t: fams for t, fams in owners.items() if len(fams) != 1} == {}
    assert set(owners) == set(KNOWN_TYPES), "families and schema/types.py KNOWN_TYPES differ"
    for t in KNOWN_TYPES:
        assert family_of_type(t) is FAMILIES[owners[t][0]]
    assert family_of_type("NO SUCH TYPE") is None


def test_the_samples_cover_every_known_type() -> None:
    assert set(SAMPLES) == set(KNOWN_TYPES)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_every_family_has_every_face(name: str) -> None:
    mod: ModuleType = FAMILIES[name]
    assert mod.FAMILY == name
    assert isinstance(mod.SQL_TYPES, tuple) and mod.SQL_TYPES and all(isinstance(t, str) for t in mod.SQL_TYPES)
    assert isinstance(mod.TYPE_CODES, tuple) and all(isinstance(c, int) for c in mod.TYPE_CODES)
    for face, params in FACES.items():
        fn = getattr(mod, face, None)
        assert callable(fn), f"{name}.{face} is missing"
        assert tuple(inspect.signature(fn).parameters)[:len(params)] == params, f"{name}.{face} signature"
    for code in mod.TYPE_CODES:  # a codec for every code it claims, and no other family claims it
        assert code in REGISTRY, f"{name}: no codec registered for type code {code}"
        assert family_of_code(code) is mod
    if not mod.TYPE_CODES:  # a family without codes of its own says whose codec reads it
        assert "codec" in (mod.__doc__ or "") and "TYPE_CODES" in inspect.getsource(mod)


def test_type_codes_belong_to_one_family() -> None:
    seen: dict[int, str] = {}
    for name, mod in FAMILIES.items():
        for code in mod.TYPE_CODES:
            assert code not in seen, f"type code {code} in {seen[code]} and {name}"
            seen[code] = name
    assert set(REGISTRY) - set(seen) == {6}  # the NULL type: no schema type, values/_null.py


@pytest.mark.parametrize(("sql_type", "flavor"), [(t, f) for t in sorted(KNOWN_TYPES) for f in FLAVORS
                                                   if t not in MARIADB_ONLY or f.startswith("mariadb")])
def test_faces_agree_on_a_real_column(sql_type: str, flavor: str) -> None:
    """binlog_type/binlog_meta of the family are what the schema model answers; the column
    they describe is read by a codec the registry finds (its family, or the family whose
    codec the module names); a value goes through it and through both renderers."""
    definition, value = SAMPLES[sql_type]
    (table,) = parse_tables(f"CREATE TABLE t (c {definition})", flavor=flavor)
    col = table.columns[0]
    fam = family_of_type(sql_type)
    assert fam is not None and col.type == sql_type
    assert fam.binlog_type(col, flavor) == col.binlog_type(flavor)
    assert fam.binlog_meta(col, flavor) == col.binlog_meta(flavor)
    desc = col.column_desc(flavor, "t")
    reader = family_of_column(desc)
    assert reader is not None
    if reader is not fam:  # the family's codes are another family's codec: it says which
        assert reader.FAMILY in (fam.__doc__ or ""), f"{fam.FAMILY} is read by {reader.FAMILY} unannounced"
    bound = bind_column(desc)
    data = bound.encode(value)
    back, end = bound.decode(data, 0)
    assert end == len(data) and bound.encode(back) == data
    family = "mariadb" if flavor.startswith("mariadb") else "mysql"
    if not (desc.type_code == 245 and family == "mariadb"):  # mariadb-binlog has no JSON printer
        text = render_dispatch(desc, family)(back)
        assert isinstance(text, str) and text == reader.renderer(desc, family)(back)
        # the -vv comment type: the listing's dispatcher asks the reading family
        meta = int.from_bytes(bytes(desc.meta)[:2], "big") if desc.type_code in (247, 248, 253, 254) \
            else int.from_bytes(bytes(desc.meta), "little")
        code = desc.type_code if reader.FAMILY != "enum_set" else bytes(desc.meta)[0]
        named = reader.type_text(code, meta, family)
        assert isinstance(named, str) and named == type_string(code, meta, family)
    canon = fam.truth_renderer(col, flavor)(back)
    assert isinstance(canon, int | float | str)
    typ = reader.arrow_type(desc)
    assert isinstance(typ, pa.DataType) and typ == export_arrow_type(desc)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_a_family_without_a_vectorised_encoder_says_so(name: str) -> None:
    """Every codec class of the family has ``encode_many``/``encode_array`` on the columns of
    the samples, or the module says in a comment that it has none (the scalar path runs)."""
    mod = FAMILIES[name]
    source = inspect.getsource(mod)
    if "no vectorised encoder" in source:
        return
    vectorised = False
    for sql_type in mod.SQL_TYPES:
        definition, _ = SAMPLES[sql_type]
        flavor = "mariadb1011" if sql_type in MARIADB_ONLY else "mysql80"
        (table,) = parse_tables(f"CREATE TABLE t (c {definition})", flavor=flavor)
        b = bind_column(table.columns[0].column_desc(flavor, "t"))
        vectorised |= b.encode_many is not None or b.encode_array is not None
    assert vectorised, f"{name}: no vectorised encoder and no comment saying so"
