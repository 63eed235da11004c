"""Replay a run's ``truth/changes`` onto the replica's schema and write ``truth/replica/``.

The replica applies whole transactions (InnoDB: a stop rolls the transaction back). For each
change, in commit order: the table must be compatible (every mapped pair's class allowed by
``slave_type_conversions``, else error 1677 with nothing of the transaction applied); the
images are mapped by position and converted (:mod:`~generators.replica.convert`); the before
image finds its row (:mod:`~generators.replica.lookup`, else 1032); the written row must not
repeat a unique key (else 1062). ``truth/replica/`` (docs/replica.md):

- ``outcome.json``: ``{"stopped": false, "transactions": N}`` or the stop: ``errno``,
  ``message`` (the replica's ``Last_SQL_Error``), ``gtid``, ``file`` and ``position`` (the
  stopped transaction's start: ``Exec_Master_Log_Pos``), ``event_position`` (its failing rows
  event), ``transactions`` (applied before it);
- ``final/<db>.<table>.jsonl``: every replica table's rows at the end (or at the stop), in
  the canonical form and order of ``truth/final``;
- ``schema.sql``, ``settings.json``: the replica's DDL and settings.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from binlogwriter.layouts.header import HEADER_SIZE, header_struct
from binlogwriter.schema import parse_tables
from binlogwriter.schema.tables import column_from_info
from binlogwriter.truth_names import truth_file, truth_table
from binlogwriter.values.json_text import jsonl_safe
from generators.errors import SpecError
from generators.replica.classes import Pair, UnsupportedConversion, map_columns
from generators.replica.convert import convert, default_value
from generators.replica.ddl import (
    AlterFailed,
    Ddl,
    Definition,
    definitions,
    parse_alter_table,
    parse_create_table,
    run_ddls,
)
from generators.replica.lookup import Duplicate, Missing, ReplicaTable
from generators.replica.provision import provision, write_provision_sql
from generators.replica.settings import ReplicaSettings, parse_conversions, parse_flavor

_EVENT = {"insert": "Write_rows_v1", "update": "Update_rows_v1", "delete": "Delete_rows_v1"}


class _Stop(Exception):
    def __init__(self, errno: int, message: str) -> None:
        super().__init__(errno, message)
        self.errno, self.message = errno, message


def _primary_columns(run: Path) -> dict[str, list]:
    import pyarrow.parquet as pq

    out = {}
    for p in sorted((run / "truth" / "changes").glob("*.parquet")):
        meta = json.loads((pq.read_schema(p).metadata or {}).get(b"binlogwriter.columns", b"{}"))
        out[".".join(truth_table(p.name, ".parquet"))] = [column_from_info(info) for info in meta.values()]
    return out


def _primary_definitions(run: Path, flavor: str) -> dict[str, Definition]:
    """The primary's initial definitions (``truth/schema_history.jsonl``, ``seq`` 0), which the
    run's ALTERs change as they change the replica's; {} for a run without the file."""
    path = run / "truth" / "schema_history.jsonl"
    if not path.exists():
        return {}
    out = {}
    for line in path.read_text("utf-8").splitlines():
        d = json.loads(line)
        if d["seq"] == 0 and d["create"]:
            out[f"{d['database']}.{d['table']}"] = Definition(d["create"], d["database"], flavor)
    return out


_LOG_POS = header_struct("log_pos")


def _end_pos(run: Path, file: str, position: int) -> int:
    """The rows event's end (its header's ``log_pos``), as error messages print it."""
    with open(run / file, "rb") as f:
        f.seek(position)
        return _LOG_POS.unpack(f.read(HEADER_SIZE))[0]


def sort_key(row: list) -> tuple:
    return tuple((0, 0) if v is None else (1, v) if isinstance(v, int | float)
                 else (2, v) if isinstance(v, str) else (3, v["hex"]) for v in row)


@dataclass
class Source:
    """What the replay reads: the binlog ``files`` (in order) in ``directory``, the run's
    ``database`` and ``flavor``, the primary's initial table ``definitions``, its ``changes``
    (the change model, canonical values, commit order), the ``snapshot.sql`` the replica is
    loaded with (None: it starts empty), and whether ALTERs are to be read from the binlog.
    A generated run gives all of it (:func:`run_source`); so does a catalogue entry
    (:func:`generators.replica.catalogue.case_source`)."""

    directory: Path
    files: list[str]
    database: str
    flavor: str
    definitions: dict[str, Definition]
    changes: Iterable[dict[str, Any]]
    snapshot: Path | None = None
    ddl: bool = False
    columns: dict[str, list] = field(default_factory=dict)  # without definitions: the columns
    creates: bool = True  # False: the replica starts after the binlog's CREATE TABLEs


def run_source(run: Path) -> Source:
    """A generated run's :class:`Source` (refusing what the model does not know)."""
    from binlogwriter.testing import truth_changes

    manifest = json.loads((run / "manifest.json").read_text("utf-8"))
    spec = manifest.get("spec", {})
    flavor = manifest.get("format", {}).get("flavor", "") or "mariadb1011"
    if flavor.startswith("mysql"):
        raise UnsupportedConversion("replica truth: only a MariaDB (--flavor mariadb1011) run is modelled",
                                    setting="replica")
    defs = _primary_definitions(run, flavor)
    if spec.get("ddl_every") and not defs:
        raise UnsupportedConversion("replica truth: a --ddl-every run without truth/schema_history.jsonl",
                                    setting="replica")
    return Source(run, [f["name"] for f in manifest.get("files", [])], spec.get("database", "test"), flavor, defs,
                  truth_changes(run), run / "truth" / "snapshot.sql",
                  bool(spec.get("ddl_every") or spec.get("ddl_in_binlog")),
                  {} if defs else _primary_columns(run))


class _Model:
    def __init__(self, source: Source, settings: ReplicaSettings) -> None:
        self.source, self.settings = source, settings
        db = source.database
        try:
            parse_tables(settings.schema_sql, database=db, flavor=settings.flavor)
            self.replica_defs = definitions(settings.schema_sql, db, settings.flavor)
        except Exception as e:
            raise SpecError(f"--replica-schema: {e}", setting="replica") from None
        self.tables = {n: ReplicaTable(d.table) for n, d in self.replica_defs.items() if d.table is not None}
        self.primary_defs = source.definitions
        self.ddls = [d for d in (run_ddls(source.directory, source.files) if source.ddl else [])
                     if source.creates or not d.query.upper().startswith("CREATE")]
        primary = ({n: list(d.table.columns) for n, d in self.primary_defs.items() if d.table is not None}
                   or source.columns)
        self.pairs: dict[str, list[Pair]] = {}
        for name, cols in primary.items():
            if name not in self.tables:
                raise UnsupportedConversion(f"replica truth: the replica schema has no table {name}",
                                            setting="replica")
            self.pairs[name] = map_columns(name, cols, list(self.tables[name].table.columns))
        self.provisioned = 0 if source.snapshot is None else provision(source.snapshot, db, self.tables, primary)

    def ddl(self, d: Ddl) -> None:
        """The replica runs the primary's DDL on its own tables (generators/replica/ddl.py): an
        ALTER on its own definition; a CREATE TABLE of a table it has, under MariaDB's default
        ``slave_ddl_exec_mode=IDEMPOTENT``, as CREATE OR REPLACE TABLE (its own table and rows
        are replaced by the primary's, empty) — or, with IF NOT EXISTS, not at all."""
        if d.query.upper().startswith("CREATE"):
            table, if_not_exists = parse_create_table(d.query)
            name = f"{d.database}.{table}"
            if if_not_exists or name not in self.tables:
                return
            new = Definition(d.query, d.database, self.source.flavor)
            assert new.table is not None
            self.replica_defs[name] = new
            self.tables[name] = ReplicaTable(new.table)
            self.pairs[name] = map_columns(name, list(self.primary_defs[name].table.columns), list(new.table.columns))
            return
        name = f"{d.database}.{parse_alter_table(d.query)}"
        if name not in self.primary_defs or name not in self.replica_defs:
            raise UnsupportedConversion(f"replica truth: DDL on an unknown table {name}", setting="replica")
        primary = self.primary_defs[name].alter(d.query)
        try:
            replica = self.replica_defs[name].alter(d.query)
        except AlterFailed as e:
            q = d.query.replace("'", "''")
            raise _Stop(e.errno, f"Error '{e.message}' on query. Default database: '{d.database}'. "
                                 f"Query: '{q}'") from None
        self.tables[name].redefine(replica, {c.name: default_value(name, c) for c in replica.columns})
        self.pairs[name] = map_columns(name, list(primary.columns), list(replica.columns))

    def check(self, table: str) -> None:
        for pair in self.pairs[table]:
            if not pair.allowed(self.settings.conversions):
                raise _Stop(1677, pair.error_1677())

    def record(self, table: str, image: dict[str, Any] | None) -> tuple[dict, set]:
        """The replica record unpacked from ``image`` (primary column name -> value)."""
        rt = self.tables[table]
        rec = {c.name: default_value(table, c) for c in rt.table.columns}
        got = set()
        for pair in self.pairs[table]:
            name = pair.source.name  # the primary's column at that position
            if image is not None and name in image:
                value = convert(pair, image[name])
                if value is None and not pair.target.nullable:
                    # NULL into a NOT NULL replica column: its default (unpack_row: Field::set_default
                    # and warning ER_BAD_NULL_ERROR), literal or implicit
                    value = rec[pair.target.name]
                rec[pair.target.name] = value
                got.add(pair.target.name)
        return rec, got

    def apply(self, ch: dict[str, Any]) -> None:
        table, rt = ch["table"], self.tables[ch["table"]]
        try:
            if ch["op"] == "insert":
                rec, _ = self.record(table, ch["after"])
                rt.insert(rec)
                return
            before, image = self.record(table, ch["before"])
            rid = rt.find(before, image)
            if ch["op"] == "delete":
                rt.delete(rid)
                return
            after, assigned = self.record(table, ch["after"])
            rt.update(rid, {c: after[c] for c in assigned})
        except Missing as e:
            raise _Stop(1032, self._msg(ch, f"Can't find record in '{table.split('.', 1)[1]}', Error_code: 1032; "
                                            f"handler error {e.handler}")) from None
        except Duplicate as e:
            raise _Stop(1062, self._msg(ch, f"Duplicate entry '{e.entry}' for key '{e.key}', Error_code: 1062; "
                                            "handler error HA_ERR_FOUND_DUPP_KEY")) from None

    def _msg(self, ch: dict[str, Any], what: str) -> str:
        end = _end_pos(self.source.directory, ch["file"], ch["position"])
        return (f"Could not execute {_EVENT[ch['op']]} event on table {ch['table']}; {what}; "
                f"the event's master log {ch['file']}, end_log_pos {end}")


def replica_outcome(source: Source | Path, settings: ReplicaSettings) -> tuple[dict[str, Any], dict[str, ReplicaTable]]:
    """Replay ``source``'s changes (a run directory or a :class:`Source`) onto ``settings``'
    schema: (outcome, the replica's tables)."""
    if not isinstance(source, Source):
        source = run_source(Path(source))
    model = _Model(source, settings)
    order = {f: i for i, f in enumerate(source.files)}
    ddls = list(model.ddls)
    done = 0
    txn: list[dict[str, Any]] = []
    key = None
    # the change model keeps database and table apart; the replay keys its tables by "db.table"
    changes = ({**c, "table": f"{c['database']}.{c['table']}"} for c in source.changes)

    def stopped(stop: _Stop, gtid: str, file: str, position: int, event_position: int) -> dict[str, Any]:
        return {"stopped": True, "errno": stop.errno, "message": stop.message, "gtid": gtid, "file": file,
                "position": position, "event_position": event_position, "transactions": done}

    while True:
        ch = next(changes, None)
        k = None if ch is None else (ch["file"], ch["transaction_position"])
        if txn and k != key:
            marks = {n: len(t.undo) for n, t in model.tables.items()}
            current = txn[0]
            try:
                for current in txn:
                    model.check(current["table"])
                    model.apply(current)
            except _Stop as stop:
                for n, mark in marks.items():
                    model.tables[n].rollback(mark)
                first = txn[0]
                return (stopped(stop, first["gtid"], first["file"], first["transaction_position"],
                                current["position"]), model.tables)
            done += 1
            txn = []
            for t in model.tables.values():  # committed: nothing to undo any more
                t.undo.clear()
        # the ALTERs before this transaction (all that are left, at the end)
        while ddls and (k is None or (order.get(ddls[0].file, 0), ddls[0].position) < (order.get(k[0], 0), k[1])):
            d = ddls.pop(0)
            try:
                model.ddl(d)
            except _Stop as stop:
                return stopped(stop, d.gtid, d.file, d.position, d.event_position), model.tables
        if ch is None:
            return {"stopped": False, "transactions": done}, model.tables
        key = k
        txn.append(ch)


def compute_replica_truth(run_dir: str | os.PathLike, replica_schema_sql: str, *,
                          conversions: str | list[str] | tuple[str, ...] = (), flavor: str = "mariadb1011",
                          out_dir: str | os.PathLike | None = None) -> dict[str, Any]:
    """Write ``truth/replica/`` of a finished run (or into ``out_dir``); returns the outcome.

    ``conversions``: ``slave_type_conversions`` (``ALL_NON_LOSSY,ALL_LOSSY``); ``flavor``: the
    replica (mariadb1011). Raises :class:`UnsupportedConversion` (a SpecError) naming
    ``table.column`` for a pair the model does not know."""
    settings = ReplicaSettings(replica_schema_sql, parse_conversions(conversions), parse_flavor(flavor))
    return write_replica_truth(Path(run_dir), settings, None if out_dir is None else Path(out_dir))


def write_replica_truth(run: Path, settings: ReplicaSettings, out_dir: Path | None = None) -> dict[str, Any]:
    outcome, tables = replica_outcome(run_source(run), settings)
    out = out_dir or run / "truth" / "replica"
    (out / "final").mkdir(parents=True, exist_ok=True)
    for _, rt in sorted(tables.items()):
        names = [c.name for c in rt.table.columns]
        rows = sorted(([r[c] for c in names] for r in rt), key=sort_key)
        path = out / "final" / truth_file(rt.table.database, rt.table.name, ".jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(jsonl_safe(json.dumps(dict(zip(names, r, strict=True)), ensure_ascii=False,
                                              separators=(",", ":"))) + "\n")
    (out / "outcome.json").write_text(json.dumps(outcome, ensure_ascii=False, indent=1) + "\n", "utf-8")
    (out / "schema.sql").write_text(settings.schema_sql, "utf-8")
    manifest = json.loads((run / "manifest.json").read_text("utf-8"))
    write_provision_sql(run / "truth" / "snapshot.sql", settings.schema_sql,
                        manifest.get("spec", {}).get("database", "test"), out / "provision.sql")
    (out / "settings.json").write_text(json.dumps({"conversions": list(settings.conversions),
                                                   "flavor": settings.flavor}) + "\n", "utf-8")
    return outcome


