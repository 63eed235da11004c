"""The generator-side type families (generators/columns/, issue 12 item 3): every schema type is
in exactly one family, and every family module has every face, callable with the faces'
signature, or None with a comment in the module saying why."""

from __future__ import annotations

import inspect
import types

import pytest

from binlogwriter.schema import parse_tables
from binlogwriter.schema.types import KNOWN_TYPES
from generators.columns import FACES, FAMILIES, family_of_type, sql_literal
from generators.hashing import Stream
from generators.spec import SpecError
from generators.values import key_capacity, key_generator, type_generator

# the family names of the binding spec (the codec side, binlogwriter/values/families.py, has the same)
NAMES = {"integer", "floating", "decimal", "bit", "year", "date", "time", "datetime", "timestamp", "char",
         "blob", "enum_set", "json", "geometry", "inet_uuid"}

SIGNATURES = {
    "generator": ["col", "table", "flavor", "edge", "start_time", "charset_stress"],  # stress: text only
    "vector_generator": ["col", "table", "flavor", "edge", "start_time"],
    "key_generator": ["col", "flavor", "table", "primary"],
    "key_capacity": ["col", "flavor", "prefix"],
    "key_vector_generator": ["col", "primary"],
    "coerce": ["col", "v", "where"],
    "sql_literal": ["col", "v", "flavor"],
    "sql_literals": ["col", "values", "flavor"],
}


def face_problems(mod: types.ModuleType) -> list[str]:
    """What is wrong with a family module's faces (empty when nothing)."""
    out = []
    for attr in ("FAMILY", "SQL_TYPES"):
        if not hasattr(mod, attr):
            out.append(f"no {attr}")
    try:
        src = inspect.getsource(mod).splitlines()
    except (OSError, TypeError):
        src = []
    for face in FACES:
        if not hasattr(mod, face):
            out.append(f"no face {face}")
            continue
        fn = getattr(mod, face)
        if fn is None:
            # documented: a comment on the assignment's line or within the three lines above
            at = [i for i, ln in enumerate(src) if ln.split("#")[0].strip() == f"{face} = None"]
            if not at or not any("#" in ln for i in at for ln in src[max(0, i - 3):i + 1]):
                out.append(f"{face} is None without a comment saying why")
            continue
        if not callable(fn):
            out.append(f"{face} is not callable")
            continue
        got = list(inspect.signature(fn).parameters)
        if got != SIGNATURES[face]:
            out.append(f"{face}{tuple(got)} is not {face}{tuple(SIGNATURES[face])}")
    return out


def test_family_names() -> None:
    assert set(FAMILIES) == NAMES
    for name, mod in FAMILIES.items():
        assert mod.FAMILY == name
        assert mod.__name__ == f"generators.columns.{name}"


def test_every_type_in_exactly_one_family() -> None:
    owners: dict[str, list[str]] = {}
    for name, mod in FAMILIES.items():
        for t in mod.SQL_TYPES:
            owners.setdefault(t, []).append(name)
    assert {t: o for t, o in owners.items() if len(o) != 1} == {}
    assert set(owners) == set(KNOWN_TYPES)
    for t in KNOWN_TYPES:
        assert family_of_type(t).FAMILY == owners[t][0]


@pytest.mark.parametrize("name", sorted(NAMES))
def test_every_face(name: str) -> None:
    assert face_problems(FAMILIES[name]) == []


def test_face_checker_finds_a_missing_or_wrong_face() -> None:
    """The checker itself: a module without a face, with an undocumented None and with a
    wrong signature is reported."""
    fake = types.ModuleType("fake")
    fake.FAMILY, fake.SQL_TYPES = "fake", ("FAKE",)
    for face in FACES:  # each face from a family that has it (no family has every one)
        setattr(fake, face, next(m.__dict__[face] for m in FAMILIES.values() if m.__dict__[face] is not None))
    assert face_problems(fake) == []
    del fake.coerce
    fake.key_generator = None
    fake.sql_literal = lambda col, v: ""
    got = face_problems(fake)
    assert "no face coerce" in got
    assert "key_generator is None without a comment saying why" in got
    assert any(p.startswith("sql_literal(") for p in got)


# one column of every type: the dispatch of generators/values.py reaches its family
DDL = """CREATE TABLE t (k INT NOT NULL PRIMARY KEY, c_tinyint TINYINT, c_smallint SMALLINT,
  c_mediumint MEDIUMINT UNSIGNED, c_int INT, c_bigint BIGINT, c_float FLOAT, c_double DOUBLE,
  c_decimal DECIMAL(10,2), c_bit BIT(5), c_year YEAR, c_date DATE, c_time TIME(3), c_datetime DATETIME(6),
  c_timestamp TIMESTAMP(2) NULL, c_char CHAR(4), c_varchar VARCHAR(20), c_binary BINARY(3),
  c_varbinary VARBINARY(9), c_tinytext TINYTEXT, c_text TEXT, c_mediumtext MEDIUMTEXT, c_longtext LONGTEXT,
  c_tinyblob TINYBLOB, c_blob BLOB, c_mediumblob MEDIUMBLOB, c_longblob LONGBLOB, c_enum ENUM('a','b'),
  c_set SET('x','y'), c_json JSON, c_geometry GEOMETRY, c_point POINT, c_linestring LINESTRING,
  c_polygon POLYGON, c_multipoint MULTIPOINT, c_multilinestring MULTILINESTRING,
  c_multipolygon MULTIPOLYGON, c_geometrycollection GEOMETRYCOLLECTION, c_inet4 INET4, c_inet6 INET6,
  c_uuid UUID)"""


def test_dispatch_reaches_every_family() -> None:
    table = parse_tables(DDL, "d", "mariadb1011")[0]
    seen = set()
    for col in table.columns[1:]:
        fam = family_of_type(col.type)
        seen.add(fam.FAMILY)
        if fam.generator is None:
            with pytest.raises(SpecError, match=col.name):
                type_generator(col, "t", "mariadb1011")
        else:
            v = type_generator(col, "t", "mariadb1011")(Stream(12345), 0)
            assert v == fam.generator(col, "t", "mariadb1011")(Stream(12345), 0)
            lit = sql_literal(col, v, "mariadb1011")
            assert lit == fam.sql_literal(col, v, "mariadb1011") and lit and lit != "NULL"
        if fam.key_generator is None:
            assert key_capacity(col, "mariadb1011") == 1
            with pytest.raises(SpecError, match=col.name):
                key_generator(col, "mariadb1011", "t", False)
        else:
            kg = key_generator(col, "mariadb1011", "t", False)
            n = min(key_capacity(col, "mariadb1011"), 2)
            assert len({repr(kg(k)) for k in range(n)}) == n
    assert seen == NAMES
    assert sql_literal(table.columns[1], None, "mariadb1011") == "NULL"


@pytest.mark.parametrize("sql_type", ["TINYINT", "TINYINT UNSIGNED", "SMALLINT", "MEDIUMINT UNSIGNED"])
def test_integer_unique_keys_stay_in_range(sql_type: str) -> None:
    """Every key below key_capacity gives a distinct value the column's type can hold,
    the same from the scalar and the numpy face (a UNIQUE non-primary key column)."""
    import numpy as np

    from generators.values import key_vector_generator

    col = parse_tables(f"CREATE TABLE t (id INT PRIMARY KEY, k {sql_type} NOT NULL, UNIQUE KEY (k))",
                       flavor="mysql80")[0].columns[1]
    cap = key_capacity(col, "mysql80")
    lo, hi = (0, 2 ** (8 * {"TINYINT": 1, "SMALLINT": 2, "MEDIUMINT": 3}[sql_type.split()[0]]) - 1)
    if "UNSIGNED" not in sql_type:
        lo, hi = -(hi + 1) // 2, hi // 2
    kg = key_generator(col, "mysql80", "t", False)
    vals = [kg(k) for k in range(min(cap, 1 << 17))]
    assert len(set(vals)) == len(vals) and lo <= min(vals) and max(vals) <= hi
    vec = key_vector_generator(col, False)(np.arange(len(vals), dtype=np.int64))
    assert [int(x) for x in vec.data] == vals


def test_composite_key_with_a_narrow_part(tmp_path) -> None:
    """A composite primary key is unique by its widest part: 300 rows fit although the
    TINYINT part alone holds 127 keys; every value is in range and every key distinct."""
    import subprocess
    import sys

    from binlogwriter.reader import BinlogReader

    sql = tmp_path / "s.sql"
    sql.write_text("CREATE TABLE c (k1 INT NOT NULL, k2 TINYINT NOT NULL, v INT, PRIMARY KEY (k1, k2));\n")
    out = tmp_path / "run"
    subprocess.run([sys.executable, "-m", "binlogwriter", "generate", "--schema", str(sql), "--initial-rows",
                    "300", "--ddl-in-binlog", "--transactions", "5", "--mix", "insert=1", "--out", str(out),
                    "--no-progress"], check=True, capture_output=True, timeout=300)
    rows = [tuple(r[:2]) for e in BinlogReader(sorted(out.glob("binlog.0*")))
            if getattr(e, "type_code", None) in (23, 30) for r in e.rows]
    assert len(rows) >= 300 and len(set(rows)) == len(rows)
    assert all(-128 <= k2 <= 127 for _, k2 in rows)
