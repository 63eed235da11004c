"""The array paths of text columns (words and paragraphs assembled by one byte gather over
a pool's runs, ``generators/columns/_vec.py`` ``_joined_runs``; the ASCII fit of
``_strings._ascii_fitter``) give exactly the scalar generator's values: every text type,
the names that pick paragraph text or words, every charset family (one-byte ASCII ones,
multibyte utf8mb4/utf8mb3, two/four-byte ucs2/utf32, gbk), lengths from 1 to the type's
maximum, edge mode and NULL shares, both flavors."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from generators.edge_values import ValueMode
from generators.values import column_generator, column_vector_generator

CHARSETS = ["utf8mb4", "utf8mb3", "latin1", "ascii", "ucs2", "utf32", "gbk"]
NAMES = ["c", "description", "note", "comment", "summary", "m003", "title_x"]


@st.composite
def text_columns(draw):
    kind = draw(st.sampled_from(["CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT"]))
    if kind == "CHAR":
        typ = f"CHAR({draw(st.integers(1, 255))})"
    elif kind == "VARCHAR":
        typ = f"VARCHAR({draw(st.sampled_from([1, 2, 5, 17, 40, 60, 64, 191, 500, 1024, 16000]))})"
    else:
        typ = kind
    return typ, draw(st.sampled_from(CHARSETS))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(col=text_columns(), name=st.sampled_from(NAMES), nullable=st.booleans(),
       edge=st.one_of(st.booleans(), st.builds(ValueMode, st.sampled_from([0.0, 0.3]), st.booleans())),
       flavor=st.sampled_from(["mysql80", "mariadb1011"]), seed=st.integers(0, 2**40),
       null_p=st.sampled_from([None, 0.0, 0.5]), n=st.integers(1, 80), data=st.data())
def test_text_column_arrays_equal_scalar(col, name, nullable, edge, flavor, seed, null_p, n, data) -> None:
    typ, charset = col
    ddl = (f"CREATE TABLE t (k INT NOT NULL PRIMARY KEY, `{name}` {typ} CHARACTER SET {charset} "
           f"{'NULL' if nullable else 'NOT NULL'})")
    table = parse_tables(ddl, "d", flavor)[0]
    c = table.columns[1]
    vec = column_vector_generator(table, c, flavor, seed, edge=edge, null_p=null_p)
    one = column_generator(table, c, flavor, seed, edge=edge, null_p=null_p)
    keys = np.array(data.draw(st.lists(st.integers(0, 2**40), min_size=n, max_size=n)), dtype=np.int64)
    vers = np.array(data.draw(st.lists(st.integers(0, 2**40), min_size=n, max_size=n)), dtype=np.int64)
    got = vec(keys, vers)
    got = got if isinstance(got, list) else got.tolist()
    want = [one(int(k), int(v)) for k, v in zip(keys, vers, strict=True)]
    assert [(type(x), x) for x in got] == [(type(x), x) for x in want]


def test_paragraph_text_takes_the_array_path() -> None:
    """TEXT and description-named VARCHAR columns in utf8mb4 have an array twin (not the
    per-row replay), so the test above compares two different computations."""
    from generators.values import vec_gen

    table = parse_tables("CREATE TABLE t (k INT PRIMARY KEY, a TEXT, description VARCHAR(500), "
                         "b VARCHAR(40)) DEFAULT CHARSET=utf8mb4", "d", "mysql80")[0]
    for c in table.columns[1:3]:
        assert vec_gen(c, "t", None, False) is not None, c.name
