"""JSON documents given as columns (binlogwriter/values/json_columns.py) encode to exactly
the binary JSON the scalar encoder writes for their Python documents, document by
document (``JsonCodec`` bound ``encode``: MySQL's small-container form, key order by
length then bytes, int16 inlined, int32/int64 as data, literals inlined, strings with a
varlen length); documents that need the large form are refused (None) and then encoded
one by one. Hypothesis draws random trees: optional members, nested objects, integers
across the int64 range and at the int16/int32 edges, multibyte and long strings, arrays of
0..6 pool strings, NULL rows."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import parse_tables
from binlogwriter.values import encode_row_image
from binlogwriter.values.json_columns import JBool, JInt, JNull, JObj, JStr, JStrList, encode_documents
from binlogwriter.values.registry import bind_column
from binlogwriter.values.row import ColumnArray, encode_column_images

INTS = st.one_of(st.integers(-(1 << 63), (1 << 63) - 1),
                 st.sampled_from([0, -1, 32767, 32768, -32768, -32769, (1 << 31) - 1, 1 << 31, -(1 << 31),
                                  -(1 << 31) - 1, (1 << 63) - 1, -(1 << 63)]))
TEXT = st.one_of(st.text(alphabet="ab\"\\\n é€中😀", max_size=20), st.text(alphabet="xy", min_size=120, max_size=300))
HUGE = st.one_of(TEXT, st.just("z" * 70000))  # a string past a small container's 64 KB
KEYS = st.text(alphabet="abcdeé_", min_size=0, max_size=8)


def nodes(n: int, depth: int, text=TEXT):
    leaves = [st.builds(lambda xs: JInt(np.array(xs, dtype=np.int64)), st.lists(INTS, min_size=n, max_size=n)),
              st.builds(lambda xs: JBool(np.array(xs, dtype=bool)), st.lists(st.booleans(), min_size=n, max_size=n)),
              st.just(JNull(n)),
              st.lists(text, min_size=1, max_size=5).flatmap(lambda pool: st.builds(
                  lambda ix: JStr(tuple(pool), np.array(ix, dtype=np.int64)),
                  st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n))),
              st.lists(TEXT, min_size=1, max_size=5).flatmap(lambda pool: st.builds(
                  lambda ix, c: JStrList(tuple(pool), np.array(ix, dtype=np.int64).reshape(n, 6),
                                         np.array(c, dtype=np.int64)),
                  st.lists(st.integers(0, len(pool) - 1), min_size=6 * n, max_size=6 * n),
                  st.lists(st.integers(0, 6), min_size=n, max_size=n)))]
    if depth > 0:
        leaves.append(objects(n, depth - 1, text))
    return st.one_of(*leaves)


def objects(n: int, depth: int, text=TEXT):
    member = st.tuples(KEYS, nodes(n, depth, text),
                       st.one_of(st.none(), st.lists(st.booleans(), min_size=n, max_size=n).map(np.array)))
    return st.lists(member, max_size=6, unique_by=lambda m: m[0]).map(lambda ms: JObj(tuple(ms), n))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_document_columns_encode_like_the_scalar_encoder(data) -> None:
    n = data.draw(st.integers(1, 12), label="rows")
    text = HUGE if data.draw(st.integers(0, 9), label="huge") == 0 else TEXT
    docs = data.draw(st.one_of(objects(n, 2, text), nodes(n, 0).filter(lambda x: isinstance(x, JStrList))),
                     label="docs")
    table = parse_tables("CREATE TABLE t (j JSON NULL)", "d", "mysql80")[0]
    desc = table.column_descs("mysql80")[0]
    bound = bind_column(desc)
    values = docs.values()
    want = [bound.encode(v) for v in values]
    got = bound.encode_array("json", docs, None)
    raw = encode_documents(docs)
    if got is None:
        # refused only for a document that needs the large form (some container past 64 KB)
        assert raw is None
        assert max(map(len, want)) > 0xFFFF - 8
    else:
        prefix, body = got
        flat = np.asarray(body.flat, dtype=np.uint8).tobytes()
        at = np.concatenate([[0], np.cumsum(body.lengths)]).tolist()
        assert [bytes(prefix.data[r]) + flat[at[r]:at[r + 1]] for r in range(n)] == want
    # whole row images with NULL rows, the column as a "json" ColumnArray
    nulls = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="nulls"))
    col = ColumnArray("json", docs, nulls if nulls.any() else None)
    buf, lens = encode_column_images([desc], [True], [col], n)
    scalar = [encode_row_image([desc], [True], [None if z else v]) for v, z in zip(values, nulls.tolist(), strict=True)]
    assert lens.tolist() == [len(s) for s in scalar]
    assert buf.tobytes() == b"".join(scalar)
    # taking rows (the batch path's row reuse) keeps the documents
    idx = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=n), label="take"), dtype=np.int64)
    assert col.take(idx).tolist() == [None if nulls[i] else values[i] for i in idx.tolist()]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**40), keys=st.lists(st.integers(0, 2**40), min_size=1, max_size=50),
       null_p=st.sampled_from([None, 0.0, 0.5]))
def test_generated_json_column_images_equal_scalar(seed, keys, null_p) -> None:
    """The generator's JSON column (documents as columns) gives the scalar generator's
    documents and the scalar encoder's row images."""
    from generators.values import column_generator, column_vector_generator

    table = parse_tables("CREATE TABLE t (k INT PRIMARY KEY, attrs JSON NULL)", "d", "mysql80")[0]
    c = table.columns[1]
    vec = column_vector_generator(table, c, "mysql80", seed, null_p=null_p)
    one = column_generator(table, c, "mysql80", seed, null_p=null_p)
    k = np.array(keys, dtype=np.int64)
    v = np.arange(len(keys), dtype=np.int64)
    got = vec(k, v)
    assert isinstance(got, ColumnArray) and got.kind == "json"
    want = [one(int(a), int(b)) for a, b in zip(k, v, strict=True)]
    assert got.tolist() == want
    descs = table.column_descs("mysql80")
    buf, _ = encode_column_images(descs, [False, True], [None, got], len(keys))
    assert buf.tobytes() == b"".join(encode_row_image(descs, [False, True], [None, w]) for w in want)
