"""The array comparisons of generators/noop.py (no row for an unchanged row) say exactly what
``same_value`` says of each row's two Python values: JSON documents given as column trees
(``same_documents``: members present or not, integers, booleans, pool strings with equal
texts under different indexes, arrays of pool strings, nested objects, NULL rows), lists of
``str`` / ``bytes`` values (``same_lists``: multibyte text, NULLs, and lists it must leave to
``same_value`` — CHAR/BINARY pads, floats with their sign, mixed types) — and
``unchanged_updates`` over drawn wide tables (60–300 columns of every family, JSON as
documents or MariaDB text, utf8mb4 text, NULLs, edge values, keyless tables) equals comparing
the scalar row function's rows column by column."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.schema import Column
from binlogwriter.values.json_columns import JBool, JInt, JNull, JObj, JStr, JStrList
from binlogwriter.values.row import ColumnArray
from generators.engine import Run
from generators.noop import same_arrays, same_lists, same_value, unchanged_updates
from generators.spec import Spec

_JSON = Column("j", "JSON", nullable=True)
# pool strings: duplicates (equal texts under different indexes), multibyte, escapes
_POOLS = [("a", "b", "a"), ("é", "😀", "\"x\\", "é"), ("", "z")]


def _node(n: int, depth: int) -> st.SearchStrategy:
    """A document column of ``n`` rows with small leaf domains, so rows often repeat."""
    pools = st.sampled_from(_POOLS)
    leaves = [st.lists(st.integers(-1, 1), min_size=n, max_size=n).map(lambda xs: JInt(np.array(xs, np.int64))),
              st.lists(st.booleans(), min_size=n, max_size=n).map(lambda xs: JBool(np.array(xs, bool))),
              st.just(JNull(n)),
              pools.flatmap(lambda p: st.lists(st.integers(0, len(p) - 1), min_size=n, max_size=n).map(
                  lambda ix: JStr(p, np.array(ix, np.int64)))),
              st.tuples(pools, st.integers(0, 3)).flatmap(lambda pw: st.tuples(
                  st.lists(st.integers(0, len(pw[0]) - 1), min_size=n * pw[1], max_size=n * pw[1]),
                  st.lists(st.integers(0, pw[1]), min_size=n, max_size=n)).map(
                  lambda ic: JStrList(pw[0], np.array(ic[0], np.int64).reshape(n, pw[1]), np.array(ic[1], np.int64))))]
    if depth:
        leaves.append(_object(n, depth - 1))
    return st.one_of(*leaves)


def _object(n: int, depth: int) -> st.SearchStrategy:
    member = st.tuples(st.sampled_from(["k", "a", "bb", "é"]), _node(n, depth),
                       st.one_of(st.none(), st.lists(st.booleans(), min_size=n, max_size=n).map(np.array)))
    return st.lists(member, max_size=4, unique_by=lambda m: m[0]).map(lambda ms: JObj(tuple(ms), n))


def _nulls(draw: Any, n: int) -> np.ndarray | None:
    z = draw(st.one_of(st.none(), st.lists(st.booleans(), min_size=n, max_size=n)))
    return None if z is None else np.array(z, dtype=bool)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_document_trees_compare_like_their_texts(data: Any) -> None:
    """Rows ``0..n-1`` against rows ``n..2n-1`` of one drawn tree (one shape, as the noop check
    makes them: both sides in one generator call); or two trees drawn apart (another shape:
    left to ``same_value``, or the same answer)."""
    n = data.draw(st.integers(1, 12), label="rows")
    if data.draw(st.booleans(), label="one tree"):
        tree = data.draw(_object(2 * n, 2), label="tree")
        a, b = tree[np.arange(n)], tree[np.arange(n, 2 * n)]
    else:
        a, b = data.draw(_node(n, 2), label="a"), data.draw(_node(n, 2), label="b")
    ca, cb = ColumnArray("json", a, _nulls(data.draw, n)), ColumnArray("json", b, _nulls(data.draw, n))
    got = same_arrays(_JSON, ca, cb)
    want = [same_value(_JSON, x, y) for x, y in zip(ca.tolist(), cb.tolist(), strict=True)]
    if got is None:
        assert type(a) is not type(b) or isinstance(a, JObj | JStr | JStrList | JNull)
    else:
        assert got.tolist() == want


_VALUES = st.one_of(st.none(), st.sampled_from(["a", "a ", "é", "😀x", "", "ab"]),
                    st.sampled_from([b"a", b"a\0", b"", b"\xff"]),
                    st.sampled_from([0.0, -0.0, 1, 1.0, True, frozenset({"x"})]))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(typ=st.sampled_from(["VARCHAR", "TEXT", "CHAR", "BINARY", "VARBINARY", "BLOB", "JSON", "DOUBLE", "SET"]),
       pairs=st.lists(st.tuples(_VALUES, _VALUES), max_size=30), one_type=st.booleans())
def test_value_lists_compare_like_same_value(typ: str, pairs: list, one_type: bool) -> None:
    if one_type:  # the lists the generators make: one type of value and NULLs
        t = next((type(v) for p in pairs for v in p if v is not None), str)
        pairs = [tuple(v if v is None or type(v) is t else None for v in p) for p in pairs]
    col = Column("c", typ, length=4, nullable=True)
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    if typ == "JSON":  # JSON values are documents (or MariaDB's text), never bytes or sets
        a, b = [x for x in a if not isinstance(x, bytes | frozenset)], [y for y in b if not isinstance(y, bytes | frozenset)]
        a, b = a[:len(b)], b[:len(a)]
        pairs = list(zip(a, b, strict=True))
    got = same_lists(col, a, b)
    want = [same_value(col, x, y) for x, y in pairs]
    if got is None:
        kinds = {type(v) for v in a + b} - {type(None)}
        assert typ in ("CHAR", "BINARY") or (kinds != {str} and kinds != {bytes}) or (typ == "JSON" and kinds != {str})
    else:
        assert got.tolist() == want


_WIDE_TYPES = ("JSON NULL", "VARCHAR(30) CHARACTER SET utf8mb4 NULL", "VARCHAR(1) CHARACTER SET ascii NOT NULL",
               "TEXT CHARACTER SET utf8mb4", "BLOB NULL", "CHAR(3) NULL", "BINARY(4) NULL", "VARBINARY(8) NULL",
               "ENUM('a') NOT NULL", "BOOLEAN NOT NULL", "DOUBLE NULL", "DECIMAL(6,2) NULL", "DATETIME(3) NULL",
               "SET('x','y') NOT NULL", "INT NULL", "TINYTEXT CHARACTER SET latin1 NULL")


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_unchanged_updates_of_wide_tables_match_the_row_function(data: Any) -> None:
    width = data.draw(st.integers(60, 300), label="columns")
    types = data.draw(st.lists(st.sampled_from(_WIDE_TYPES), min_size=width, max_size=width), label="types")
    key = data.draw(st.sampled_from(["id INT NOT NULL PRIMARY KEY, ", ""]), label="key")
    cols = ", ".join(f"c{i} {t}" for i, t in enumerate(types))
    ddl = f"CREATE TABLE w ({key}{cols}) DEFAULT CHARSET=utf8mb4;\n"
    spec = dict(workload=None, schema_sql=ddl, schema_file="s.sql", initial_rows=5,
                seed=data.draw(st.integers(0, 2**31), label="seed"),
                flavor=data.draw(st.sampled_from(["mysql80", "mariadb1011"]), label="flavor"),
                edge_values=data.draw(st.sampled_from([None, 0.3, 0.9]), label="edge values"),
                charset_stress=data.draw(st.sampled_from([None, 0.0, 0.6]), label="charset stress"))
    rt = Run(Spec.from_dict(spec), None).rows[0]
    rng = np.random.default_rng(data.draw(st.integers(0, 99), label="rng"))
    m = 120
    keys = rng.integers(0, 40, m).astype(np.int64)
    va = rng.integers(1, 6, m).astype(np.int64)
    vb, born = va - 1, np.zeros(m, dtype=np.int64)
    got = unchanged_updates(rt, keys, vb, va, born)
    want = [all(same_value(c, x, y) for c, x, y in zip(rt.table.columns, rt.compute_scalar(k, b, 0),
                                                          rt.compute_scalar(k, a, 0), strict=True))
            for k, b, a in zip(keys.tolist(), vb.tolist(), va.tolist(), strict=True)]
    assert got.tolist() == want


_ENTRIES = st.one_of(st.text(alphabet="a é😀 ", max_size=4), st.binary(max_size=3).map(lambda b: b + b"\0" * (len(b) % 2)),
                     st.frozensets(st.sampled_from("xyz"), max_size=2), st.sampled_from([0.0, -0.0, 1, True, 1.0]))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(typ=st.sampled_from(["CHAR", "VARCHAR", "BINARY", "VARBINARY", "SET", "ENUM", "DOUBLE", "JSON"]),
       pool=st.one_of(st.lists(st.text(alphabet="ab é😀", max_size=3), min_size=1, max_size=12),
                      st.lists(st.binary(max_size=2).map(lambda b: b + b"\0" * (len(b) % 2)), min_size=1, max_size=12),
                      st.lists(_ENTRIES, min_size=1, max_size=12)),
       data=st.data())
def test_pool_entries_compare_like_same_value(typ: str, pool: list, data: Any) -> None:
    """Two pool columns over one drawn pool (equal entries, CHAR pads, BINARY zero bytes,
    mixed types, floats of both signs): ``same_arrays`` row by row is ``same_value``."""
    pool_t = tuple(pool)
    n = data.draw(st.integers(1, 30), label="rows")
    ix = st.lists(st.integers(0, len(pool_t) - 1), min_size=n, max_size=n)
    a = ColumnArray("pool", np.array(data.draw(ix, label="a"), dtype=np.int64), _nulls(data.draw, n), pool_t)
    b = ColumnArray("pool", np.array(data.draw(ix, label="b"), dtype=np.int64), _nulls(data.draw, n), pool_t)
    col = Column("c", typ, length=4, nullable=True)
    try:
        want = [same_value(col, x, y) for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    except TypeError:  # not a JSON value (bytes, sets): JSON pools never hold them
        return
    got = same_arrays(col, a, b)
    if got is not None:
        assert got.tolist() == want
