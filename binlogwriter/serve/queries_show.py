"""``SHOW …`` statements a replication client sends (part of binlogwriter/serve/queries.py):
``SHOW BINARY LOGS``, ``SHOW MASTER STATUS``, ``SHOW BINLOG EVENTS``, ``SHOW VARIABLES``, …"""

from __future__ import annotations

import re

from binlogwriter.errors import BinlogError
from binlogwriter.serve.protocol import result_set
from binlogwriter.serve.query_errors import (
    ER_ERROR_WHEN_EXECUTING_COMMAND,
    ER_PARSE_ERROR,
    QueryError,
    filter_like,
    unquote,
)


class ShowMixin:
    """:class:`~binlogwriter.serve.queries.Answerer`'s SHOW statements."""

    def _show(self, rest: str, u: str) -> list[bytes]:
        bs = self.binlogs
        u = re.sub(r"\s+", " ", u)
        m = re.fullmatch(r"(?:(GLOBAL|SESSION|LOCAL) )?(VARIABLES|STATUS)(.*)", u, re.S)
        if m:
            if m.group(2) == "STATUS":
                return result_set(["Variable_name", "Value"], [])
            items = sorted(self.variables().items())
            cond = rest[rest.upper().index(m.group(2)) + len(m.group(2)) :].strip()
            items = filter_like(items, cond)
            return result_set(["Variable_name", "Value"], items)
        if u in ("MASTER STATUS", "BINARY LOG STATUS", "BINLOG STATUS"):
            last = bs.last
            mysql_set, _m, _u = bs.end_state()
            if bs.is_mariadb:
                return result_set(
                    ["File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB"],
                    [(last.name, last.size, "", "")],
                    numeric=[False, True, False, False],
                )
            return result_set(
                ["File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB", "Executed_Gtid_Set"],
                [(last.name, last.size, "", "", mysql_set.text())],
                numeric=[False, True, False, False, False],
            )
        if u in ("BINARY LOGS", "MASTER LOGS"):
            rows = [(f.name, f.size) for f in bs.files]
            if bs.is_mariadb:
                return result_set(["Log_name", "File_size"], rows, numeric=[False, True])
            return result_set(
                ["Log_name", "File_size", "Encrypted"],
                [(n, s, "No") for n, s in rows],
                numeric=[False, True, False],
            )
        if u.startswith("BINLOG EVENTS"):
            return self._binlog_events(rest[len("BINLOG EVENTS") :].strip())
        if u in (
            "SLAVE HOSTS",
            "REPLICAS",
            "WARNINGS",
            "ERRORS",
            "DATABASES",
            "PROCESSLIST",
            "FULL PROCESSLIST",
            "SLAVE STATUS",
            "REPLICA STATUS",
            "ALL SLAVES STATUS",
        ) or u.startswith(("WARNINGS", "ERRORS")):
            return result_set(["Result"], [])
        if u.startswith("GRANTS"):
            return result_set(
                [f"Grants for {self.session.user}@%"],
                [(f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `{self.session.user}`@`%`",)],
            )
        raise QueryError(ER_PARSE_ERROR, f"binlogwriter serve does not answer SHOW {rest[:200]}", "42000")

    def _binlog_events(self, rest: str) -> list[bytes]:
        from binlogwriter.serve.show_events import binlog_events

        m = re.fullmatch(
            r"(?:IN\s+('[^']*'|\"[^\"]*\"))?\s*(?:FROM\s+(\d+))?\s*"
            r"(?:LIMIT\s+(?:(\d+)\s*,\s*)?(\d+))?",
            rest,
            re.I,
        )
        if not m:
            raise QueryError(ER_PARSE_ERROR, f"cannot parse SHOW BINLOG EVENTS {rest!r}", "42000")
        name = unquote(m.group(1)) if m.group(1) else self.binlogs.first.name
        i = self.binlogs.find(name)
        if i is None:
            raise QueryError(
                ER_ERROR_WHEN_EXECUTING_COMMAND,
                "Error when executing command SHOW BINLOG EVENTS: Could not find target log",
            )
        start = int(m.group(2) or 4)
        offset = int(m.group(3) or 0)
        limit = int(m.group(4)) if m.group(4) else None
        try:
            rows = binlog_events(self.binlogs.files[i], start, offset, limit)
        except BinlogError as exc:
            raise QueryError(
                ER_ERROR_WHEN_EXECUTING_COMMAND, f"Error when executing command SHOW BINLOG EVENTS: {exc}"
            ) from None
        return result_set(
            ["Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info"],
            rows,
            numeric=[False, True, False, True, True, False],
        )
