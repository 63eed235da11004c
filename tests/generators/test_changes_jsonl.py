"""The batch path's ``changes.jsonl`` lines (generators/changes_jsonl.py ``JsonlBatch``: built
column-wide by Arrow from the typed truth columns) are byte for byte the reference
:func:`~generators.changes_jsonl.jsonl_line` of each change (``json.dumps`` of the change
model over the canonical rows), on the shapes users have: wide tables (60–300 columns),
multibyte text and the characters JSON and ``jsonl_safe`` escape, NULLs, JSON documents,
edge values (type limits, zero dates), keyless tables and composite keys, full and partial
images, pool columns, several tables in one batch, and lines of the per-transaction path
between batches whether the waiting batches were rendered early (hold budget) or not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.strategies import KEY_KINDS, tables, values
from binlogwriter.values.row import ColumnArray
from generators.arrow_arrays import string_array
from generators.changes_arrow import typed_array
from generators.changes_jsonl import JsonlFile, jsonl_line
from generators.truth import canonical_renderer

FLAVORS = ("mysql80", "mysql84", "mariadb1011")
OPS = ("insert", "update", "delete")
_TEXT_TYPES = ("CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "JSON")
_TRICKY = st.lists(st.sampled_from(['"', "\\", "\\u", "\x00", "\x1f", "\n", "\t", "\x7f", "\x85", "\u2028",
                                    "\u2029", "é", "中文", "😀", "a", " ", "%s", "{}"]), max_size=6).map("".join)


def _column_values(draw, col, flavor: str, nrows: int) -> list:
    """``nrows`` values of ``col``: its own strategy (limits, zero dates, any character of its
    charset), NULLs where it is nullable, and strings made of what escapes (text columns)."""
    vs = values(col, flavor)
    if col.type in _TEXT_TYPES and (col.type != "JSON" or flavor.startswith("mariadb")):
        vs = st.one_of(vs, _TRICKY) if col.type != "CHAR" else st.one_of(vs, _TRICKY.map(lambda s: s.rstrip(" ")))
    if col.nullable:
        vs = st.one_of(st.none(), vs)
    return [draw(vs) for _ in range(nrows)]


def _as_input(draw, col, flavor: str, vals: list) -> tuple:
    """The column as the recorder gives it: (column, typed array, texts, kept canonical
    values, the batch's values) — the values a list, or a pool column (``ColumnArray``)."""
    raw: object = vals
    live = [v for v in vals if v is not None]
    if live and not any(isinstance(v, dict | list) for v in live) and draw(st.booleans()):
        at = {(type(v), repr(v)): v for v in live}  # -0.0 and 0.0 are two values
        keys = list(at)
        pool = tuple(at.values())
        idx = np.array([0 if v is None else keys.index((type(v), repr(v))) for v in vals], dtype=np.int64)
        nulls = np.array([v is None for v in vals], dtype=np.bool_)
        raw = ColumnArray("pool", idx, nulls if nulls.any() else None, pool=pool)
    keep: list = []
    typed, texts = typed_array(col, flavor, raw, keep)
    return col, typed, texts, keep[0] if keep else None, raw


@st.composite
def batches(draw, wide: bool = False):
    flavor = draw(st.sampled_from(FLAVORS))
    kw = {"min_columns": 60, "max_columns": 300} if wide else {}
    table = draw(tables(flavor, keys=KEY_KINDS, **kw))
    ncols = len(table.columns)
    nrows = draw(st.integers(1, 3 if wide else 10))
    cols = [_column_values(draw, c, flavor, nrows) for c in table.columns]
    m = draw(st.integers(1, 12))
    kinds = np.array(draw(st.lists(st.integers(0, 2), min_size=m, max_size=m)), dtype=np.int64)
    rows = st.integers(0, nrows - 1)
    bi = np.array(draw(st.lists(rows, min_size=m, max_size=m)), dtype=np.int64)
    ai = np.array(draw(st.lists(rows, min_size=m, max_size=m)), dtype=np.int64)
    bits = st.one_of(st.just((True,) * ncols), st.lists(st.booleans(), min_size=ncols, max_size=ncols).map(tuple))
    shapes = [(None if k == 0 else draw(bits), None if k == 2 else draw(bits)) for k in kinds.tolist()]
    images = list(dict.fromkeys(shapes))
    inv = np.array([images.index(s) for s in shapes], dtype=np.int64)
    ints = st.lists(st.integers(0, (1 << 63) - 1), min_size=m, max_size=m)
    gtids = draw(st.lists(st.one_of(st.none(), st.text(max_size=8)), min_size=m, max_size=m))
    xids = draw(st.lists(st.one_of(st.none(), st.integers(0, (1 << 63) - 1)), min_size=m, max_size=m))
    fields = {"seq": draw(ints), "row": draw(ints), "position": draw(ints), "transaction_position": draw(ints),
              "timestamp": draw(ints), "kind": kinds, "gtid": string_array(gtids),
              "file": string_array(draw(st.lists(st.text(max_size=6), min_size=m, max_size=m))),
              "xid": pa.array(xids, pa.int64())}
    fields = {k: np.array(v, dtype=np.int64) if isinstance(v, list) else v for k, v in fields.items()}
    columns = [_as_input(draw, c, flavor, v) for c, v in zip(table.columns, cols, strict=True)]
    return flavor, table, cols, columns, nrows, fields, images, inv, bi, ai, gtids, xids


def _reference(flavor, table, cols, fields, images, inv, bi, ai, gtids, xids) -> list[str]:
    render = canonical_renderer(table, flavor)
    canon = [render(tuple(r)) for r in zip(*cols, strict=True)]
    names = [c.name for c in table.columns]
    files = fields["file"].to_pylist()
    out = []
    for k, kind in enumerate(fields["kind"].tolist()):
        bbits, abits = images[inv[k]]
        rec = (int(fields["seq"][k]), OPS[kind], table.database, table.name, gtids[k], files[k],
               int(fields["position"][k]), int(fields["row"][k]), int(fields["transaction_position"][k]),
               None if kind == 0 else canon[bi[k]], None if kind == 2 else canon[ai[k]], bbits, abits,
               int(fields["timestamp"][k]), xids[k])
        out.append(jsonl_line(rec, names) + "\n")
    return out


def _check(tmp: Path, case, split: int, hold: int) -> None:
    flavor, table, cols, columns, nrows, fields, images, inv, bi, ai, gtids, xids = case
    ref = _reference(flavor, table, cols, fields, images, inv, bi, ai, gtids, xids)
    m = len(ref)
    # the batch's changes as two tables' parts (interleaved indexes), a line of the
    # per-transaction path before and after the batch
    part = (np.arange(m) * 7 + split) % 3 == 0
    out = JsonlFile(tmp / "changes.jsonl", hold_bytes=hold)
    out.write_line("first")
    batch = out.batch()
    for sel in (np.flatnonzero(part), np.flatnonzero(~part)):
        if len(sel):
            f = {k: v[sel] if isinstance(v, np.ndarray) else v.take(pa.array(sel)) for k, v in fields.items()}
            batch.table(table, flavor, columns, nrows, sel, f, images, inv[sel], bi[sel], ai[sel])
    batch.done()
    out.write_line("last")
    got = Path(out.close()).read_bytes()
    want = ("first\n" + "".join(ref) + "last\n").encode("utf-8")
    assert got == want


_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                             HealthCheck.data_too_large])


@_SETTINGS
@given(case=batches(), split=st.integers(0, 2), hold=st.sampled_from([0, 1 << 40]))
def test_batch_lines_equal_reference_lines(tmp_path_factory, case, split: int, hold: int) -> None:
    _check(tmp_path_factory.mktemp("jsonl"), case, split, hold)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=batches(wide=True), split=st.integers(0, 2))
def test_wide_batch_lines_equal_reference_lines(tmp_path_factory, case, split: int) -> None:
    _check(tmp_path_factory.mktemp("jsonl"), case, split, 0)


def test_discard_removes_the_file(tmp_path: Path) -> None:
    out = JsonlFile(tmp_path / "changes.jsonl")
    out.write_line("x")
    out.discard()
    assert not (tmp_path / "changes.jsonl").exists()
