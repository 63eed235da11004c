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
from typing import Any

from binlogwriter.reader import BinlogReader
from binlogwriter.values import ABSENT

__all__ = ["DecodedChange", "read_changes", "assert_changes_equal", "table_rows", "final_rows"]

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
