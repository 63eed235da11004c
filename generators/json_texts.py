"""JSON documents given as columns (binlogwriter/values/json_columns.py) -> their canonical
truth text (docs/output.md: "JSON as MySQL prints it", ``values/json_text.py``
``mysql_json_text``) as one Arrow string array, built by Arrow's string kernels over whole
columns instead of one Python document and one ``json`` encoder call per row.

The rule, node by node (what ``mysql_json_text`` prints for the node's Python value):
an integer by its decimal digits, a boolean ``true`` / ``false``, a null ``null``, a string
as ``json`` writes it with ``ensure_ascii=False`` (one escape per pool string), an array
``[`` + items joined by ``", "`` + ``]``, an object ``{`` + ``"key": value`` of the members
the row holds, keys by UTF-8 length then bytes, joined by ``", "`` + ``}``. A member the row
does not hold is an empty piece and every piece starts with its ``", "``, cut from the
joined members once, so no grouping by member sets is needed (Arrow 26's join with
``null_handling="skip"`` drops rows whose pieces are all null: not used). Property-tested against ``mysql_json_text`` in tests/generators/test_json_texts.py.
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from binlogwriter.values.json_columns import JBool, JCol, JInt, JNull, JObj, JStr, JStrList
from generators.arrow_arrays import np_array, np_bool, pick_strings, string_array

__all__ = ["json_texts"]

_ESCAPE = json.encoder.encode_basestring  # what json.dumps(..., ensure_ascii=False) writes for a str
_POOLS: dict[int, tuple[tuple, pa.Array]] = {}


def _pool_texts(pool: tuple) -> pa.Array | None:
    """Each pool string as a JSON string literal (memoised by pool object); None when one is
    not a ``str``."""
    hit = _POOLS.get(id(pool))
    if hit is not None and hit[0] is pool:
        return hit[1]
    if any(type(s) is not str for s in pool):
        return None
    arr = string_array([_ESCAPE(s) for s in pool])
    if len(_POOLS) >= 64:
        _POOLS.clear()
    _POOLS[id(pool)] = (pool, arr)  # keeps the pool alive: its id is not reused
    return arr


def _lit(text: str) -> pa.StringScalar:
    """``text`` as an Arrow string scalar taken from an array (``pa.scalar`` of a Python value
    imports pandas, see :func:`~generators.arrow_arrays.string_array`)."""
    return string_array([text])[0]


_NULL = pa.nulls(1, pa.string())[0]


def _key_order(keys: list[str]) -> list[int]:
    """Member indexes in MySQL's key order: by UTF-8 length, then bytes."""
    enc = [k.encode("utf-8") for k in keys]
    return sorted(range(len(keys)), key=lambda i: (len(enc[i]), enc[i]))


def _text(node: JCol) -> pa.Array | None:
    n = len(node)
    if isinstance(node, JInt):
        return pc.cast(np_array(node.data), pa.string())
    if isinstance(node, JBool):
        return pick_strings(("false", "true"), node.data.astype(np.int64))
    if isinstance(node, JNull):
        return pick_strings(("null",), np.zeros(n, dtype=np.int64))
    if isinstance(node, JStr):
        pool = _pool_texts(node.pool)
        return None if pool is None else pool.take(np_array(node.idx))
    if isinstance(node, JStrList):
        pool = _pool_texts(node.pool)
        if pool is None:
            return None
        counts = node.counts
        width = node.idx.shape[1] if node.idx.ndim == 2 else 0
        flat = node.idx[np.arange(width) < counts[:, None]] if width else np.zeros(0, dtype=np.int64)
        offsets = np.zeros(n + 1, dtype=np.int32)
        np.cumsum(counts, out=offsets[1:])
        items = pa.ListArray.from_arrays(np_array(offsets), pool.take(np_array(flat)))
        return pc.binary_join_element_wise(_lit("["), pc.binary_join(items, _lit(", ")), _lit("]"), _lit(""))
    if isinstance(node, JObj):
        keys = [k for k, _, _ in node.members]
        if any(type(k) is not str for k in keys) or len(set(keys)) != len(keys):
            return None
        if not keys:
            return pick_strings(("{}",), np.zeros(n, dtype=np.int64))
        pieces: list = []  # ", key: " and the text of each member always there, joined by one call below
        for i in _key_order(keys):
            key, child, present = node.members[i]
            text = _text(child)
            if text is None:
                return None
            if present is None:
                pieces += (_lit(", " + _ESCAPE(key) + ": "), text)
            else:
                piece = pc.binary_join_element_wise(_lit(", " + _ESCAPE(key) + ": "), text, _lit(""))
                pieces.append(pc.if_else(np_bool(present), piece, _lit("")))
        body = pc.binary_join_element_wise(*pieces, _lit(""))  # every member starts with ", "
        return pc.binary_join_element_wise(_lit("{"), pc.utf8_slice_codeunits(body, 2), _lit("}"), _lit(""))
    return None


def json_texts(docs: JCol, nulls: np.ndarray | None) -> pa.Array | None:
    """The MySQL text of every row's document (null where ``nulls`` is True) as a string
    array: ``[mysql_json_text(v) for v in docs.values()]``; None for a tree this does not
    know (the caller then renders document by document)."""
    try:
        arr = _text(docs)
    except pa.ArrowException:  # e.g. past a string array's 32-bit offsets: document by document
        return None
    if arr is None:
        return None
    if nulls is not None and np.asarray(nulls).any():
        arr = pc.if_else(np_bool(np.asarray(nulls, dtype=np.bool_)), _NULL, arr)
    return arr
