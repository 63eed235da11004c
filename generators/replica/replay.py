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
import struct
from pathlib import Path
from typing import Any

from binlogwriter.schema import parse_tables
from binlogwriter.schema.tables import column_from_info
from binlogwriter.values.json_text import jsonl_safe
from generators.errors import SpecError
from generators.replica.classes import Pair, UnsupportedConversion, map_columns
from generators.replica.convert import convert, default_value
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
        out[p.name[:-len(".parquet")]] = [column_from_info(info) for info in meta.values()]
    return out


def _end_pos(run: Path, file: str, position: int) -> int:
    """The rows event's end (its header's ``log_pos``), as error messages print it."""
    with open(run / file, "rb") as f:
        f.seek(position + 13)
        return struct.unpack("<I", f.read(4))[0]


def _sort_key(row: list) -> tuple:
    return tuple((0, 0) if v is None else (1, v) if isinstance(v, int | float)
                 else (2, v) if isinstance(v, str) else (3, v["hex"]) for v in row)


class _Model:
    def __init__(self, run: Path, settings: ReplicaSettings, manifest: dict[str, Any]) -> None:
        self.run, self.settings = run, settings
        spec = manifest.get("spec", {})
        if spec.get("ddl_every"):
            raise UnsupportedConversion("replica truth: a run with --ddl-every is not modelled", setting="replica")
        if spec.get("ddl_in_binlog"):
            raise UnsupportedConversion("replica truth: a run with --ddl-in-binlog is not modelled (the replica would "
                                        "run the primary's CREATE TABLE); load truth/replica/provision.sql instead",
                                        setting="replica")
        if manifest.get("format", {}).get("flavor", "").startswith("mysql"):
            raise UnsupportedConversion("replica truth: only a MariaDB (--flavor mariadb1011) run is modelled",
                                        setting="replica")
        primary = _primary_columns(run)
        db = spec.get("database", "test")
        self.tables: dict[str, ReplicaTable] = {}
        try:
            parsed = parse_tables(settings.schema_sql, database=db, flavor=settings.flavor)
        except Exception as e:
            raise SpecError(f"--replica-schema: {e}", setting="replica") from None
        for t in parsed:
            self.tables[f"{t.database}.{t.name}"] = ReplicaTable(t)
        self.pairs: dict[str, list[Pair]] = {}
        for name, cols in primary.items():
            if name not in self.tables:
                raise UnsupportedConversion(f"replica truth: the replica schema has no table {name}",
                                            setting="replica")
            self.pairs[name] = map_columns(name, cols, list(self.tables[name].table.columns))
        self.provisioned = provision(run / "truth" / "snapshot.sql", db, self.tables, primary)

    def check(self, table: str) -> None:
        for pair in self.pairs[table]:
            if not pair.allowed(self.settings.conversions):
                raise _Stop(1677, pair.error_1677())

    def record(self, table: str, image: dict[str, Any] | None, full_cols: list[str]) -> tuple[dict, set]:
        """The replica record unpacked from ``image`` (primary column name -> value)."""
        rt = self.tables[table]
        rec = {c.name: default_value(table, c) for c in rt.table.columns}
        got = set()
        for pair in self.pairs[table]:
            name = full_cols[pair.index] if pair.index < len(full_cols) else None
            if image is not None and name in image:
                rec[pair.target.name] = convert(pair, image[name])
                got.add(pair.target.name)
        return rec, got

    def apply(self, ch: dict[str, Any], cols: list[str]) -> None:
        table, rt = ch["table"], self.tables[ch["table"]]
        try:
            if ch["op"] == "insert":
                rec, _ = self.record(table, ch["after"], cols)
                rt.insert(rec)
                return
            before, image = self.record(table, ch["before"], cols)
            rid = rt.find(before, image)
            if ch["op"] == "delete":
                rt.delete(rid)
                return
            after, assigned = self.record(table, ch["after"], cols)
            rt.update(rid, {c: after[c] for c in assigned})
        except Missing as e:
            raise _Stop(1032, self._msg(ch, f"Can't find record in '{table.split('.', 1)[1]}', Error_code: 1032; "
                                            f"handler error {e.handler}")) from None
        except Duplicate as e:
            raise _Stop(1062, self._msg(ch, f"Duplicate entry '{e.entry}' for key '{e.key}', Error_code: 1062; "
                                            "handler error HA_ERR_FOUND_DUPP_KEY")) from None

    def _msg(self, ch: dict[str, Any], what: str) -> str:
        end = _end_pos(self.run, ch["file"], ch["position"])
        return (f"Could not execute {_EVENT[ch['op']]} event on table {ch['table']}; {what}; "
                f"the event's master log {ch['file']}, end_log_pos {end}")


def _row_columns(ch: dict[str, Any]) -> list[str]:
    row = ch["after_row"] or ch["before_row"]
    return list(row)


def replica_outcome(run: Path, settings: ReplicaSettings) -> tuple[dict[str, Any], dict[str, ReplicaTable]]:
    """Replay ``run``'s changes onto ``settings``' schema: (outcome, the replica's tables)."""
    from binlogwriter.testing import truth_changes

    manifest = json.loads((run / "manifest.json").read_text("utf-8"))
    model = _Model(run, settings, manifest)
    done = 0
    txn: list[dict[str, Any]] = []
    key = None
    # the change model keeps database and table apart; the replay keys its tables by "db.table"
    changes = ({**c, "table": f"{c['database']}.{c['table']}"} for c in truth_changes(run))
    while True:
        ch = next(changes, None)
        k = None if ch is None else (ch["file"], ch["transaction_position"])
        if txn and k != key:
            snap = {n: (dict(t.rows), [dict(i) for i in t.index], t._next) for n, t in model.tables.items()}
            current = txn[0]
            try:
                for current in txn:
                    model.check(current["table"])
                    model.apply(current, _row_columns(current))
            except _Stop as stop:
                for n, (rows, idx, nxt) in snap.items():
                    t = model.tables[n]
                    t.rows, t.index, t._next = rows, idx, nxt
                first = txn[0]
                return ({"stopped": True, "errno": stop.errno, "message": stop.message, "gtid": first["gtid"],
                         "file": first["file"], "position": first["transaction_position"],
                         "event_position": current["position"], "transactions": done}, model.tables)
            done += 1
            txn = []
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
    outcome, tables = replica_outcome(run, settings)
    out = out_dir or run / "truth" / "replica"
    (out / "final").mkdir(parents=True, exist_ok=True)
    for name, rt in sorted(tables.items()):
        names = [c.name for c in rt.table.columns]
        rows = sorted(([r[c] for c in names] for r in rt), key=_sort_key)
        with open(out / "final" / f"{name}.jsonl", "w", encoding="utf-8") as f:
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


