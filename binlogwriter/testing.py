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

import os
import pprint
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from binlogwriter.events.rows import ROWS_CLASSES
from binlogwriter.format import TABLE_MAP_EVENT, TRANSACTION_PAYLOAD_EVENT
from binlogwriter.reader import BinlogReader
from binlogwriter.run_truth import (  # re-exported: the truth side of the assertions below
    MODEL_FIELDS,
    TRUTH_FIELDS,
    canonical_changes,
    final_files,
    run_flavor,
    table_definitions,
    truth_changes,
    truth_columns,
)
from binlogwriter.truth_names import truth_file, truth_table  # re-exported: truth file names
from binlogwriter.values import ABSENT

__all__ = ["DecodedChange", "read_changes", "assert_changes_equal", "table_rows", "final_rows",
           "truth_changes", "canonical_changes", "assert_matches_truth", "TRUTH_FIELDS", "MODEL_FIELDS",
           "table_definitions", "final_files", "truth_file", "truth_table"]

_OPS = {t: cls.KIND for t, cls in ROWS_CLASSES.items()}
"""Rows event type -> op (the event classes' ``KIND``), MariaDB's compressed rows events
(``log_bin_compress``, format.md §13) included: the codec inflates their rows."""


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
    NO_LOG metadata leaves out of the Table_map (column names, charsets, ENUM/SET members) —
    or a :class:`~binlogwriter.fixtures.WrittenBinlogs`, whose definitions after each
    ``ALTER`` (``table_history``) are used in turn: each Table_map takes the next definition
    of its table, in history order, with its number of columns.

    A rows event that cannot be decoded (its Table_map does not fit any definition given)
    raises ValueError naming ``file:offset`` and the table."""
    from binlogwriter.payload import inner_events

    given = [t for _, t in tables.table_history] if hasattr(tables, "table_history") else list(tables)
    defs: dict[str, list[Any]] = {}
    for t in given:
        defs.setdefault(f"{t.database}.{t.name}", []).append(t)
    schemas = {k: v[0] for k, v in defs.items()}
    at = dict.fromkeys(defs, 0)  # index in defs[key] of the definition in use
    reader = BinlogReader(list(files), schemas=schemas)
    out: list[DecodedChange] = []

    def rows(ev: Any, rec: Any) -> Iterator[DecodedChange]:
        tm = reader.state.tables.get(ev.table_id)
        if ev.rows is None:
            name = f"{tm.schema}.{tm.table}" if tm is not None else f"table id {ev.table_id}"
            raise ValueError(f"{rec.file}:{rec.offset}: the rows event of {name} cannot be decoded with the "
                             f"table definitions given (its Table_map has {len(tm.column_types) if tm else '?'} columns)")
        return _rows_of(ev, tm)

    for rec in reader.records():
        ev = reader.decode(rec)
        if ev.type_code == TABLE_MAP_EVENT:
            key = f"{ev.schema}.{ev.table}"
            cands = defs.get(key, ())
            width = len(ev.column_types)
            if len(cands) > 1 and len(schemas[key].columns) != width:
                nxt = next((i for i in range(at[key], len(cands)) if len(cands[i].columns) == width), None)
                if nxt is not None:
                    at[key], schemas[key] = nxt, cands[nxt]
                    reader.state.observe(ev)
        elif ev.type_code in _OPS:
            out.extend(rows(ev, rec))
        elif ev.type_code == TRANSACTION_PAYLOAD_EVENT:
            for _pos, _chunk, inner in inner_events(ev, rec.fmt, state=reader.state):
                if inner.type_code in _OPS:
                    out.extend(rows(inner, rec))
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


def assert_changes_equal(decoded: Sequence[Any], expected: Sequence[Any], *, profile: Any = "exact",
                         tables: Any = None, columns: Mapping[str, Sequence[str]] | None = None,
                         max_differences: int = 20, flavor: str = "mysql80") -> None:
    """Assert a consumer's decoded change stream equals the expected one, change by change.

    Each change is a :class:`DecodedChange`, an object or mapping with ``op``, ``table``
    (``db.name``, or ``database`` + ``table``), ``before``, ``after`` (and ``seq`` + ``row``,
    which then align the streams; else they align by order), or a tuple
    ``(op, table, before, after)``. Images are ``{column: value}`` dicts or positional
    sequences (:data:`~binlogwriter.values.ABSENT` for a column the image does not carry).
    ``tables``: the :class:`~binlogwriter.schema.Table` objects written (or ``db.table`` ->
    Table, or a :class:`~binlogwriter.fixtures.WrittenBinlogs` — then change ``k``'s positional
    images are named with the definition in force at that change, after any ``ALTER``,
    :meth:`~binlogwriter.fixtures.WrittenBinlogs.tables_at`; streams then align by order):
    they name positional columns and give each column's type, so values compare
    through :func:`binlogwriter.compare.compare_value` under ``profile`` (a consumer profile
    name, docs/testing.md "Consumer profiles"); without them values compare strictly (``str``
    never equals ``bytes``, ``ABSENT`` only ``ABSENT``). ``columns``: ``db.table`` -> column
    names, for positional images when ``tables`` is not given. On a mismatch an
    AssertionError with a bounded report (:class:`binlogwriter.compare.StreamDiff`): counts by
    kind, then the first ``max_differences`` differences one line each; the comparison itself
    never raises anything else on the changes' contents.
    """
    from binlogwriter.compare import diff_streams

    names: dict[str, list[str]] = {k: list(v) for k, v in (columns or {}).items()}
    types: dict[str, dict[str, Any]] = {}
    if hasattr(tables, "tables_at"):  # a WrittenBinlogs: the definition in force at each change
        decoded, expected = _named_by_history(decoded, tables), _named_by_history(expected, tables)
        tables = [t for _, t in tables.table_history]  # later definitions win (types by name)
    for key, t in _tables_of(tables):
        names[key] = [c.name for c in t.columns]
        types[key] = {c.name: c for c in t.columns}
    out, n = diff_streams(decoded, expected, profile=profile, flavor=flavor, columns=types, names=names,
                          max_differences=max_differences, truth_label="expected")
    if out.total:
        raise AssertionError(out.report(
            f"change stream differs from the ground truth (profile {_profile_name(profile)}, "
            f"{len(decoded)} decoded, {n} expected)"))


def _named_by_history(changes: Sequence[Any], case: Any) -> list[Any]:
    """``changes`` in the change model (:func:`binlogwriter.compare.as_change`) with change
    ``k``'s positional images named by ``case.tables_at(k)``; an image that does not fit that
    definition stays as given (the comparison reports it)."""
    from binlogwriter.compare.streams import as_change, named_image

    out: list[Any] = []
    for k, c in enumerate(changes):
        d = as_change(c)
        t = case.tables_at(k).get(str(d.get("table")))
        if t is not None:
            cols = [col.name for col in t.columns]
            for side in ("before", "after"):
                img, _why = named_image(d.get(side), cols)
                if img is not None:
                    d[side] = img
        out.append(d)
    return out


def _tables_of(tables: Any) -> list[tuple[str, Any]]:
    if tables is None:
        return []
    if isinstance(tables, Mapping):
        return [(str(k), t) for k, t in tables.items()]
    return [(f"{t.database}.{t.name}", t) for t in tables]


def _profile_name(profile: Any) -> str:
    return getattr(profile, "name", profile)


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
# a consumer's change stream against truth/changes of a generated run (binlogwriter.run_truth)
# ------------------------------------------------------------------------------------

def assert_matches_truth(decoded: Iterable[Any], run_dir: str | os.PathLike, *, profile: Any = "exact",
                         fields: Sequence[str] = TRUTH_FIELDS, max_differences: int = 20) -> int:
    """Assert a consumer's change stream equals ``run_dir/truth/changes``, change by change,
    comparing ``fields`` (default :data:`TRUTH_FIELDS`); values compare through the column
    types the truth records under the consumer ``profile`` (:mod:`binlogwriter.compare`,
    docs/testing.md "Consumer profiles"; ``"exact"``: canonical form or binlogwriter's own
    values). Changes may be objects or mappings, ``table`` as ``db.name`` or ``database`` +
    ``table``, images as dicts or positional (named by the run's columns); they align with
    the truth by (``seq``, ``row``) when every decoded change has both, else by order. On a
    mismatch an AssertionError with a bounded report: counts by kind of difference, then the
    first ``max_differences`` one line each (``change #k seq S db.table row R after column
    c: decoded <v>, truth <v>``, values cut to ~80 characters). Returns the number of
    changes compared."""
    from binlogwriter.compare import diff_streams

    run_dir = Path(run_dir)
    decoded = list(decoded)
    want = list(truth_changes(run_dir))
    out, n = diff_streams(decoded, want, profile=profile, flavor=run_flavor(run_dir),
                          fields=tuple(fields), columns=truth_columns(run_dir),
                          max_differences=max_differences)
    if out.total:
        raise AssertionError(out.report(
            f"change stream differs from truth/changes (profile {_profile_name(profile)}, "
            f"{len(decoded)} decoded, {n} in the truth)"))
    return n
