"""Generator side of the ``json`` family (JSON).

JSON documents shaped like a product record (id, tags, flags, optional nested attrs);
MariaDB stores JSON as text, so its values are MySQL's JSON text (binlogwriter/values/json_text.py).

Faces (generators/columns/__init__.py, docs/adding-a-type.md "Generator side"):
``generator`` (scalar, ``fn(stream, key) -> value``), ``vector_generator`` (its numpy twin),
``key_generator`` / ``key_capacity`` / ``key_vector_generator`` (values derived from the key
alone, unique below the capacity), ``coerce`` (a spec-file literal as the column's Python
type) and ``sql_literal`` (the value as SQL for snapshot.sql and Rows_query text).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from binlogwriter.schema import Column
from binlogwriter.schema.types import is_mariadb
from binlogwriter.values.column_array import ColumnArray
from binlogwriter.values.json_columns import JBool, JInt, JNull, JObj, JStr, JStrList
from binlogwriter.values.json_text import mysql_json_text
from generators.columns._common import START_TIME, quote, with_edges
from generators.hashing import Stream, unit_array
from generators.pools import pool
from generators.truth import render_json

__all__ = ["FAMILY", "SQL_TYPES", "generator", "vector_generator", "key_generator", "key_capacity",
           "key_vector_generator", "coerce", "sql_literal", "sql_literals"]

FAMILY = "json"
SQL_TYPES = ("JSON",)


def _json_doc(st: Stream, k: int, table: str) -> Any:
    words = pool("word")
    colors = pool("color")
    doc: dict[str, Any] = {
        "id": k + 1,
        "tags": [words[st.below(1024)] for _ in range(st.below(4))],
        "active": st.chance(0.7),
        "score": st.below(1000),
    }
    if st.chance(0.5):
        doc["attrs"] = {"color": colors[st.below(1024)], "size": ["S", "M", "L", "XL"][st.below(4)],
                        "weight_g": st.between(10, 5000)}
    if st.chance(0.3):
        doc["note"] = None
    if st.chance(0.2):
        doc["name"] = "Zoë \"Q\" Ünïcode ✓"
    return doc


_SIZES = ("S", "M", "L", "XL")
_NAME = "Zoë \"Q\" Ünïcode ✓"


def _json_columns(pre: np.ndarray, keys: np.ndarray, j: int) -> JObj:
    """:func:`_json_doc` of many rows from their draws (``pre[:, t]`` = draw ``t + 1``; the
    streams are at draw ``j``), as document columns (binlogwriter/values/json_columns.py):
    the draws each document takes depend on its tag count and on whether it has attrs, so
    every field is read at its row's own position; members in ``_json_doc``'s order."""
    n = len(keys)
    d = pre[:, j:j + 12]
    nt = (d[:, 0] % np.uint64(4)).astype(np.int64)
    p = 1 + nt

    def at(pos: np.ndarray) -> np.ndarray:
        return np.take_along_axis(d, pos[:, None], 1)[:, 0]
    active = unit_array(at(p)) < 0.7
    score = (at(p + 1) % np.uint64(1000)).astype(np.int64)
    has_attrs = unit_array(at(p + 2)) < 0.5
    color = (at(p + 3) % np.uint64(1024)).astype(np.int64)
    size = (at(p + 4) % np.uint64(4)).astype(np.int64)
    weight = (10 + at(p + 5) % np.uint64(4991)).astype(np.int64)
    q = p + np.where(has_attrs, 6, 3)
    note = unit_array(at(q)) < 0.3
    named = unit_array(at(q + 1)) < 0.2
    tags = (d[:, 1:4] % np.uint64(1024)).astype(np.int64)
    attrs = JObj((("color", JStr(pool("color"), color), None), ("size", JStr(_SIZES, size), None),
                  ("weight_g", JInt(weight), None)), n)
    return JObj((("id", JInt(keys.astype(np.int64) + 1), None), ("tags", JStrList(pool("word"), tags, nt), None),
                 ("active", JBool(active), None), ("score", JInt(score), None), ("attrs", attrs, has_attrs),
                 ("note", JNull(n), note), ("name", JStr((_NAME,), np.zeros(n, dtype=np.int64)), named)), n)


def _json_docs(pre: np.ndarray, keys: np.ndarray, j: int) -> list[dict[str, Any]]:
    """:func:`_json_doc` of many rows from their draws: :func:`_json_columns`' documents."""
    return _json_columns(pre, keys, j).values()


def json_gen(col: Column, table: str, flavor: str, edge: bool):
    """JSON documents for ``col``: Python values for a MySQL JSON column (binary JSON), their
    text for MariaDB's JSON (a LONGTEXT) and for any text column (``CHECK (JSON_VALID(c))``)."""
    as_text = flavor.startswith("mariadb") or col.type != "JSON"

    def gen(st, k):
        d = _json_doc(st, k, table)
        return mysql_json_text(d) if as_text else d
    gen.draws = 13

    def many(pre: np.ndarray, keys: np.ndarray, j: int) -> list:
        docs = _json_docs(pre, keys, j)
        return [mysql_json_text(d) for d in docs] if as_text else docs
    gen.many = many  # generators/values.py _replay: the same documents from the same draws
    if not as_text:  # column_vector_generator: the documents as columns ("json" ColumnArray)
        gen.many_array = lambda pre, keys, j: ("json", _json_columns(pre, keys, j))
    edges_obj = [{}, [], "a string", 12345, True, None, [1, [2, [3, {"deep": "x"}]]]]
    edges = [mysql_json_text(e) if as_text else e for e in edges_obj]
    if not as_text:
        edges = [e for e in edges if e is not None]  # a JSON null document is fine but ambiguous in truth
    else:
        edges = [e for e in edges if e != "null"]
    return with_edges(gen, edges, edge)


def generator(col: Column, table: str, flavor: str, *, edge: bool = False,
              start_time: int = START_TIME, charset_stress: float = 0.0) -> Callable[[Stream, int], Any]:
    """The default generator of a JSON column: ``fn(stream, key) -> document``."""
    return json_gen(col, table, flavor, edge)


# documents are Python dicts and lists: column_vector_generator computes them from draws numpy
# made beforehand (``gen.draws``), through ``gen.many``
vector_generator = None
# JSON columns cannot be (part of) a key in MySQL, nor in a generated key
key_generator = None
key_capacity = None
key_vector_generator = None


def coerce(col: Column, v: Any, where: str) -> Any:
    return v


def sql_literal(col: Column, v: Any, flavor: str) -> str:
    """The SQL literal of a document: its JSON text. On MySQL a ``str`` is a JSON string
    scalar (binlogwriter/values/json.py encodes it so), whose text is quoted (``'"a"'``; the
    bare ``'a'`` is ERROR 3140 Invalid JSON text); on MariaDB, where JSON is LONGTEXT checked by
    ``JSON_VALID``, a ``str`` is the document's text already."""
    return quote(v if isinstance(v, str) and is_mariadb(flavor) else mysql_json_text(v))


def sql_literals(col: Column, values: Any, flavor: str) -> list[str] | None:
    """:func:`sql_literal` of many values (None: ``NULL``) when they are documents given as
    columns (``generators.truth.render_json``: MySQL's text built by Arrow over the whole
    column), else None (value by value)."""
    got = render_json(col, values) if isinstance(values, ColumnArray) and values.kind == "json" else None
    return None if got is None else ["NULL" if t is None else quote(t) for t in got]
