"""COM_QUERY answers: what replication clients ask before dumping (docs/serve.md "Queries").

Answered: ``SET`` (user variables such as ``@master_binlog_checksum``,
``@master_heartbeat_period``, ``@mariadb_slave_capability``, ``@slave_connect_state`` are kept
per connection; system variables and ``SET NAMES`` are accepted and ignored), ``SELECT`` of
system variables, user variables, literals and a few functions (VERSION(), UNIX_TIMESTAMP(),
NOW(), DATABASE(), USER(), CONNECTION_ID(), GTID_SUBTRACT(), GTID_SUBSET(): gtid_functions.py), ``SHOW [GLOBAL|SESSION] VARIABLES [LIKE|WHERE]``,
``SHOW MASTER STATUS`` / ``SHOW BINARY LOG STATUS`` / ``SHOW BINLOG STATUS``, ``SHOW BINARY
LOGS`` / ``SHOW MASTER LOGS``, ``SHOW BINLOG EVENTS [IN 'file'] [FROM pos] [LIMIT [o,] n]``,
``SHOW SLAVE HOSTS`` / ``SHOW REPLICAS``, ``SHOW WARNINGS``, ``SHOW GRANTS``, transaction
statements (BEGIN/COMMIT/ROLLBACK), ``USE db``, ``LOCK``/``UNLOCK TABLES`` (accepted: nothing to
lock), ``SELECT … FROM information_schema.<table>`` (no rows, but for COLUMNS of a run whose truth
holds its tables: queries_catalog.py). Anything else gets ERR 1064 naming the statement.
The variable values follow the files: version and server id from the FDE, checksum from its
checksum algorithm, GTID variables from the GTID state of the files (binlogs.py).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from binlogwriter.format import version_tuple
from binlogwriter.serve.binlogs import BinlogSet
from binlogwriter.serve.gtid_functions import GTID_FUNCTIONS, gtid_function
from binlogwriter.serve.protocol import err_packet, ok_packet, result_set
from binlogwriter.serve.queries_catalog import information_schema_select, information_schema_table
from binlogwriter.serve.queries_show import ShowMixin
from binlogwriter.serve.query_errors import ER_PARSE_ERROR, QueryError, split_top, unquote
from binlogwriter.serve.session import Session
from binlogwriter.serve.sqltext import UnterminatedText, strip_comments, version_number
from binlogwriter.serve.variables import VariablesMixin

__all__ = ["Identity", "QueryError", "answer"]

ER_SP_DOES_NOT_EXIST = 1305
ER_WRONG_PARAMCOUNT = 1582


@dataclass
class Identity:
    """What the server says about itself beyond the files (CLI options)."""

    server_uuid: str
    row_image: str = "FULL"
    row_metadata: str = "FULL"
    port: int = 3306
    hostname: str = "127.0.0.1"
    connect_timeout: float = 10.0
    max_connections: int = 151


class Answerer(VariablesMixin, ShowMixin):
    """Answers one connection's queries (variables are computed from the files on demand)."""

    def __init__(self, binlogs: BinlogSet, ident: Identity, session: Session) -> None:
        self.binlogs = binlogs
        self.ident = ident
        self.session = session

    # ------------------------------------------------------------------------- expressions
    def eval(self, expr: str) -> object:
        e = expr.strip()
        m = re.fullmatch(r"@@([\w.]+)", e)
        if m:
            return self.sysvar(m.group(1))
        m = re.fullmatch(r"@`?(\w+)`?", e)
        if m:
            return self.session.var(m.group(1))
        if re.fullmatch(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"", e, re.S):
            return unquote(e)
        if re.fullmatch(r"[-+]?\d+", e):
            return int(e)
        if re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?", e):
            return float(e)
        if e.upper() == "NULL":
            return None
        m = re.fullmatch(r"(\w+)\s*\(\s*\)", e)
        if m:
            fn = m.group(1).upper()
            funcs: dict[str, Callable[[], object]] = {
                "VERSION": lambda: self.binlogs.server_version,
                "UNIX_TIMESTAMP": lambda: int(time.time()),
                "NOW": lambda: time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
                "DATABASE": lambda: None,
                "SCHEMA": lambda: None,
                "USER": lambda: f"{self.session.user}@{self.session.peer}",
                "CURRENT_USER": lambda: f"{self.session.user}@%",
                "CONNECTION_ID": lambda: self.session.connection_id,
                "LAST_INSERT_ID": lambda: 0,
            }
            if fn in funcs:
                return funcs[fn]()
        m = re.fullmatch(r"(\w+)\s*\((.*)\)", e, re.S)
        if m and m.group(1).upper() == "BINLOG_GTID_POS":
            return self._binlog_gtid_pos([self.eval(a) for a in split_top(m.group(2))])
        if m and m.group(1).upper() in GTID_FUNCTIONS:
            args = [self.eval(a) for a in split_top(m.group(2))]
            return gtid_function(m.group(1).upper(), args, mariadb=self.binlogs.is_mariadb)
        raise QueryError(ER_PARSE_ERROR, f"binlogwriter serve cannot evaluate '{e[:200]}'", "42000")

    def _binlog_gtid_pos(self, args: list[object]) -> str | None:
        """MariaDB's ``BINLOG_GTID_POS(file, offset)``, which a MariaDB replica asks for (the
        GTID position at that place of the served files: binlogs.py ``mariadb_pos_at``); NULL
        for a NULL argument, an unknown file or an offset where no event starts. MySQL has no
        such function."""
        if not self.binlogs.is_mariadb:
            raise QueryError(ER_SP_DOES_NOT_EXIST, "FUNCTION binlog_gtid_pos does not exist", "42000")
        if len(args) != 2:
            raise QueryError(
                ER_WRONG_PARAMCOUNT,
                "Incorrect parameter count in the call to native function 'binlog_gtid_pos'",
            )
        name, pos = args
        if name is None or pos is None:
            return None
        try:
            offset = int(pos)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            return None
        state = self.binlogs.mariadb_pos_at(str(name), offset)
        return None if state is None else state.text()

    def _columns(self) -> tuple[list, bool]:
        """The served run's information_schema.COLUMNS rows (columns_catalog.py)."""
        from binlogwriter.serve.columns_catalog import column_rows, served_tables

        flavor = self.binlogs.flavor
        return column_rows(served_tables(self.binlogs, flavor), flavor), self.binlogs.is_mariadb

    # ------------------------------------------------------------------------- statements
    def answer(self, sql: str) -> list[bytes]:
        bs = self.binlogs
        try:
            q = strip_comments(sql, version_number(version_tuple(bs.server_version)), mariadb=bs.is_mariadb)
        except UnterminatedText as exc:
            raise QueryError(
                ER_PARSE_ERROR, f"You have an error in your SQL syntax: {exc}", "42000"
            ) from None
        u = q.upper()
        words = u.split()
        if not words:
            raise QueryError(1065, "Query was empty", "42000")
        head = words[0]
        if head == "SET":
            return [self._set(q[3:].strip())]
        if head == "SELECT":
            return self._select(q[6:].strip())
        if head == "SHOW":
            return self._show(q[4:].strip(), " ".join(words[1:]))
        if head in ("BEGIN", "COMMIT", "ROLLBACK", "USE", "START", "DO", "FLUSH", "KILL", "LOCK", "UNLOCK"):
            return [ok_packet()]
        raise QueryError(
            ER_PARSE_ERROR, f"binlogwriter serve does not answer this statement: {q[:200]}", "42000"
        )

    def _set(self, rest: str) -> bytes:
        u = rest.upper()
        if u.startswith(("NAMES", "CHARACTER SET", "CHARSET", "TRANSACTION", "SESSION TRANSACTION")):
            return ok_packet()
        for assignment in split_top(rest):
            m = re.fullmatch(r"@`?(\w+)`?\s*:?=\s*(.*)", assignment, re.S)
            if m:
                self.session.user_vars[m.group(1).lower()] = self.eval(m.group(2))
                continue
            m = re.fullmatch(
                r"(?:@@)?(?:(?:GLOBAL|SESSION|LOCAL)\s+|(?:GLOBAL|SESSION|LOCAL)\.)?(\w+)\s*:?=\s*(.*)",
                assignment,
                re.S | re.I,
            )
            if m:
                continue  # system variables: accepted, not kept
            raise QueryError(ER_PARSE_ERROR, f"cannot parse SET {assignment!r}", "42000")
        return ok_packet()

    def _select(self, rest: str) -> list[bytes]:
        schema_table = information_schema_table(rest)
        if schema_table is not None:
            return information_schema_select(rest, schema_table, self._columns)
        m = re.search(r"\s+FROM\s+(\w+)", rest, re.I)
        if m and m.group(1).upper() != "DUAL":
            raise QueryError(1146, f"binlogwriter serve has no table {m.group(1)!r}", "42S02")
        rest = re.sub(r"\s+FROM\s+DUAL\b.*$|\s+LIMIT\s+\d+\s*$", "", rest, flags=re.I | re.S)
        cols, vals = [], []
        for item in split_top(rest):
            m = re.fullmatch(r"(.*?)\s+(?:AS\s+)?(`[^`]+`|'[^']+'|\"[^\"]+\"|\w+)", item, re.S | re.I)
            expr, alias = (m.group(1), m.group(2).strip("`'\"")) if m and not _is_atom(item) else (item, item)
            vals.append(self.eval(expr))
            cols.append(alias)
        return result_set(cols, [vals], numeric=[isinstance(v, int) for v in vals])


def _is_atom(item: str) -> bool:
    """An expression with no alias (a quoted string with spaces, a function call …)."""
    s = item.strip()
    return bool(re.fullmatch(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\w+\s*\(\s*\)", s))


def answer(binlogs: BinlogSet, ident: Identity, session: Session, sql: str) -> list[bytes]:
    """The response payloads to a COM_QUERY (an ERR packet for anything unanswerable)."""
    try:
        return Answerer(binlogs, ident, session).answer(sql)
    except QueryError as exc:
        return [err_packet(exc.code, str(exc), exc.state)]
