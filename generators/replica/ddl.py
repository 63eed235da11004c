"""DDL mid-stream (``--ddl-every``, ``--ddl-in-binlog``) on the replica (docs/replica.md
"DDL mid-stream").

The run's ALTER TABLEs are Query events in the binlog (generators/run_ddl.py ``do_ddl``:
``ALTER TABLE `t` ADD COLUMN `ddl_P` <type> NULL``, then ``... DROP COLUMN `ddl_P```). The
replica's SQL thread runs each one on *its own* table definition (``Query_log_event::do_apply_event``,
sql/log_event_server.cc), so the primary's and the replica's tables both change, each from
its own shape: the column the replica adds lands after the replica's last column (after its
extra columns, where the primary's lands after the primary's last), takes the table's own
default charset, and every later rows event is mapped by position onto the changed
definition. The ALTER can fail on the replica: adding a column it already has (error 1060),
dropping one it lacks (1091) — the SQL thread stops at that transaction.

Both definitions are changed with the generator's own DDL code: the ALTER's column appended
to the table's CREATE TABLE text (:func:`generators.schema_history.create_text`, what
``truth/schema_history.jsonl`` records for the primary) and parsed again with the project's
parser (``binlogwriter.schema.parse_tables``), or removed from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from binlogwriter.format import MARIADB_GTID_EVENT, QUERY_EVENT
from binlogwriter.schema import Table, parse_tables
from binlogwriter.schema.alter import fold_alters
from binlogwriter.schema.lexer import split_statements, tokenize
from generators.replica.classes import UnsupportedConversion
from generators.schema_history import create_text


@dataclass(frozen=True)
class Ddl:
    """One ALTER of the run: where it is in the binlog and what it says."""

    file: str
    position: int        # its GTID event (the replica's Exec_Master_Log_Pos when it stops there)
    event_position: int  # its Query event
    gtid: str
    database: str
    query: str


class AlterFailed(Exception):
    """The ALTER fails on this table: ``errno`` and the server's message."""

    def __init__(self, errno: int, message: str) -> None:
        super().__init__(errno, message)
        self.errno, self.message = errno, message


@dataclass
class Definition:
    """A table's definition as DDL changes it: its CREATE TABLE text, the columns ALTERs
    added since (name, type as in the ALTER), and the parsed :class:`Table`."""

    create_sql: str
    database: str
    flavor: str
    added: list[tuple[str, str]] = field(default_factory=list)
    table: Table | None = None

    def __post_init__(self) -> None:
        self.table = self._parse()

    def _parse(self) -> Table:
        return parse_tables(create_text(self.create_sql, self.added), database=self.database, flavor=self.flavor)[0]

    def alter(self, query: str) -> Table:
        """Apply ``ALTER TABLE t ADD COLUMN c <type>`` / ``DROP COLUMN c``; the new table."""
        assert self.table is not None
        op, name, typedef = parse_alter(query)
        names = [c.name.lower() for c in self.table.columns]
        if op == "ADD":
            if name.lower() in names:
                raise AlterFailed(1060, f"Duplicate column name '{name}'")
            self.added.append((name, typedef))
        else:
            if name.lower() not in names:
                raise AlterFailed(1091, f"Can't DROP COLUMN `{name}`; check that it exists")
            if not any(n.lower() == name.lower() for n, _ in self.added):
                raise UnsupportedConversion(f"unsupported conversion: {self.database}.{self.table.name}.{name}: "
                                            "the run drops a column of the table's own CREATE TABLE",
                                            setting="replica")
            self.added = [(n, t) for n, t in self.added if n.lower() != name.lower()]
        self.table = self._parse()
        return self.table


def parse_alter(query: str) -> tuple[str, str, str]:
    """``(ADD | DROP, column, type text)`` of one of the run's ALTERs."""
    toks = tokenize(query)
    words = [t.upper for t in toks]
    if words[:2] != ["ALTER", "TABLE"] or len(toks) < 6 or words[3] not in ("ADD", "DROP") or words[4] != "COLUMN":
        raise UnsupportedConversion(f"unsupported conversion: replica truth: DDL {query!r}", setting="replica")
    name = toks[5].text
    typedef = query[toks[6].pos:].strip() if len(toks) > 6 else ""
    return words[3], name, typedef


def parse_alter_table(query: str) -> str:
    """The table an ``ALTER TABLE`` names."""
    return tokenize(query)[2].text


def parse_create_table(query: str) -> tuple[str, bool]:
    """(the table a ``CREATE TABLE`` names, whether it says IF NOT EXISTS)."""
    toks = tokenize(query)
    words = [t.upper for t in toks[:5]]
    ine = words[2:5] == ["IF", "NOT", "EXISTS"]
    i = 5 if ine else 2
    name = toks[i].text
    if i + 2 < len(toks) and toks[i + 1].text == "." and toks[i + 1].kind == "punct":
        name = toks[i + 2].text
    return name, ine


def definitions(schema_sql: str, database: str, flavor: str) -> dict[str, Definition]:
    """Each table of ``schema_sql`` (by ``db.table``) with its own CREATE TABLE text, the
    script's ``ALTER TABLE … ADD / MODIFY`` folded into it as for ``--schema``
    (binlogwriter/schema/alter.py: a phpMyAdmin export adds its keys that way)."""
    out: dict[str, Definition] = {}
    db = database
    for stmt, toks in split_statements(fold_alters(schema_sql, database)):
        words = [t.upper for t in toks[:2]]
        if words[:1] == ["USE"]:
            db = toks[1].text
            continue
        if words != ["CREATE", "TABLE"]:
            continue
        d = Definition(stmt, db, flavor)
        assert d.table is not None
        out[f"{d.table.database}.{d.table.name}"] = d
    return out


def run_ddls(run: Path, files: list[str]) -> list[Ddl]:
    """The run's DDL transactions, in binlog order, read from its binlog files (their
    positions are not in truth/changes, which holds row changes only)."""
    from binlogwriter.reader import BinlogReader

    out = []
    for name in files:
        reader = BinlogReader(run / name)
        gtid: tuple[int, str] = (0, "")
        for rec in reader.records():
            if rec.type_code not in (MARIADB_GTID_EVENT, QUERY_EVENT):
                continue
            ev: Any = reader.decode(rec)
            if rec.type_code == MARIADB_GTID_EVENT:
                gtid = (rec.offset, ev.gtid)
            elif ev.query.upper().startswith(("ALTER TABLE", "CREATE TABLE")):
                out.append(Ddl(name, gtid[0], rec.offset, gtid[1], ev.db, ev.query))
    return out
