"""The replica model on a catalogue entry (binlogwriter/fixtures/replica.py): the entry's
binlog, read back with the project's reader, is the :class:`~generators.replica.replay.Source`
(row changes in the change model, canonical values; the ALTERs from the binlog); the replica
starts empty after the binlog's CREATEs, as the entry says. tests/generators/test_replica_catalogue.py
requires the model's answer to be the entry's truth, which was read from a real replica."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from binlogwriter.fixtures import Ddl as CaseDdl
from binlogwriter.fixtures import WrittenBinlogs, table_sql
from binlogwriter.reader import BinlogReader
from binlogwriter.values.families import family_of_type
from generators.replica.ddl import Definition
from generators.replica.replay import Source, replica_outcome, sort_key
from generators.replica.settings import ReplicaSettings, parse_conversions

__all__ = ["case_source", "case_replica_outcome"]


def _canonical(case: WrittenBinlogs) -> dict[tuple[str, str], Any]:
    """(``db.table``, column) -> the column type's canonical renderer (docs/output.md), over
    every definition the case's tables have (the ALTERs' included)."""
    tables = list(case.tables) + [t.table for t in case.transactions if isinstance(t, CaseDdl)]
    return {(f"{t.database}.{t.name}", c.name): family_of_type(c.type).truth_renderer(c, case.flavor)
            for t in tables for c in t.columns}


def _changes(case: WrittenBinlogs) -> Iterator[dict[str, Any]]:
    fns = _canonical(case)
    for ch in BinlogReader(case.files).changes():
        d = ch.as_dict()
        table = f"{d['database']}.{d['table']}"
        for side in ("before", "after"):
            if d[side] is not None:
                d[side] = {k: None if v is None else fns[table, k](v) for k, v in d[side].items()}
        yield d


def case_source(case: WrittenBinlogs) -> Source:
    """A written catalogue case as the replay's :class:`Source`."""
    defs = {f"{t.database}.{t.name}": Definition(table_sql(t), t.database, case.flavor) for t in case.tables}
    return Source(case.directory, [f.name for f in case.files], case.tables[0].database, case.flavor, defs,
                  _changes(case), None, True, creates=False)


def case_replica_outcome(case: WrittenBinlogs, schema_sql: str,
                         conversions: str = "") -> tuple[dict[str, Any], dict[str, list[tuple]]]:
    """(outcome, rows of each replica table in canonical order) for ``case`` replicated into
    a replica with ``schema_sql`` and ``slave_type_conversions`` = ``conversions``."""
    settings = ReplicaSettings(schema_sql, parse_conversions(conversions))
    outcome, tables = replica_outcome(case_source(case), settings)
    rows = {}
    for name, rt in tables.items():
        names = [c.name for c in rt.table.columns]
        rows[name] = sorted((tuple(r[c] for c in names) for r in rt), key=lambda r: sort_key(list(r)))
    return outcome, rows
