"""Test helpers for consumers of binlogs: the change stream of a file set, the ground truth of
what was written, and an assertion that compares them with a readable diff.

A *change* is a :class:`DecodedChange` — ``op`` (insert/update/delete), ``table``
(``db.name``), ``before`` and ``after`` images as the binlog carries them (tuples in column
order; :data:`~binlogwriter.values.ABSENT` for a column outside a partial image; ``None`` is
SQL NULL). The rows events of a compressed transaction (TRANSACTION_PAYLOAD, format.md §15)
are read from inside the payload. No hypothesis or pytest import here: this module is usable
from any test runner. The pytest plugin (:mod:`binlogwriter.pytest_plugin`) re-exports
:func:`assert_changes_equal`.
"""

from __future__ import annotations

import difflib
import os
import pprint
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from binlogwriter.reader import BinlogReader
from binlogwriter.values import ABSENT

__all__ = ["DecodedChange", "read_changes", "assert_changes_equal", "table_rows", "final_rows",
           "truth_changes", "canonical_changes", "assert_matches_truth", "TRUTH_FIELDS", "MODEL_FIELDS",
           "table_definitions"]

_OPS = {23: "insert", 30: "insert", 24: "update", 31: "update", 39: "update", 25: "delete", 32: "delete"}


@dataclass(frozen=True)
class DecodedChange:
    """One row change: ``table`` is ``db.name``; ``before``/``after`` the images (None when the
    operation has none)."""

    op: str
    table: str
    before: tuple | None
    after: tuple | None

    def __repr__(self) -> str:
        parts = [self.op, self.table]
        if self.before is not None:
            parts.append(f"before={_row_repr(self.before)}")
        if self.after is not None:
            parts.append(f"after={_row_repr(self.after)}")
        return "<" + " ".join(parts) + ">"


def _row_repr(row: tuple) -> str:
    return "(" + ", ".join("-" if v is ABSENT else repr(v) for v in row) + ")"


def _rows_of(ev: Any, table_map: Any) -> Iterator[DecodedChange]:
    op = _OPS[ev.type_code]
    name = f"{table_map.schema}.{table_map.table}" if table_map is not None else f"#{ev.table_id}"
    for r in ev.rows:
        if op == "update":
            yield DecodedChange(op, name, tuple(r[0]), tuple(r[1]))
        elif op == "insert":
            yield DecodedChange(op, name, None, tuple(r))
        else:
            yield DecodedChange(op, name, tuple(r), None)


def read_changes(files: Iterable[str | os.PathLike], tables: Iterable[Any] = ()) -> list[DecodedChange]:
    """Every row change in ``files``, in order, decoded by :class:`BinlogReader`. ``tables``:
    the :class:`~binlogwriter.schema.Table` objects written, which fill in what MINIMAL or
    NO_LOG metadata leaves out of the Table_map (column names, charsets, ENUM/SET members)."""
    from binlogwriter.payload import inner_events

    schemas = {f"{t.database}.{t.name}": t for t in tables}
    reader = BinlogReader(list(files), schemas=schemas)
    out: list[DecodedChange] = []
    for rec in reader.records():
        ev = reader.decode(rec)
        if ev.type_code in _OPS:
            out.extend(_rows_of(ev, reader.state.tables.get(ev.table_id)))
        elif ev.type_code == 40:
            for _pos, _chunk, inner in inner_events(ev, rec.fmt, state=reader.state):
                if inner.type_code in _OPS:
                    out.extend(_rows_of(inner, reader.state.tables.get(inner.table_id)))
    return out


def _norm(change: Any) -> tuple[str, str, tuple | None, tuple | None]:
    if isinstance(change, DecodedChange):
        return change.op, change.table, change.before, change.after
    if isinstance(change, Mapping):
        return (change["op"], change["table"], _tuple(change.get("before")), _tuple(change.get("after")))
    op, table, before, after = change
    return op, table, _tuple(before), _tuple(after)


def _tuple(v: Any) -> tuple | None:
    return None if v is None else tuple(v)


def _same(a: Any, b: Any) -> bool:
    if a is ABSENT or b is ABSENT:
        return a is b
    if isinstance(a, bytes | str) or isinstance(b, bytes | str):
        return type(a) is type(b) and a == b
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b


def _row_diff(label: str, got: tuple | None, want: tuple | None, names: Sequence[str] | None) -> list[str]:
    if got is None or want is None:
        return [] if got is want else [f"  {label}: decoded {got!r}, expected {want!r}"]
    if len(got) != len(want):
        return [f"  {label}: {len(got)} columns decoded, {len(want)} expected"]
    out = []
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if not _same(g, w):
            col = names[i] if names and i < len(names) else f"#{i}"
            out.append(f"  {label}.{col}: decoded {_v(g)}, expected {_v(w)}")
    return out


def _v(v: Any) -> str:
    if v is ABSENT:
        return "ABSENT (not in the image)"
    r = repr(v)
    return (r[:120] + f"… ({len(r)} chars)") if len(r) > 130 else f"{r} [{type(v).__name__}]"


def assert_changes_equal(decoded: Sequence[Any], expected: Sequence[Any], *,
                         columns: Mapping[str, Sequence[str]] | None = None) -> None:
    """Assert a consumer's decoded change stream equals the ground truth, change by change.

    Each change is a :class:`DecodedChange`, a mapping with ``op``, ``table``, ``before``,
    ``after``, or a tuple ``(op, table, before, after)``. Values compare with ``==`` except
    that ``str`` never equals ``bytes`` and ``ABSENT`` equals only ``ABSENT``. On a mismatch the
    error names the first differing changes, column by column (``columns``: ``db.table`` ->
    column names, for the message), then a unified diff of the two streams.
    """
    got = [_norm(c) for c in decoded]
    want = [_norm(c) for c in expected]
    problems: list[str] = []
    if len(got) != len(want):
        problems.append(f"{len(got)} changes decoded, {len(want)} expected")
    for k, (g, w) in enumerate(zip(got, want, strict=False)):
        lines = []
        if g[:2] != w[:2]:
            lines.append(f"  decoded {g[0]} on {g[1]}, expected {w[0]} on {w[1]}")
        else:
            names = (columns or {}).get(w[1])
            lines += _row_diff("before", g[2], w[2], names)
            lines += _row_diff("after", g[3], w[3], names)
        if lines:
            problems.append(f"change {k} ({w[0]} {w[1]}):")
            problems.extend(lines)
        if sum(1 for p in problems if p.startswith("change ")) >= 5:
            problems.append("  … (first 5 differing changes shown)")
            break
    if not problems:
        return
    a = [repr(DecodedChange(*c)) for c in want]
    b = [repr(DecodedChange(*c)) for c in got]
    diff = list(difflib.unified_diff(a, b, "expected", "decoded", lineterm="", n=1))[:60]
    raise AssertionError("change stream differs from the ground truth\n" + "\n".join(problems)
                         + ("\n" + "\n".join(diff) if diff else ""))


def final_rows(changes: Iterable[Any]) -> dict[str, list[tuple]]:
    """Apply full-row changes in order (``before``/``after`` full rows, as in the truth of
    :mod:`binlogwriter.strategies` and :mod:`binlogwriter.fixtures`) -> ``db.table`` -> rows
    left, in insertion order. An update or delete of a row that is not there raises."""
    tables: dict[str, list[tuple]] = {}
    for c in changes:
        op, table, before, after = _norm(c)
        live = tables.setdefault(table, [])
        if op in ("update", "delete"):
            try:
                pos = live.index(before)
            except ValueError:
                raise AssertionError(f"{op} of a row not in {table}: {before!r}") from None
            if op == "delete":
                live.pop(pos)
            else:
                live[pos] = after
        else:
            live.append(after)
    return tables


def table_rows(rows: Iterable[tuple]) -> str:
    """Rows as one sorted, printable block (for messages)."""
    return pprint.pformat(sorted(rows, key=repr), width=110)


# ------------------------------------------------------------------------------------
# truth/changes of a generated run (docs/output.md "Change-stream truth")
# ------------------------------------------------------------------------------------

TRUTH_FIELDS = ("op", "database", "table", "gtid", "file", "position", "row", "timestamp", "before", "after")
"""What :func:`assert_matches_truth` compares by default (change model names, docs/output.md
"The change model"): ``before`` / ``after`` are the images as the binlog carries them
(column -> canonical value, columns outside a MINIMAL/NOBLOB image left out), ``row`` the
change's index inside its transaction, ``timestamp`` Unix seconds."""

MODEL_FIELDS = ("seq", "row", "op", "database", "table", "before", "after", "before_row", "after_row", "gtid", "xid",
                "file", "position", "transaction_position", "timestamp")
"""The keys of one change of the change model (issue #31 §1), in order: what
:func:`truth_changes` yields, ``truth/changes/changes.jsonl`` holds and
:meth:`binlogwriter.read.changes.Change.as_dict` gives."""


def _canonical_fns(columns: Mapping[str, Any], flavor: str) -> dict[str, Any]:
    """column name -> fn(Python value) -> canonical value (docs/output.md), for values as
    the reader decodes them or as Parquet truth loads them."""
    from binlogwriter.schema.tables import column_from_info
    from binlogwriter.values.families import family_of_type

    out = {}
    for name, info in columns.items():
        col = column_from_info(info)
        fam = family_of_type(col.type)
        if fam is None:
            raise ValueError(f"column {name}: no canonical form for {col.type}")
        fn = fam.truth_renderer(col, flavor)  # the type family's canonical form (docs/output.md)
        if col.type == "SET":
            fn = (lambda f: lambda v: f(v.split(",") if v else []) if isinstance(v, str) else f(v))(fn)
        elif col.type == "JSON":
            fn = (lambda f: lambda v: v if isinstance(v, str) else f(v))(fn)
        out[name] = fn
    return out


def _run_flavor(run_dir: Path) -> str:
    import json

    return json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))["format"]["flavor"]


def truth_changes(run_dir: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """Every change of ``run_dir/truth/changes/*.parquet`` in commit order (by ``seq``, then
    ``row``), in the change model (keys :data:`MODEL_FIELDS`, docs/output.md "The change
    model"): ``database`` and ``table`` apart, ``before`` / ``after`` the images (only the
    columns the image carries), ``before_row`` / ``after_row`` the full rows, ``timestamp``
    Unix seconds, values in canonical form. Reads one batch per table at a time."""
    import heapq
    import json

    import pyarrow.parquet as pq

    run_dir = Path(run_dir)
    flavor = _run_flavor(run_dir)

    def one(path: Path) -> Iterator[tuple[tuple[int, int], dict[str, Any]]]:
        f = pq.ParquetFile(path)
        meta = json.loads((f.schema_arrow.metadata or {}).get(b"binlogwriter.columns", b"{}"))
        fns = _canonical_fns(meta, flavor)
        for batch in f.iter_batches(batch_size=4096):
            for rec in batch.to_pylist():
                out = {"seq": rec["seq"], "row": rec["row"], "op": rec["op"], "database": rec["database"],
                       "table": rec["table"]}
                for side in ("before", "after"):
                    full = rec[side]
                    if full is None:
                        out[side] = out[side + "_row"] = None
                        continue
                    text = dict(rec[side + "_text"] or ())
                    keep = rec[side + "_columns"]
                    row = {c: (text[c] if c in text else None if full[c] is None else fns[c](full[c]))
                           for c in rec["columns"]}
                    out[side + "_row"] = row
                    out[side] = {c: row.get(c) for c in keep}
                out = {k: out[k] for k in MODEL_FIELDS[:9]}
                out.update(gtid=rec["gtid"], xid=rec.get("xid"), file=rec["file"], position=rec["position"],
                           transaction_position=rec["transaction_position"],
                           timestamp=int(rec["timestamp"].timestamp()))
                yield (rec["seq"], rec["row"]), out

    files = sorted((run_dir / "truth" / "changes").glob("*.parquet"))
    for _, change in heapq.merge(*(one(p) for p in files), key=lambda x: x[0]):
        yield change


def table_definitions(run_dir: str | os.PathLike) -> list[dict[str, Any]]:
    """``run_dir/truth/schema_history.jsonl``: every table definition the run used, one dict
    per definition — ``seq`` (the change model's ``seq`` of the first transaction it applies
    to; 0 for the initial schema), ``database``, ``table``, ``create`` (CREATE TABLE text; None
    once the table is dropped) and ``columns`` (names in order) — in the order written
    (ascending ``seq``). Map a consumer's column positions to names with the last definition
    of the table whose ``seq`` is at most the change's."""
    import json

    path = Path(run_dir) / "truth" / "schema_history.jsonl"
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def canonical_changes(changes: Iterable[Any], run_dir: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """A consumer's changes in the change model with values in canonical form, using the
    column types the run's truth records, ready to compare with :func:`truth_changes`.

    ``changes``: :class:`binlogwriter.read.changes.Change` objects (through their
    ``as_dict()``), or mappings with the model's names — ``op``, ``database`` + ``table``
    (or, legacy, ``table`` as ``db.name`` alone), ``before`` / ``after`` image dicts and
    whatever else the consumer knows (``gtid``, ``file``, ``position``, ``row``, ...). The
    result has ``database`` and ``table`` apart, ``file`` as a basename, other keys as
    given."""
    import json

    import pyarrow.parquet as pq

    run_dir = Path(run_dir)
    flavor = _run_flavor(run_dir)
    fns: dict[str, dict[str, Any]] = {}
    for p in (run_dir / "truth" / "changes").glob("*.parquet"):
        meta = json.loads((pq.read_schema(p).metadata or {}).get(b"binlogwriter.columns", b"{}"))
        fns[p.name[:-len(".parquet")]] = _canonical_fns(meta, flavor)
    for c in changes:
        if isinstance(c, Mapping):
            d = dict(c)
        elif hasattr(c, "as_dict"):
            d = c.as_dict()
        else:
            d = {k: getattr(c, k) for k in (
                "op", "database", "table", "before", "after", "gtid", "file", "position", "row", "timestamp")}
        if d.get("database") is None and "." in (d.get("table") or ""):
            d["database"], d["table"] = d["table"].split(".", 1)
        f = fns.get(f"{d.get('database')}.{d.get('table')}", {})
        for side in ("before", "after", "before_row", "after_row"):
            img = d.get(side)
            if img is not None:
                d[side] = {k: None if v is None else f[k](v) if k in f else v for k, v in img.items()}
        if d.get("file") is not None:
            d["file"] = os.path.basename(os.fspath(d["file"]))
        yield d


def _change_line(c: Mapping[str, Any], fields: Sequence[str]) -> str:
    return " ".join(f"{k}={c.get(k)!r}" for k in fields)


def assert_matches_truth(decoded: Iterable[Any], run_dir: str | os.PathLike, *,
                         fields: Sequence[str] = TRUTH_FIELDS) -> int:
    """Assert a consumer's change stream equals ``run_dir/truth/changes``, change by change,
    comparing ``fields`` (default :data:`TRUTH_FIELDS`) in canonical form. On a mismatch the
    error names the first differing changes field by field and column by column, then a
    unified diff of the two streams around them. Returns the number of changes compared."""
    got = list(canonical_changes(decoded, run_dir))
    want = list(truth_changes(run_dir))
    problems: list[str] = []
    if len(got) != len(want):
        problems.append(f"{len(got)} changes decoded, {len(want)} in the truth")
    first_bad = None
    for k, (g, w) in enumerate(zip(got, want, strict=False)):
        lines = []
        for f in fields:
            gv, wv = g.get(f), w.get(f)
            if f in ("before", "after") and isinstance(gv, dict) and isinstance(wv, dict):
                for col in list(wv) + [c for c in gv if c not in wv]:
                    if col not in gv:
                        lines.append(f"  {f}.{col}: not decoded (absent), truth {wv[col]!r}")
                    elif col not in wv:
                        lines.append(f"  {f}.{col}: decoded {gv[col]!r}, not in the truth's image")
                    elif gv[col] != wv[col] or type(gv[col]) is not type(wv[col]):
                        lines.append(f"  {f}.{col}: decoded {_v(gv[col])}, truth {_v(wv[col])}")
            elif gv != wv:
                lines.append(f"  {f}: decoded {gv!r}, truth {wv!r}")
        if lines:
            first_bad = k if first_bad is None else first_bad
            problems.append(f"change {k} (seq {w.get('seq')}, {w.get('op')} {w.get('table')} at "
                            f"{w.get('file')}:{w.get('position')} row {w.get('row')}):")
            problems.extend(lines)
        if sum(1 for p in problems if p.startswith("change ")) >= 5:
            problems.append("  … (first 5 differing changes shown)")
            break
    if not problems:
        return len(want)
    lo = max(0, (first_bad if first_bad is not None else min(len(got), len(want))) - 2)
    a = [_change_line(c, fields) for c in want[lo:lo + 12]]
    b = [_change_line(c, fields) for c in got[lo:lo + 12]]
    diff = list(difflib.unified_diff(a, b, "truth", "decoded", lineterm="", n=1))[:40]
    raise AssertionError("change stream differs from truth/changes\n" + "\n".join(problems)
                         + ("\n" + "\n".join(diff) if diff else ""))
