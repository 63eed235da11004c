"""``truth/changes/changes.jsonl`` lines and the text files of the truth (part of
generators/changes_truth.py): one change as a JSON line in canonical values (docs/output.md),
the same text built column by column for the batch path, and the JSONL readers/concatenation."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from binlogwriter.schema import Table
from binlogwriter.values.json_text import jsonl_safe

_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

MODEL_FIELDS = ("seq", "row", "op", "database", "table", "before", "after", "before_row", "after_row", "gtid", "xid",
                "file", "position", "transaction_position", "timestamp")
"""The keys of one change of the change model (issue #31 §1, docs/output.md "The change
model"), in the order ``changes.jsonl`` writes them."""


def jsonl_lines(lines: list, table: Table, names: list[str], canon: list[list], nrows: int, mine: np.ndarray,
                seq: list, op: list, gtid: list, xid: list, fname: list, pos: np.ndarray, row: np.ndarray,
                txpos: np.ndarray, ts: np.ndarray, has_b: np.ndarray, has_a: np.ndarray, bi: np.ndarray,
                ai: np.ndarray, bits: list) -> None:
    """:func:`jsonl_line` of many changes of one table into ``lines[mine[k]]``, the same text:
    every full row is encoded once, an image that carries every column reuses it, the
    fields around it are formatted once per distinct value."""
    enc = _ENCODE
    keys = _object_keys(names)
    rows, full = _object_texts(keys, canon, nrows)
    db, tb = enc(table.database), enc(table.name)
    memo: dict[Any, str] = {None: "null"}

    def text(v: Any) -> str:
        t = memo.get(v)
        if t is None:
            t = memo[v] = enc(v)
        return t
    pick: dict[int, tuple | None] = {}

    def image(r: int, b: Any) -> str:
        k = pick.get(id(b), 0)
        if k == 0:
            js = tuple(j for j, p in enumerate(b) if p)
            k = pick[id(b)] = None if all(b) else ("{" + ",".join(keys[j] for j in js) + "}", js)
        if k is None:
            return full[r]
        t, js = k
        vals = rows[r]
        return t % tuple(vals[j] for j in js)
    for k, (o, kd, b_ok, a_ok, r_b, r_a, (bb, ab), g, x, f, p, rw, tp, t) in enumerate(zip(
            mine.tolist(), op, has_b.tolist(), has_a.tolist(), bi.tolist(), ai.tolist(), bits, gtid, xid, fname,
            pos.tolist(), row.tolist(), txpos.tolist(), ts.tolist(), strict=True)):
        before = full[r_b] if b_ok else "null"
        after = full[r_a] if a_ok else "null"
        bimg = image(r_b, bb) if b_ok else "null"
        aimg = image(r_a, ab) if a_ok else "null"
        lines[o] = jsonl_safe(f'{{"seq":{seq[k]},"row":{rw},"op":"{kd}","database":{db},"table":{tb},"before":{bimg},'
                    f'"after":{aimg},"before_row":{before},"after_row":{after},"gtid":{text(g)},'
                    f'"xid":{"null" if x is None else x},"file":{text(f)},"position":{p},'
                    f'"transaction_position":{tp},"timestamp":{t}}}')


def _object_keys(names: list[str]) -> list[str]:
    """Each column's ``"name":%s`` (``%`` escaped for the ``%`` formatting of :func:`_object_texts`)."""
    return [_ENCODE(nm).replace("%", "%%") + ":%s" for nm in names]


def _object_texts(keys: list[str], cols: list[list], nrows: int) -> tuple[list[tuple], list[str]]:
    """(per row its values' JSON texts, per row the JSON object of every column) — the text
    ``json.dumps(dict(zip(names, row)), ensure_ascii=False, separators=(",", ":"))`` writes,
    built column by column (:func:`_json_values`) and formatted once per row."""
    rows = list(zip(*[_json_values(c) for c in cols], strict=True)) if cols else [()] * nrows
    tmpl = "{" + ",".join(keys) + "}"
    return rows, [tmpl % r for r in rows]


def object_lines(names: list[str], cols: list[list], nrows: int) -> list[str]:
    """Per row, the JSON object of columns ``cols`` (canonical values) named ``names``: a
    ``truth/final`` line (:func:`generators.truth.dumps_line`) without its end, made column
    by column."""
    if not cols:
        return ["{}"] * nrows
    tmpl = "{" + ",".join(_object_keys(names)) + "}"
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


def table_file(table: Table) -> str:
    return f"{table.database}.{table.name}.parquet"
