"""``--edge-values`` (generators/edge_values.py) and the integers' whole range of ``--schema``
runs: for random columns of every type family, with nearly every value an edge value, each
type's minimum and maximum come up and every value is one the column can hold — both
checked against limits written out here from values.md §1, not taken from the generator.
And the option's plumbing: the spec key, its manifest entry, the built-in workloads'
bytes without it, ``sysbench.k`` untouched."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from binlogwriter.values import MysqlDate
from binlogwriter.values.types import MysqlDateTime
from generators.edge_values import ValueMode
from generators.engine import generate
from generators.errors import SpecError
from generators.spec import ColumnGen, Spec
from generators.values import column_generator, column_vector_generator
from tests.generators.conftest import tree_digest

BITS = {"TINYINT": 8, "SMALLINT": 16, "MEDIUMINT": 24, "INT": 32, "BIGINT": 64}
# MySQL's latin1 is cp1252 (values.md)
CHARSETS = {
    "latin1": ("cp1252", 1),
    "utf8mb4": ("utf-8", 4),
    "utf8mb3": ("utf-8", 3),
    "gbk": ("gbk", 2),
    "ucs2": ("utf-16-be", 2),
}
TIME_MAX = dt.timedelta(hours=838, minutes=59, seconds=59)
ZERO_DATE, ZERO_DT = MysqlDate(0, 0, 0), MysqlDateTime(0, 0, 0, 0, 0, 0, 0)
UTC = dt.UTC


def _frac(fsp: int) -> int:
    return int("9" * fsp + "0" * (6 - fsp)) if fsp else 0


@st.composite
def column_types(draw) -> str:
    fam = draw(
        st.sampled_from(
            [
                "int",
                "decimal",
                "float",
                "bit",
                "year",
                "date",
                "datetime",
                "timestamp",
                "time",
                "char",
                "binary",
                "enum",
                "set",
                "json",
            ]
        )
    )
    if fam == "int":
        return draw(st.sampled_from(sorted(BITS))) + draw(st.sampled_from(["", " UNSIGNED"]))
    if fam == "decimal":
        p = draw(st.integers(1, 65))
        s = draw(st.integers(0, min(p, 30)))
        return f"DECIMAL({p},{s})" + draw(st.sampled_from(["", " UNSIGNED"]))
    if fam == "float":
        return draw(st.sampled_from(["FLOAT", "DOUBLE"])) + draw(st.sampled_from(["", " UNSIGNED"]))
    if fam == "bit":
        return f"BIT({draw(st.integers(1, 64))})"
    if fam in ("datetime", "timestamp", "time"):
        return f"{fam.upper()}({draw(st.integers(0, 6))})"
    if fam == "char":
        t = draw(st.sampled_from(["CHAR", "VARCHAR", "TINYTEXT", "TEXT"]))
        n = f"({draw(st.integers(1, 255 if t == 'CHAR' else 400))})" if t in ("CHAR", "VARCHAR") else ""
        return f"{t}{n} CHARACTER SET {draw(st.sampled_from(sorted(CHARSETS)))}"
    if fam == "binary":
        t = draw(st.sampled_from(["BINARY", "VARBINARY", "TINYBLOB", "BLOB"]))
        return t + (f"({draw(st.integers(1, 300))})" if t in ("BINARY", "VARBINARY") else "")
    if fam in ("enum", "set"):
        members = draw(
            st.lists(
                st.sampled_from(["a", "b", "cc", "ddd", "e e", "f'g"]), min_size=1, max_size=6, unique=True
            )
        )
        return f"{fam.upper()}(" + ",".join("'" + m.replace("'", "''") + "'" for m in members) + ")"
    return fam.upper()


def _limits(col, typ: str, flavor: str) -> list:
    """The values of values.md §1 that must appear: each type's minimum and maximum (and
    the other limits the option promises), written out from the type's declaration."""
    t = col.type
    if t in BITS:
        b = BITS[t]
        lo, hi = (0, 2**b - 1) if col.unsigned else (-(2 ** (b - 1)), 2 ** (b - 1) - 1)
        extra = [x for x in (0, -1, 2**31 - 1, 2**32 - 1, 2**63 - 1, -(2**31)) if lo <= x <= hi]
        return [lo, hi, *extra]
    if t == "DECIMAL":
        p, s = col.precision, col.scale
        top = Decimal(("9" * (p - s) or "0") + ("." + "9" * s if s else ""))
        return [top, Decimal(0).scaleb(-s)] + (
            [] if col.unsigned else [top.copy_negate()]
        )  # copy_negate: exact
    if t == "FLOAT":
        return [3.4028234663852886e38, 0.0] + ([] if col.unsigned else [-3.4028234663852886e38])
    if t == "DOUBLE":
        return [1.7976931348623157e308, 0.0] + ([] if col.unsigned else [-1.7976931348623157e308])
    if t == "BIT":
        return [0, 2**col.length - 1]
    if t == "YEAR":
        return [1901, 2155, 0]
    if t == "DATE":
        return [dt.date(1000, 1, 1), dt.date(9999, 12, 31), ZERO_DATE]
    if t == "DATETIME":
        return [dt.datetime(1000, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, _frac(col.fsp or 0)), ZERO_DT]
    if t == "TIMESTAMP":
        return [
            dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC),
            dt.datetime(2038, 1, 19, 3, 14, 7, _frac(col.fsp or 0), tzinfo=UTC),
            ZERO_DT,
        ]
    if t == "TIME":
        return [TIME_MAX, -TIME_MAX, dt.timedelta(0)]
    if t in ("CHAR", "VARCHAR", "TINYTEXT", "TEXT"):
        return [""]
    if t == "BINARY":
        return [bytes(col.length), b"\xff" * col.length]
    if t == "VARBINARY":
        return [b"", b"\xff" * col.length]
    if t in ("TINYBLOB", "BLOB"):
        return [b"", b"\xff" * (255 if t == "TINYBLOB" else 65535)]
    if t == "ENUM":
        return [col.members[0], col.members[-1]]
    if t == "SET":
        return [frozenset(), frozenset(col.members)]
    assert t == "JSON", typ
    return ["{}", "[]"] if flavor.startswith("mariadb") else [{}, []]  # MariaDB's JSON is LONGTEXT


def _in_range(col, v, flavor: str) -> bool:
    t = col.type
    if t in BITS:
        b = BITS[t]
        return (0 <= v < 2**b) if col.unsigned else (-(2 ** (b - 1)) <= v < 2 ** (b - 1))
    if t == "DECIMAL":
        p, s = col.precision, col.scale
        digits = v.as_tuple()
        return (
            -digits.exponent == s
            and v.copy_abs() < Decimal(10) ** (p - s)  # copy_abs: no rounding
            and not (col.unsigned and v < 0)
        )
    if t in ("FLOAT", "DOUBLE"):
        top = 3.4028234663852886e38 if t == "FLOAT" else 1.7976931348623157e308
        return abs(v) <= top and not (col.unsigned and v < 0)
    if t == "BIT":
        return 0 <= v < 2**col.length
    if t == "YEAR":
        return v == 0 or 1901 <= v <= 2155
    if t in ("DATE", "DATETIME"):
        return v in (ZERO_DATE, ZERO_DT) or v.year >= 1000
    if t == "TIMESTAMP":
        return v == ZERO_DT or dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC) <= v < dt.datetime(
            2038, 1, 19, 3, 14, 8, tzinfo=UTC
        )
    if t == "TIME":
        return -TIME_MAX <= v <= TIME_MAX
    if t in ("CHAR", "VARCHAR", "TINYTEXT", "TEXT"):
        codec, mb = CHARSETS[col.charset]
        n = col.length if t in ("CHAR", "VARCHAR") else None
        nbytes = n * mb if n is not None else (255 if t == "TINYTEXT" else 65535)
        bmp = col.charset not in ("utf8mb3", "ucs2") or all(ord(ch) < 0x10000 for ch in v)
        return bmp and (n is None or len(v) <= n) and len(v.encode(codec)) <= nbytes
    if t == "BINARY":
        return len(v) == col.length
    if t in ("VARBINARY", "TINYBLOB", "BLOB"):
        return len(v) <= {"VARBINARY": col.length, "TINYBLOB": 255, "BLOB": 65535}[t]
    if t == "ENUM":
        return v in col.members or v == ""
    if t == "SET":
        return v <= frozenset(col.members)
    return True


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    cols=st.lists(st.tuples(column_types(), st.booleans()), min_size=1, max_size=5),
    share=st.sampled_from([0.95, 1.0]),
    flavor=st.sampled_from(["mysql80", "mariadb1011"]),
    seed=st.integers(0, 2**40),
)
def test_edge_values_cover_the_limits_and_stay_in_range(cols, share, flavor, seed) -> None:
    """A random table: on the row function and on the batch path alike, every column's
    limits (and NULL when nullable) come up and no value is outside its column."""
    defs = ", ".join(
        f"c{i} {typ} {'NULL' if nullable else 'NOT NULL'}" for i, (typ, nullable) in enumerate(cols)
    )
    table = parse_tables(f"CREATE TABLE t (k INT NOT NULL PRIMARY KEY, {defs})", "d", flavor)[0]
    keys = np.arange(700, dtype=np.int64)
    for (typ, nullable), col in zip(cols, table.columns[1:], strict=True):
        mode = ValueMode(share, full_range=True)
        one = column_generator(table, col, flavor, seed, edge=mode)
        many = column_vector_generator(table, col, flavor, seed, edge=mode)(
            keys, np.zeros(700, dtype=np.int64)
        )
        for vals in ([one(k, 0) for k in range(700)], many if isinstance(many, list) else many.tolist()):
            seen = {(type(v).__name__, repr(v)) for v in vals}
            for want in _limits(col, typ, flavor) + ([None] if nullable else []):
                assert (type(want).__name__, repr(want)) in seen, (typ, want)
            bad = [v for v in vals if v is not None and not _in_range(col, v, flavor)]
            assert not bad, (typ, bad[:3])


def test_longest_strings_fill_the_column_in_characters_and_in_bytes() -> None:
    table = parse_tables(
        "CREATE TABLE t (k INT PRIMARY KEY, a VARCHAR(20) CHARACTER SET utf8mb4, "
        "b VARCHAR(9) CHARACTER SET utf8mb3, c CHAR(7) CHARACTER SET gbk, "
        "d VARCHAR(30) CHARACTER SET latin1, e VARCHAR(5) CHARACTER SET ucs2)",
        "d",
        "mysql80",
    )[0]
    for col, codec, nbytes in (
        (table.columns[1], "utf-8", 80),
        (table.columns[2], "utf-8", 27),
        (table.columns[3], "gbk", 14),
        (table.columns[4], "cp1252", 30),
        (table.columns[5], "utf-16-be", 10),
    ):
        gen = column_generator(table, col, "mysql80", 3, edge=ValueMode(1.0))
        vals = [v for v in (gen(k, 0) for k in range(400)) if v is not None]
        assert "x" * col.length in vals, col.name  # the most characters
        assert max(len(v.encode(codec)) for v in vals) == nbytes, col.name  # the most bytes


def _int_values(out: Path, table: str, column: str) -> list:
    lines = (out / "truth" / "final" / f"test.{table}.jsonl").read_text().splitlines()
    return [json.loads(line)[column] for line in lines]


def test_schema_integers_span_their_types(tmp_path: Path) -> None:
    """--schema: an INT column holds values beyond 0..1,000,000 — negative ones and ones above
    2^24 — without any option; the key columns stay 1, 2, 3 …"""
    ddl = "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, n INT NOT NULL, u BIGINT UNSIGNED NOT NULL);"
    spec = Spec.from_dict(
        dict(workload=None, schema_sql=ddl, schema_file="s.sql", transactions=0, initial_rows=300)
    )
    generate(spec, tmp_path / "o")
    n, u = _int_values(tmp_path / "o", "t", "n"), _int_values(tmp_path / "o", "t", "u")
    assert _int_values(tmp_path / "o", "t", "id") == list(range(1, 301))
    assert min(n) < 0 and max(n) > 1 << 24 and all(-(2**31) <= x < 2**31 for x in n)
    assert max(u) > 2**63 and min(u) < 1 << 20


def test_spec_key_and_option_checks(tmp_path: Path) -> None:
    s = Spec.from_dict({"workload": "alltypes", "edge-values": "0.2"})
    assert s.edge_values == 0.2 and s.to_dict()["edge_values"] == 0.2
    assert "edge_values" not in Spec.from_dict({"workload": "alltypes"}).to_dict()
    for bad in ("1.5", -0.1, "lots", True):
        with pytest.raises(SpecError, match="--edge-values: expected a fraction 0..1"):
            Spec.from_dict({"workload": "alltypes", "edge_values": bad})
    with pytest.raises(SpecError, match="--edge-values: expected a fraction 0..1, got 2.5"):
        generate(Spec(workload="alltypes", edge_values=2.5), tmp_path / "never")
    assert not (tmp_path / "never").exists()


def test_sysbench_k_is_untouched_and_no_option_keeps_the_bytes(tmp_path: Path) -> None:
    """sysbench's columns are all the workload's own generators: --edge-values leaves its
    rows as they were (only the manifest's spec records the option)."""
    base = dict(workload="sysbench", transactions=30, initial_rows=20)
    generate(Spec.from_dict(base), tmp_path / "a")
    generate(Spec.from_dict({**base, "edge_values": 1.0}), tmp_path / "b")
    a, b = tree_digest(tmp_path / "a"), tree_digest(tmp_path / "b")
    assert {k for k in a if a[k] != b.get(k)} == {"manifest.json"}


def test_cli_option_bad_fraction_is_a_located_error(run_cli, tmp_path: Path) -> None:
    r = run_cli("--out", str(tmp_path / "o"), "--edge-values", "1.5", "--no-progress")
    assert r.exit_code == 2
    assert "--edge-values: expected a fraction 0..1, got '1.5'" in r.output
    assert not (tmp_path / "o").exists()


def test_gen_default_gets_edge_values_and_other_spec_generators_none() -> None:
    """A spec's ``gen: default`` is the type's generator, edge values and whole integer range
    included; any other spec generator draws only what it was asked for."""
    table = parse_tables("CREATE TABLE t (k INT PRIMARY KEY, c SMALLINT NOT NULL)", "d", "mysql80")[0]
    col = table.columns[1]
    mode = ValueMode(1.0, full_range=True)
    default = column_generator(table, col, "mysql80", 9, override=ColumnGen("t.c", "default", ()), edge=mode)
    assert {default(k, 0) for k in range(300)} == {
        -32768,
        -128,
        -1,
        0,
        1,
        127,
        255,
        32767,
    }  # TINYINT and SMALLINT limits
    wide = column_generator(
        table, col, "mysql80", 9, override=ColumnGen("t.c", "default", ()), edge=ValueMode(0.0, True)
    )
    assert min(wide(k, 0) for k in range(300)) < -1000
    ranged = column_generator(
        table, col, "mysql80", 9, override=ColumnGen("t.c", "int", (("max", 5), ("min", 1))), edge=mode
    )
    got = {ranged(k, 0) for k in range(300)}
    assert got <= {1, 2, 3, 4, 5} and len(got) >= 4  # gen int: min..max, no edge value
