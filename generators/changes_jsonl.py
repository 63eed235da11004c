"""``truth/changes/changes.jsonl`` and the text files of the truth (part of
generators/changes_truth.py): one change as a JSON line in canonical values (docs/output.md
"Change-stream truth", :func:`jsonl_line`, the reference), the same lines built column-wide
by Arrow for the batch path (:class:`JsonlFile`, :class:`JsonlBatch`), ``truth/final`` lines
column by column (:func:`object_lines`), and the JSONL readers/concatenation.

Memory (issue #28): the batch path's lines are rendered a record batch at a time and written
to the file as they are made; a batch's typed columns wait unrendered (the run may still
pass ``JSONL_MAX_CHANGES``, and then no line is needed) only while the waiting columns hold
at most :data:`JSONL_HOLD_BYTES`. Nothing holds the rows of the whole run, nor a Python
object per value of a wide table.

Size (about 410 lines): the reference line renderer and the column-wide one it is tested
against (tests/generators/test_changes_jsonl.py) stay side by side, with the JSON text rules
(escapes, ``null``, ``jsonl_safe``) both follow."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from binlogwriter.schema import Column, Table
from binlogwriter.truth_names import truth_file
from binlogwriter.values.json_text import jsonl_safe
from binlogwriter.values.row import ColumnArray
from generators.arrow_arrays import OP_NAMES, np_array, pick_strings, string_array
from generators.changes_arrow import canon_column

_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_ESCAPE = json.encoder.encode_basestring  # a str as json.dumps(..., ensure_ascii=False) writes it

MODEL_FIELDS = ("seq", "row", "op", "database", "table", "before", "after", "before_row", "after_row", "gtid", "xid",
                "file", "position", "transaction_position", "timestamp")
"""The keys of one change of the change model (issue #31 §1, docs/output.md "The change
model"), in the order ``changes.jsonl`` writes them."""

JSONL_HOLD_BYTES = 32 << 20
"""Typed column bytes of batches whose lines wait (:class:`JsonlFile`); over it they are
rendered and written at once. A narrow table's ``JSONL_MAX_CHANGES`` changes stay under it
(sysbench: about 25 MB), so a run that passes the limit rendered nothing for nothing."""


# -- changes.jsonl: the batch path, column-wide ---------------------------------------------
class JsonlFile:
    """``changes.jsonl`` (or a Spark partition's chunk of it) being written: lines of the
    per-transaction path one at a time (:meth:`write_line`), the batch path's a batch at a time
    (:class:`JsonlBatch`, in the order given). Called from one thread at a time: the
    recorder's writer thread adds batches, its own thread writes lines once that is idle."""

    def __init__(self, path: str | os.PathLike, hold_bytes: int | None = None) -> None:
        self.path = Path(path)
        self._f = open(self.path, "wb")  # noqa: SIM115 - closed by close/discard/abort
        self._pending: list[JsonlBatch] = []
        self._held = 0
        self.hold_bytes = JSONL_HOLD_BYTES if hold_bytes is None else hold_bytes

    def batch(self) -> JsonlBatch:
        """A new batch; its lines come after everything given before it."""
        return JsonlBatch(self)

    def _add(self, batch: JsonlBatch) -> None:
        self._pending.append(batch)
        self._held += batch.nbytes
        if self._held > self.hold_bytes:
            self.flush()

    def write_line(self, line: str) -> None:
        """One line (without its end), after the lines of every batch given before."""
        self.flush()
        self._f.write(line.encode("utf-8") + b"\n")

    def flush(self) -> None:
        """Render and write the waiting batches, in order."""
        pending, self._pending, self._held = self._pending, [], 0
        for b in pending:
            _write_text(self._f, b.render())

    def close(self) -> str:
        """Write what waits, close; the file's path."""
        self.flush()
        self._f.close()
        return str(self.path)

    def discard(self) -> None:
        """No ``changes.jsonl`` after all (the run passed the limit): forget and remove it."""
        self.abort()
        os.unlink(self.path)

    def abort(self) -> None:
        self._pending, self._held = [], 0
        self._f.close()


def _write_text(f: Any, lines: pa.Array) -> None:
    """The UTF-8 bytes of a (large) string array without nulls, written as they are."""
    if not len(lines):
        return
    lines = lines.cast(pa.large_string())
    _validity, offsets, data = lines.buffers()
    off = np.frombuffer(offsets, dtype=np.int64)[lines.offset:lines.offset + len(lines) + 1]
    f.write(memoryview(data)[int(off[0]):int(off[-1])])


class JsonlBatch:
    """The lines of one batch of the batch path: one part per table (:meth:`table`), each
    its changes ``mine`` (indexes of the batch's changes, ascending); :meth:`done` hands the
    batch to its file. :meth:`render` gives the lines in the batch's change order."""

    def __init__(self, out: JsonlFile) -> None:
        self.out = out
        self.parts: list[tuple[np.ndarray, Callable[[], pa.Array]]] = []
        self.nbytes = 0

    def table(self, table: Table, flavor: str, columns: list[tuple[Column, pa.Array, dict, Any, Any]], nrows: int,
              mine: np.ndarray, fields: dict[str, Any], images: list[tuple], inv: np.ndarray,
              bi: np.ndarray, ai: np.ndarray) -> None:
        """The changes ``mine`` of ``table``. ``columns``: per column ``(column, typed array of
        the truth's Parquet rows, {row: canonical text the type cannot hold}, canonical values
        the typed path made or None, the batch's values)`` over ``nrows`` rows; ``fields``: per change ``seq`` ``row`` ``position``
        ``transaction_position`` ``timestamp`` (int64 arrays), ``kind`` (0 insert, 1 update,
        2 delete), ``gtid`` ``file`` (string arrays), ``xid`` (int64 array, null: none);
        ``images[inv[k]]``: change k's (before, after) column bits (None: no such side, else
        one flag per column); ``bi`` / ``ai``: its before / after row."""
        srcs = [_column_source(col, flavor, *rest) for col, *rest in columns]
        self.nbytes += sum(c[1].nbytes for c in columns)

        def render() -> pa.Array:
            texts = [src() for src in srcs]
            return _table_lines(table, texts, nrows, fields, images, inv, bi, ai)
        self.parts.append((mine, render))

    def done(self) -> None:
        self.out._add(self)

    def render(self) -> pa.Array:
        if len(self.parts) == 1:
            return self.parts[0][1]()
        mines = [m for m, _ in self.parts]
        lines = pa.concat_arrays([r() for _, r in self.parts])
        at = np.empty(len(lines), dtype=np.int64)
        at[np.concatenate(mines)] = np.arange(len(lines), dtype=np.int64)
        return lines.take(np_array(at))


@cache
def _lit(text: str) -> pa.Scalar:
    """``text`` as a large_string scalar (taken from an array: ``pa.scalar`` of a Python value
    imports pandas, see :func:`~generators.arrow_arrays.string_array`)."""
    return string_array([text]).cast(pa.large_string())[0]


def _column_source(col: Column, flavor: str, typed: pa.Array, texts: dict, kept: Any,
                   raw: Any) -> Callable[[], pa.Array]:
    """What makes the JSON texts of one column (null for NULL) when the lines are rendered,
    holding no Python object per value meanwhile. The typed array (``texts``: the canonical
    texts of the rows it holds as null) gives the canonical value: as it is for integer,
    floating and text columns (generators/changes_arrow.py ``column_plan``: typed as they are;
    FLOAT's is its float32 widened), as Arrow prints it for DECIMAL of scale 6 at most (exactly
    the scale's digits; Arrow writes ``1E-7`` once the adjusted exponent is below -6) and DATE, cut to the column's fsp for DATETIME / TIMESTAMP (Arrow prints
    microseconds, and a "Z" after a UTC one), ``0x`` and the bytes' lowercase hex for binary
    ones (``column_plan`` reads them back with ``bytes.fromhex``). A pool column's texts are
    made once per pool. Other families: the canonical values the typed path kept (made into
    an array now), else rendered from the batch's values
    (:func:`~generators.changes_arrow.canon_column`)."""
    t = typed.type
    if isinstance(raw, ColumnArray) and raw.kind == "pool":
        pool = _pool_texts(col, flavor, raw.pool)
        return lambda: pool.take(np_array(np.asarray(raw.data, dtype=np.int64), raw.nulls))
    if pa.types.is_integer(t) or pa.types.is_string(t) or pa.types.is_large_string(t):
        return lambda: _json_column(typed)
    if pa.types.is_floating(t):
        return lambda: _json_column(typed.cast(pa.float64()).to_pylist())
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return lambda: _hex_strings(typed)
    if not texts and ((pa.types.is_decimal(t) and t.scale <= 6) or pa.types.is_date32(t) or pa.types.is_timestamp(t)):
        cut = 10 if pa.types.is_date32(t) else 19 + (col.fsp + 1 if col.fsp else 0) if pa.types.is_timestamp(t) else None
        return lambda: _quoted(pc.utf8_slice_codeunits(typed.cast(pa.string()), 0, cut) if cut else
                               typed.cast(pa.string()))
    if isinstance(kept, pa.Array):
        return lambda: _json_column(kept)
    if kept is not None:
        got = _json_column(kept)
        return lambda: got
    return lambda: _json_column(canon_column(col, flavor, raw))


_POOLS: dict[tuple[int, int, str], tuple[tuple, Column, pa.Array]] = {}


def _pool_texts(col: Column, flavor: str, pool: tuple) -> pa.Array:
    """The JSON texts of a value pool's canonical values, kept while the pool lives (the
    entry holds the pool and the column: their ids are not reused)."""
    key = (id(pool), id(col), flavor)
    hit = _POOLS.get(key)
    if hit is None or hit[0] is not pool or hit[1] is not col:
        if len(_POOLS) >= 256:
            _POOLS.clear()
        hit = _POOLS[key] = (pool, col, _json_column(canon_column(col, flavor, list(pool))))
    return hit[2]


def _json_column(vals: Any) -> pa.Array:
    """Canonical values (an Arrow string or integer array, or a list) -> their JSON texts as
    :data:`_ENCODE` writes them inside an object (null for NULL), a large_string array."""
    if isinstance(vals, pa.Array):
        if pa.types.is_integer(vals.type):
            return vals.cast(pa.large_string())
        return json_strings(vals)
    kinds = set(map(type, vals))
    kinds.discard(type(None))
    if kinds <= {str}:
        return json_strings(string_array(vals))
    return string_array(_json_values(vals)).cast(pa.large_string())


_SPECIAL = r'[\x00-\x1f"\\' + "\x85\u2028\u2029]"  # a character json or jsonl_safe escapes
_ODD = r"[\x00-\x1f" + "\x85\u2028\u2029]"  # one escaped otherwise than by a backslash before it


def _quoted(arr: pa.Array) -> pa.Array:
    """Values that need no escape, between double quotes (null stays null)."""
    return pc.binary_join_element_wise(_lit('"'), arr.cast(pa.large_string()), _lit('"'), _lit(""))


def json_strings(arr: pa.Array) -> pa.Array:
    """A string array's values as JSON string literals (null stays null): what
    ``jsonl_safe(json.encoder.encode_basestring(v))`` writes (UTF-8 as it is; the line
    separators escaped here, where the only strings of a line are). ``\\`` and ``"`` are
    escaped by Arrow; the rare values with a control character or a line separator by json."""
    arr = arr.cast(pa.large_string())
    if not pc.any(pc.match_substring_regex(arr, _SPECIAL)).as_py():
        return _quoted(arr)
    out = _quoted(pc.replace_substring(pc.replace_substring(arr, "\\", "\\\\"), '"', '\\"'))
    odd = pc.match_substring_regex(arr, _ODD)
    if odd.true_count:
        mask = pc.fill_null(odd, False)
        idx = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
        fixed = string_array([jsonl_safe(_ESCAPE(v)) for v in arr.take(np_array(idx)).to_pylist()])
        out = pc.replace_with_mask(out, mask, fixed.cast(pa.large_string()))
    return out


_HEX = np.frombuffer(b"".join(b"%02x" % i for i in range(256)), dtype=np.uint8).reshape(256, 2)


def _hex_strings(arr: pa.Array) -> pa.Array:
    """A binary array's values as ``"0x<lowercase hex>"`` JSON strings (null stays null)."""
    arr = arr.cast(pa.large_binary())
    if arr.offset:
        arr = pa.concat_arrays([arr])  # a copy that starts at its buffers' start
    validity, offsets, data = arr.buffers()
    off = np.frombuffer(offsets, dtype=np.int64)[:len(arr) + 1]
    raw = np.frombuffer(data, dtype=np.uint8)[off[0]:off[-1]] if data is not None else np.zeros(0, np.uint8)
    body = pa.Array.from_buffers(pa.large_string(), len(arr), [validity, pa.py_buffer(2 * (off - off[0])),
                                                               pa.py_buffer(_HEX[raw].tobytes())],
                                 null_count=arr.null_count)
    return pc.binary_join_element_wise(_lit('"0x'), body, _lit('"'), _lit(""))


_NULL_TEXT = pc.JoinOptions(null_handling="replace", null_replacement="null")


def _objects(keys: list[str], texts: list[pa.Array], js: Iterable[int], rows: np.ndarray | None, n: int) -> pa.Array:
    """``{"name":value,...}`` of columns ``js`` at rows ``rows`` (None: every row), ``n`` rows."""
    pieces: list[Any] = []
    for j in js:
        pieces.append(_lit(("," if pieces else "{") + keys[j]))
        pieces.append(texts[j] if rows is None else texts[j].take(np_array(rows)))
    if not pieces:
        return pick_strings(("{}",), np.zeros(n, dtype=np.int64)).cast(pa.large_string())
    pieces.append(_lit("}"))
    return pc.binary_join_element_wise(*pieces, _lit(""), options=_NULL_TEXT)


def _side(keys: list[str], texts: list[pa.Array], full: pa.Array, rows: np.ndarray, has: np.ndarray,
          bits: list[Any], inv: np.ndarray) -> tuple[pa.Array, pa.Array]:
    """One side (before or after) of a table's changes: (images, full rows), null where
    ``has`` is False. Change k's full row is ``full[rows[k]]``; its image the same text where
    ``bits[inv[k]]`` flags every column (the same array then), else the object of the
    flagged columns, one join per distinct image shape."""
    row = full.take(np_array(rows, ~has))
    parts: list[pa.Array] = []
    where: list[np.ndarray] = []
    for u, b in enumerate(bits):
        if b is None or all(b):
            continue
        sel = np.flatnonzero((inv == u) & has)
        if len(sel):
            parts.append(_objects(keys, texts, [j for j, p in enumerate(b) if p], rows[sel], len(sel)))
            where.append(sel)
    if not parts:
        return row, row
    at = np.concatenate(where)
    mask = np.zeros(len(rows), dtype=np.bool_)
    mask[at] = True
    return pc.replace_with_mask(row, np_array(mask), pa.concat_arrays(parts).take(np_array(np.argsort(at)))), row


def _ints(a: np.ndarray) -> pa.Array:
    return np_array(np.ascontiguousarray(a, dtype=np.int64)).cast(pa.large_string())


def _table_lines(table: Table, texts: list[pa.Array], nrows: int, f: dict[str, Any], images: list[tuple],
                 inv: np.ndarray, bi: np.ndarray, ai: np.ndarray) -> pa.Array:
    """The lines (each with its end) of one table's changes of a batch, in their order:
    :func:`jsonl_line` of each, joined column-wide (the keys in :data:`MODEL_FIELDS` order)."""
    keys = object_keys([c.name for c in table.columns], escape=False)
    full = _objects(keys, texts, range(len(texts)), None, nrows)
    kind = np.asarray(f["kind"], dtype=np.int64)
    has_b, has_a = kind != 0, kind != 2
    bimg, brow = _side(keys, texts, full, np.where(has_b, bi, 0), has_b, [b for b, _ in images], inv)
    aimg, arow = _side(keys, texts, full, np.where(has_a, ai, 0), has_a, [a for _, a in images], inv)
    return pc.binary_join_element_wise(
        _lit('{"seq":'), _ints(f["seq"]), _lit(',"row":'), _ints(f["row"]),
        _lit(',"op":"'), pick_strings(OP_NAMES, kind).cast(pa.large_string()),
        _lit(f'","database":{jsonl_safe(_ENCODE(table.database))},"table":{jsonl_safe(_ENCODE(table.name))},"before":'),
        bimg, _lit(',"after":'), aimg, _lit(',"before_row":'), brow, _lit(',"after_row":'), arow,
        _lit(',"gtid":'), json_strings(f["gtid"]), _lit(',"xid":'), _json_column(f["xid"]),
        _lit(',"file":'), json_strings(f["file"]), _lit(',"position":'), _ints(f["position"]),
        _lit(',"transaction_position":'), _ints(f["transaction_position"]),
        _lit(',"timestamp":'), _ints(f["timestamp"]), _lit("}\n"), _lit(""), options=_NULL_TEXT)


def object_keys(names: list[str], escape: bool = True) -> list[str]:
    """Each column's ``"name":`` (``escape``: ``%`` doubled and ``%s`` after it, for the ``%``
    formatting of :func:`object_lines`)."""
    if not escape:
        return [jsonl_safe(_ENCODE(nm)) + ":" for nm in names]
    return [_ENCODE(nm).replace("%", "%%") + ":%s" for nm in names]


def object_lines(names: list[str], cols: list[list], nrows: int) -> list[str]:
    """Per row, the JSON object of columns ``cols`` (canonical values) named ``names``: a
    ``truth/final`` line (:func:`generators.truth.dumps_line`) without its end, made column
    by column."""
    if not cols:
        return ["{}"] * nrows
    tmpl = "{" + ",".join(object_keys(names)) + "}"
    return [jsonl_safe(tmpl % r) for r in zip(*[_json_values(c) for c in cols], strict=True)]


def _json_values(vals: list) -> list[str]:
    """Canonical values -> their JSON texts, as :data:`_ENCODE` writes them inside an object
    (strings through json's own string encoder, ints and finite floats by ``repr``; other
    types one by one)."""
    kinds = set(map(type, vals))
    kinds.discard(type(None))
    if kinds <= {str}:
        esc = json.encoder.encode_basestring
        return ["null" if v is None else esc(v) for v in vals]
    if kinds <= {int}:
        return ["null" if v is None else int.__repr__(v) for v in vals]
    if kinds == {float} and all(math.isfinite(v) for v in vals if v is not None):  # json: a finite float by repr
        return ["null" if v is None else float.__repr__(v) for v in vals]
    return [_ENCODE(v) for v in vals]


def jsonl_line(rec: tuple, names: list[str]) -> str:
    """One change as a line of ``changes.jsonl``: the change model (docs/output.md "The change
    model"), keys in :data:`MODEL_FIELDS` order, canonical values. ``rec`` is a recorder record
    ``(seq, op, database, table, gtid, file, position, row, transaction_position, before row,
    after row, before bits, after bits, timestamp, xid)``."""
    seq, op, db, tb, gtid, fname, pos, r, txpos, b, a, bbits, abits, ts, xid = rec

    def image(vals, bits):
        if vals is None:
            return None
        return {n: v for n, v, p in zip(names, vals, bits, strict=True) if p}
    d = {"seq": seq, "row": r, "op": op, "database": db, "table": tb,
         "before": image(b, bbits), "after": image(a, abits),
         "before_row": None if b is None else dict(zip(names, b, strict=True)),
         "after_row": None if a is None else dict(zip(names, a, strict=True)),
         "gtid": gtid, "xid": xid, "file": fname, "position": pos, "transaction_position": txpos, "timestamp": ts}
    return jsonl_safe(json.dumps(d, ensure_ascii=False, separators=(",", ":")))


def read_jsonl_rows(path: str | os.PathLike) -> Iterable[list]:
    """Canonical rows of a ``truth/final`` JSONL file, in order."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            yield list(json.loads(line).values())


def concat_text(parts: list[str], dest: str | os.PathLike) -> None:
    dest = Path(dest)
    tmp = dest.with_name(dest.name + ".part")
    with open(tmp, "wb") as out:
        for p in parts:
            with open(p, "rb") as f:
                while True:
                    b = f.read(1 << 20)
                    if not b:
                        break
                    out.write(b)
    os.replace(tmp, dest)


def table_file(table: Table, suffix: str = ".parquet") -> str:
    """The name of ``table``'s truth file with ``suffix`` (binlogwriter/truth_names.py)."""
    return truth_file(table.database, table.name, suffix)
