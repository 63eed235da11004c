"""The array twins of the value generators (issue #28: SET of more than 10 members, BINARY /
VARBINARY / BLOB bytes, BIT wider than 52 bits, DECIMAL beyond int64 units, CHAR words) give
exactly the scalar row function's values — same Python types, same spellings — column by
column of wide keyless tables (60–300 columns) mixing them with multibyte text, in every edge
mode and NULL rate, for random keys and versions."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from generators.columns._vec import strip_runs
from generators.edge_values import ValueMode
from generators.values import column_generator, column_vector_generator

_MEMBERS = ["a", "b", "ç", "日本", "x y", "Ω", "z", "é", "zz", "ß", "k", "ñ", "q", "€", "w"]


def _set_type(n: int) -> str:
    names = [_MEMBERS[i % len(_MEMBERS)] + str(i) for i in range(n)]
    return "SET(" + ",".join("'" + m + "'" for m in names) + ")"


TYPES = st.one_of(
    st.integers(11, 64).map(_set_type),
    st.integers(1, 64).map(lambda n: f"BIT({n})"),
    st.integers(1, 40).map(lambda n: f"BINARY({n})"),
    st.integers(1, 300).map(lambda n: f"VARBINARY({n})"),
    st.sampled_from(["TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB"]),
    st.sampled_from(["DECIMAL(65,30)", "DECIMAL(30,30)", "DECIMAL(40,5)", "DECIMAL(19,0)", "DECIMAL(25,20)", "DECIMAL(19,19)", "DECIMAL(20,14)", "DECIMAL(13,13) UNSIGNED", "DECIMAL(20,2) UNSIGNED",
                     "DECIMAL(10,2)", "DECIMAL(18,9)"]),
    st.integers(1, 255).map(lambda n: f"CHAR({n})"),
    st.sampled_from(["CHAR(10) CHARACTER SET utf8mb4", "CHAR(30) CHARACTER SET latin1", "CHAR(5) CHARACTER SET ucs2",
                     "VARCHAR(20) CHARACTER SET utf32", "VARCHAR(40) CHARACTER SET gbk", "TEXT", "TINYTEXT",
                     "TINYTEXT CHARACTER SET ucs2", "TINYTEXT CHARACTER SET utf32", "CHAR(40) CHARACTER SET sjis",
                     "INT", "BIGINT UNSIGNED", "DOUBLE", "DATETIME(6)", "JSON", "ENUM('a','ü','c')"]),
)
NAMES = ["c", "name", "code", "status", "email", "city", "note", "sku", "country_code", "title"]
EDGES = st.one_of(st.booleans(), st.builds(ValueMode, st.sampled_from([0.0, 0.2, 1.0]), st.booleans()))


# no shrinking: a failing wide table names its column in the assertion, and shrinking 300 columns takes minutes
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck),
          phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(types=st.lists(TYPES, min_size=60, max_size=300), edge=EDGES, flavor=st.sampled_from(["mysql80", "mariadb1011"]),
       seed=st.integers(0, 2**40), data=st.data())
def test_wide_keyless_array_twins_equal_scalar(types, edge, flavor, seed, data) -> None:
    cols = []
    for i, t in enumerate(types):
        nullable = data.draw(st.booleans(), label="nullable")
        cols.append(f"`{NAMES[i % len(NAMES)]}{i}` {t} {'NULL' if nullable else 'NOT NULL'}")
    table = parse_tables(f"CREATE TABLE wide ({', '.join(cols)})", "d", flavor)[0]
    null_p = data.draw(st.sampled_from([None, 0.0, 0.3]), label="null_p")
    stress = data.draw(st.sampled_from([0.0, 0.3, 1.0]), label="charset_stress")
    n = data.draw(st.integers(1, 70), label="rows")
    keys = np.array(data.draw(st.lists(st.integers(0, 2**40), min_size=n, max_size=n)), dtype=np.int64)
    vers = np.array(data.draw(st.lists(st.integers(0, 2**40), min_size=n, max_size=n)), dtype=np.int64)
    for col in table.columns:
        vec = column_vector_generator(table, col, flavor, seed, edge=edge, null_p=null_p, charset_stress=stress)
        one = column_generator(table, col, flavor, seed, edge=edge, null_p=null_p, charset_stress=stress)
        got = vec(keys, vers)
        got = got if isinstance(got, list) else got.tolist()
        assert [(type(x), repr(x)) for x in got] == [(type(x), repr(x)) for x in
                                                     (one(int(k), int(v)) for k, v in zip(keys, vers, strict=True))], \
            f"column {col.name} {col.type}"


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(st.text(alphabet=" ab", max_size=8), max_size=30))
def test_strip_runs_is_rstrip(texts) -> None:
    """CHAR word runs lose their trailing spaces as ``str.rstrip(" ")`` does, however many."""
    flat = np.frombuffer("".join(texts).encode("ascii"), dtype=np.uint8)
    lens = np.array([len(t) for t in texts], dtype=np.int64)
    at = np.stack([np.cumsum(lens) - lens, lens], axis=1) if texts else np.zeros((0, 2), dtype=np.int64)
    got = strip_runs(at.copy(), flat)
    raw = flat.tobytes().decode("ascii")
    assert [raw[a:a + n] for a, n in got.tolist()] == [t.rstrip(" ") for t in texts]
