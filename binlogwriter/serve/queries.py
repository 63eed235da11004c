"""COM_QUERY answers: what replication clients ask before dumping (docs/serve.md "Queries").

Answered: ``SET`` (user variables such as ``@master_binlog_checksum``,
``@master_heartbeat_period``, ``@mariadb_slave_capability``, ``@slave_connect_state`` are kept
per connection; system variables and ``SET NAMES`` are accepted and ignored), ``SELECT`` of
system variables, user variables, literals and a few functions (VERSION(), UNIX_TIMESTAMP(),
NOW(), DATABASE(), USER(), CONNECTION_ID()), ``SHOW [GLOBAL|SESSION] VARIABLES [LIKE|WHERE]``,
``SHOW MASTER STATUS`` / ``SHOW BINARY LOG STATUS`` / ``SHOW BINLOG STATUS``, ``SHOW BINARY
LOGS`` / ``SHOW MASTER LOGS``, ``SHOW BINLOG EVENTS [IN 'file'] [FROM pos] [LIMIT [o,] n]``,
``SHOW SLAVE HOSTS`` / ``SHOW REPLICAS``, ``SHOW WARNINGS``, ``SHOW GRANTS``, transaction
statements (BEGIN/COMMIT/ROLLBACK), ``USE db``. Anything else gets ERR 1064 naming the statement.
The variable values follow the files: version and server id from the FDE, checksum from its
checksum algorithm, GTID variables from the GTID state of the files (binlogs.py).
"""

from __future__ import annotations

import fnmatch
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from binlogwriter.errors import BinlogError
from binlogwriter.serve.binlogs import BinlogSet
from binlogwriter.serve.protocol import err_packet, ok_packet, result_set
from binlogwriter.serve.session import Session

__all__ = ["Identity", "QueryError", "answer"]

ER_PARSE_ERROR = 1064
ER_UNKNOWN_SYSTEM_VARIABLE = 1193
ER_ERROR_WHEN_EXECUTING_COMMAND = 1220


class QueryError(Exception):
    def __init__(self, code: int, message: str, state: str = "HY000") -> None:
        super().__init__(message)
        self.code = code
        self.state = state


@dataclass
class Identity:
    """What the server says about itself beyond the files (CLI options)."""

    server_uuid: str
    row_image: str = "FULL"
    row_metadata: str = "FULL"
    port: int = 3306
    hostname: str = "127.0.0.1"


def _split_top(text: str, sep: str = ",") -> list[str]:
    """Split on ``sep`` outside quotes and parentheses."""
    out, cur, depth, quote = [], [], 0, ""
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            cur.append(c)
            if c == "\\" and i + 1 < len(text):
                cur.append(text[i + 1])
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
            cur.append(c)
        elif c == "(":
            depth += 1
            cur.append(c)
        elif c == ")":
            depth -= 1
            cur.append(c)
        elif c == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    return [p.strip() for p in out]


def _unquote(s: str) -> str:
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        body = s[1:-1]
        return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "0": "\0"}.get(m.group(1), m.group(1)),
                      body).replace(s[0] * 2, s[0])
    return s


def _strip_comments(sql: str) -> str:
    sql = re.sub(r"/\*(?!!).*?\*/", " ", sql, flags=re.S)
    sql = re.sub(r"/\*!\d*\s*(.*?)\*/", r"\1", sql, flags=re.S)  # executable comments
    return sql.strip().rstrip(";").strip()


class Answerer:
    """Answers one connection's queries (variables are computed from the files on demand)."""

    def __init__(self, binlogs: BinlogSet, ident: Identity, session: Session) -> None:
        self.binlogs = binlogs
        self.ident = ident
        self.session = session

    # ------------------------------------------------------------------------- variables
    def variables(self) -> dict[str, object]:
        bs = self.binlogs
        maria = bs.is_mariadb
        mysql_set, maria_state, _uuid = bs.end_state()
        version = bs.server_version
        v: dict[str, object] = {
            "version": version,
            "version_comment": "binlogwriter serve",
            "version_compile_os": "Linux",
            "server_id": bs.server_id,
            "server_uuid": self.ident.server_uuid,
            "port": self.ident.port,
            "hostname": self.ident.hostname,
            "log_bin": "ON",
            "log_bin_basename": "binlog",
            "binlog_format": "ROW",
            "binlog_row_image": self.ident.row_image,
            "binlog_row_metadata": self.ident.row_metadata,
            "binlog_checksum": bs.checksum_name,
            "master_verify_checksum": "OFF",
            "binlog_transaction_compression": "OFF",
            "log_slave_updates": "ON",
            "log_replica_updates": "ON",
            "server_id_bits": 32,
            "character_set_server": "utf8mb4",
            "character_set_client": "utf8mb4",
            "character_set_connection": "utf8mb4",
            "character_set_results": "utf8mb4",
            "character_set_database": "utf8mb4",
            "collation_server": "utf8mb4_general_ci" if maria else "utf8mb4_0900_ai_ci",
            "collation_connection": "utf8mb4_general_ci",
            "lower_case_table_names": 0,
            "max_allowed_packet": 1 << 30,
            "net_write_timeout": 60,
            "net_read_timeout": 30,
            "wait_timeout": 28800,
            "interactive_timeout": 28800,
            "time_zone": "SYSTEM",
            "system_time_zone": "UTC",
            "sql_mode": "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION",
            "autocommit": 1,
            "read_only": "ON",
            "transaction_isolation": "REPEATABLE-READ",
            "tx_isolation": "REPEATABLE-READ",
            "performance_schema": "OFF",
            "rpl_semi_sync_master_enabled": "OFF",
            "license": "GPL",
        }
        if maria:
            binlog_pos = maria_state.text()
            v.update({
                "gtid_domain_id": 0,
                "gtid_binlog_pos": binlog_pos,
                "gtid_binlog_state": binlog_pos,
                "gtid_current_pos": binlog_pos,
                "gtid_slave_pos": "",
                "gtid_strict_mode": 0,
                "gtid_ignore_duplicates": 0,
                "binlog_annotate_row_events": "ON",
                "log_bin_compress": "OFF",
            })
        else:
            gtids = bool(mysql_set)
            v.update({
                "gtid_mode": "ON" if gtids else "OFF",
                "enforce_gtid_consistency": "ON" if gtids else "OFF",
                "gtid_executed": mysql_set.text(),
                "gtid_purged": bs.first.start_mysql.text(),
                "binlog_gtid_simple_recovery": "ON",
                "binlog_rows_query_log_events": "OFF",
                "transaction_write_set_extraction": "XXHASH64",
            })
        return v

    def sysvar(self, name: str) -> object:
        name = name.lower()
        for prefix in ("global.", "session.", "local."):
            if name.startswith(prefix):
                name = name[len(prefix):]
        v = self.variables()
        if name not in v:
            raise QueryError(ER_UNKNOWN_SYSTEM_VARIABLE, f"Unknown system variable '{name}'")
        return v[name]

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
            return _unquote(e)
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
        raise QueryError(ER_PARSE_ERROR, f"binlogwriter serve cannot evaluate '{e}'", "42000")

    # ------------------------------------------------------------------------- statements
    def answer(self, sql: str) -> list[bytes]:
        q = _strip_comments(sql)
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
        if head in ("BEGIN", "COMMIT", "ROLLBACK", "USE", "START", "DO", "FLUSH", "KILL"):
            return [ok_packet()]
        raise QueryError(ER_PARSE_ERROR, f"binlogwriter serve does not answer this statement: {q[:200]}",
                         "42000")

    def _set(self, rest: str) -> bytes:
        u = rest.upper()
        if u.startswith(("NAMES", "CHARACTER SET", "CHARSET", "TRANSACTION", "SESSION TRANSACTION")):
            return ok_packet()
        for assignment in _split_top(rest):
            m = re.fullmatch(r"@`?(\w+)`?\s*:?=\s*(.*)", assignment, re.S)
            if m:
                self.session.user_vars[m.group(1).lower()] = self.eval(m.group(2))
                continue
            m = re.fullmatch(r"(?:@@)?(?:(?:GLOBAL|SESSION|LOCAL)\s+|(?:GLOBAL|SESSION|LOCAL)\.)?(\w+)\s*:?=\s*(.*)",
                             assignment, re.S | re.I)
            if m:
                continue  # system variables: accepted, not kept
            raise QueryError(ER_PARSE_ERROR, f"cannot parse SET {assignment!r}", "42000")
        return ok_packet()

    def _select(self, rest: str) -> list[bytes]:
        m = re.search(r"\s+FROM\s+(\w+)", rest, re.I)
        if m and m.group(1).upper() != "DUAL":
            raise QueryError(1146, f"binlogwriter serve has no table {m.group(1)!r}", "42S02")
        rest = re.sub(r"\s+FROM\s+DUAL\b.*$|\s+LIMIT\s+\d+\s*$", "", rest, flags=re.I | re.S)
        cols, vals = [], []
        for item in _split_top(rest):
            m = re.fullmatch(r"(.*?)\s+(?:AS\s+)?(`[^`]+`|'[^']+'|\"[^\"]+\"|\w+)", item, re.S | re.I)
            expr, alias = (m.group(1), m.group(2).strip("`'\"")) if m and not _is_atom(item) else (item, item)
            vals.append(self.eval(expr))
            cols.append(alias)
        return result_set(cols, [vals], numeric=[isinstance(v, int) for v in vals])

    def _show(self, rest: str, u: str) -> list[bytes]:
        bs = self.binlogs
        u = re.sub(r"\s+", " ", u)
        m = re.fullmatch(r"(?:(GLOBAL|SESSION|LOCAL) )?(VARIABLES|STATUS)(.*)", u, re.S)
        if m:
            if m.group(2) == "STATUS":
                return result_set(["Variable_name", "Value"], [])
            items = sorted(self.variables().items())
            cond = rest[rest.upper().index(m.group(2)) + len(m.group(2)):].strip()
            items = _filter_like(items, cond)
            return result_set(["Variable_name", "Value"], items)
        if u in ("MASTER STATUS", "BINARY LOG STATUS", "BINLOG STATUS"):
            last = bs.last
            mysql_set, _m, _u = bs.end_state()
            if bs.is_mariadb:
                return result_set(["File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB"],
                                  [(last.name, last.size, "", "")], numeric=[False, True, False, False])
            return result_set(["File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB", "Executed_Gtid_Set"],
                              [(last.name, last.size, "", "", mysql_set.text())],
                              numeric=[False, True, False, False, False])
        if u in ("BINARY LOGS", "MASTER LOGS"):
            rows = [(f.name, f.size) for f in bs.files]
            if bs.is_mariadb:
                return result_set(["Log_name", "File_size"], rows, numeric=[False, True])
            return result_set(["Log_name", "File_size", "Encrypted"], [(n, s, "No") for n, s in rows],
                              numeric=[False, True, False])
        if u.startswith("BINLOG EVENTS"):
            return self._binlog_events(rest[len("BINLOG EVENTS"):].strip())
        if u in ("SLAVE HOSTS", "REPLICAS", "WARNINGS", "ERRORS", "DATABASES", "PROCESSLIST",
                 "FULL PROCESSLIST", "SLAVE STATUS", "REPLICA STATUS", "ALL SLAVES STATUS") \
                or u.startswith(("WARNINGS", "ERRORS")):
            return result_set(["Result"], [])
        if u.startswith("GRANTS"):
            return result_set([f"Grants for {self.session.user}@%"],
                              [(f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `{self.session.user}`@`%`",)])
        raise QueryError(ER_PARSE_ERROR, f"binlogwriter serve does not answer SHOW {rest[:200]}", "42000")

    def _binlog_events(self, rest: str) -> list[bytes]:
        from binlogwriter.serve.show_events import binlog_events

        m = re.fullmatch(r"(?:IN\s+('[^']*'|\"[^\"]*\"))?\s*(?:FROM\s+(\d+))?\s*"
                         r"(?:LIMIT\s+(?:(\d+)\s*,\s*)?(\d+))?", rest, re.I)
        if not m:
            raise QueryError(ER_PARSE_ERROR, f"cannot parse SHOW BINLOG EVENTS {rest!r}", "42000")
        name = _unquote(m.group(1)) if m.group(1) else self.binlogs.first.name
        i = self.binlogs.find(name)
        if i is None:
            raise QueryError(ER_ERROR_WHEN_EXECUTING_COMMAND,
                             "Error when executing command SHOW BINLOG EVENTS: Could not find target log")
        start = int(m.group(2) or 4)
        offset = int(m.group(3) or 0)
        limit = int(m.group(4)) if m.group(4) else None
        try:
            rows = binlog_events(self.binlogs.files[i], start, offset, limit)
        except BinlogError as exc:
            raise QueryError(ER_ERROR_WHEN_EXECUTING_COMMAND,
                             f"Error when executing command SHOW BINLOG EVENTS: {exc}") from None
        return result_set(["Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info"], rows,
                          numeric=[False, True, False, True, True, False])


def _is_atom(item: str) -> bool:
    """An expression with no alias (a quoted string with spaces, a function call …)."""
    s = item.strip()
    return bool(re.fullmatch(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\w+\s*\(\s*\)", s))


def _filter_like(items: list[tuple[str, object]], cond: str) -> list[tuple[str, object]]:
    if not cond:
        return items
    m = re.fullmatch(r"LIKE\s+('(?:[^']|'')*'|\"[^\"]*\")", cond, re.I | re.S)
    if m:
        pat = _unquote(m.group(1)).lower()
        rx = re.compile("^" + "".join(".*" if c == "%" else "." if c == "_" else re.escape(c)
                                      for c in pat) + "$", re.S)
        return [(k, v) for k, v in items if rx.match(k)]
    m = re.fullmatch(r"WHERE\s+Variable_name\s*(=|LIKE|IN)\s*(.*)", cond, re.I | re.S)
    if m:
        if m.group(1).upper() == "IN":
            names = {_unquote(x).lower() for x in _split_top(m.group(2).strip().strip("()"))}
            return [(k, v) for k, v in items if k in names]
        pat = _unquote(m.group(2)).lower()
        if m.group(1) == "=":
            return [(k, v) for k, v in items if k == pat]
        return [(k, v) for k, v in items if fnmatch.fnmatchcase(k, pat.replace("%", "*").replace("_", "?"))]
    raise QueryError(ER_PARSE_ERROR, f"cannot parse SHOW VARIABLES {cond!r}", "42000")


def answer(binlogs: BinlogSet, ident: Identity, session: Session, sql: str) -> list[bytes]:
    """The response payloads to a COM_QUERY (an ERR packet for anything unanswerable)."""
    try:
        return Answerer(binlogs, ident, session).answer(sql)
    except QueryError as exc:
        return [err_packet(exc.code, str(exc), exc.state)]
