"""The canonical text of JSON documents given as columns (generators/json_texts.py, Arrow
string kernels over whole columns) is exactly ``mysql_json_text`` of each row's Python
document (the value-by-value truth renderer), and the typed change truth of a "json"
column (``_typed_array``) equals the value-by-value path (``_typed_values``) for MySQL and
MariaDB, same Parquet bytes. Hypothesis draws random trees (tests/batch/test_json_columns.py's
nodes: optional members, nested objects, integers across int64, booleans, nulls, pool
strings and arrays of them) with text that needs escapes (quotes, backslashes, control
characters, U+2028, U+0085), multibyte and 4-byte characters, keys whose MySQL order differs
from their member order, empty objects, and NULL rows."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from binlogwriter.values.json_columns import JObj, JStr, JStrList
from binlogwriter.values.json_text import mysql_json_text
from binlogwriter.values.row import ColumnArray
from generators.changes_arrow import typed_array, typed_values
from generators.json_texts import json_texts
from tests.batch.test_json_columns import nodes, objects

_TEXT = st.text(alphabet="ab\"\\\n\t\x00\x1f\x7f\x85\u2028 é€中😀/", max_size=12)


def json_documents(n: int):
    return st.one_of(objects(n, 2, _TEXT), nodes(n, 1, _TEXT))


def _parquet(arr: pa.Array) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"c": arr}), buf)
    return buf.getvalue()


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_document_columns_print_like_mysql_json_text(data) -> None:
    n = data.draw(st.integers(1, 10), label="rows")
    docs = data.draw(json_documents(n), label="docs")
    nulls = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="nulls"))
    got = json_texts(docs, nulls)
    assert got is not None
    want = [None if z else mysql_json_text(v) for v, z in zip(docs.values(), nulls.tolist(), strict=True)]
    assert got.type == pa.string()
    assert got.to_pylist() == want


def test_key_order_is_mysqls_not_the_members() -> None:
    docs = JObj((("bb", JStr(("x",), np.zeros(2, np.int64)), None),
                 ("é", JStrList(("q", "r"), np.array([[0, 1], [1, 0]]), np.array([2, 0])), np.array([True, False])),
                 ("a", JObj((), 2), None)), 2)
    assert json_texts(docs, None).to_pylist() == ['{"a": {}, "bb": "x", "é": ["q", "r"]}', '{"a": {}, "bb": "x"}']


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), flavor=st.sampled_from(["mysql80", "mariadb1011"]))
def test_json_columns_type_like_the_value_path(data, flavor: str) -> None:
    n = data.draw(st.integers(1, 10), label="rows")
    docs = data.draw(json_documents(n), label="docs")
    nulls = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="nulls"))
    col = parse_tables("CREATE TABLE t (j JSON NULL)", "d", flavor)[0].columns[0]
    values = ColumnArray("json", docs, nulls if nulls.any() else None)
    keep: list = []
    got, texts = typed_array(col, flavor, values, keep)
    ref_keep: list = []
    want, want_texts = typed_values(col, flavor, values.tolist(), ref_keep)
    assert texts == want_texts == {}
    assert got.equals(want)
    assert [k.to_pylist() if isinstance(k, pa.Array) else k for k in keep] == ref_keep
    assert _parquet(got) == _parquet(want)


def test_json_texts_do_not_import_pandas() -> None:
    """Every Arrow kernel call gets arrays and scalars taken from arrays (a Python value given
    to pyarrow imports pandas: half a CPU-second in the truth thread). Fresh interpreter."""
    import subprocess
    import sys

    code = ("import sys, numpy as np\n"
            "from binlogwriter.values.json_columns import JBool, JInt, JNull, JObj, JStr, JStrList\n"
            "from generators.json_texts import json_texts\n"
            "n = 3\n"
            "inner = JObj((('k', JInt(np.arange(n)), np.array([True, False, True])),), n)\n"
            "doc = JObj((('b', JBool(np.ones(n, bool)), None), ('z', JNull(n), None), ('s', JStr(('x',), np.zeros(n)), None),"
            " ('l', JStrList(('y',), np.zeros((n, 2)), np.array([0, 1, 2])), None), ('o', inner, None)), n)\n"
            "assert json_texts(doc, np.array([False, True, False])).to_pylist()[1] is None\n"
            "assert 'pandas' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)
