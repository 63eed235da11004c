"""Server-side prepared statements of one connection (docs/serve.md "Prepared statements";
packet layouts: binary_protocol.py).

ZongJi (``ctrlConnection.execute(...)``, mysql2) reads ``information_schema.COLUMNS`` through a
prepared statement; issue #31 §4 asks serve to answer what CDC clients send. A statement is
answered by the same text-query answering as COM_QUERY (queries.py):

- COM_STMT_PREPARE (0x16): the ``?`` placeholders outside quotes and comments are counted; a
  SELECT or SHOW is tried with every placeholder NULL to learn its result columns (an ERR it
  gets is the prepare's answer, as a server refuses an unknown table at prepare time); other
  statements are not run and return no columns. Answer: COM_STMT_PREPARE_OK and the
  definitions. At most ``max_prepared_stmt_count`` (16382, the servers' default) per connection:
  beyond, ER_MAX_PREPARED_STMT_COUNT_REACHED (1461).
- COM_STMT_EXECUTE (0x17): the parameters are decoded, written into the statement as SQL
  literals (binary_protocol.sql_literal), the text is answered as a COM_QUERY, and a result set
  comes back in the binary row format. A cursor is not opened (the flags are ignored: the whole
  result is sent, as for a statement that cannot have one).
- COM_STMT_SEND_LONG_DATA (0x18, no answer): the data is appended to the parameter's value
  for the next execution.
- COM_STMT_CLOSE (0x19, no answer) forgets the statement; COM_STMT_RESET (0x1a) drops its long
  data and answers OK.

An unknown statement id gets ER_UNKNOWN_STMT_HANDLER (1243) "Unknown prepared statement handler
(N) given to mysqld_stmt_execute" (… ``mysqld_stmt_reset``). MariaDB's statement id
0xFFFFFFFF means the statement prepared last (MariaDB knowledge base "COM_STMT_EXECUTE").
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from binlogwriter.serve.binary_protocol import (
    ExecuteError,
    binary_result_set,
    column_definitions,
    param_definition,
    parse_execute,
    prepare_ok,
    sql_literal,
)
from binlogwriter.serve.protocol import eof_packet, err_packet, ok_packet
from binlogwriter.serve.sqltext import UnterminatedText, quoted_end

__all__ = ["PreparedStatements", "placeholders"]

ER_UNKNOWN_STMT_HANDLER = 1243
ER_MAX_PREPARED_STMT_COUNT_REACHED = 1461
MAX_PREPARED_STMT_COUNT = 16382
LAST_PREPARED = 0xFFFFFFFF


def placeholders(sql: str) -> list[str]:
    """The pieces of ``sql`` (comments already stripped) around its ``?`` placeholders: one
    more piece than placeholders. A ``?`` in a quoted string or identifier is text."""
    pieces, start, i = [], 0, 0
    while i < len(sql):
        c = sql[i]
        if c in "'\"`":
            i = quoted_end(sql, i)
            continue
        if c == "?":
            pieces.append(sql[start:i])
            start = i + 1
        i += 1
    pieces.append(sql[start:])
    return pieces


@dataclass
class _Statement:
    pieces: list[str]
    columns: list[bytes]
    types: list[tuple[int, int]] | None = None
    long_data: dict[int, bytes] = field(default_factory=dict)

    @property
    def nparams(self) -> int:
        return len(self.pieces) - 1


class PreparedStatements:
    """One connection's statements. ``answer(sql)`` answers a text query (queries.answer);
    ``strip(sql)`` removes its comments (sqltext.strip_comments at the served version)."""

    def __init__(self, answer: Callable[[str], list[bytes]], strip: Callable[[str], str], *,
                 mariadb: bool) -> None:
        self._answer = answer
        self._strip = strip
        self.mariadb = mariadb
        self._statements: dict[int, _Statement] = {}
        self._next = 1
        self._last: int | None = None

    def prepare(self, payload: bytes) -> list[bytes]:
        sql = payload[1:].decode("utf-8", "replace")
        try:
            pieces = placeholders(self._strip(sql))
        except UnterminatedText as exc:
            self._last = None
            return [err_packet(1064, f"You have an error in your SQL syntax: {exc}", "42000")]
        if len(self._statements) >= MAX_PREPARED_STMT_COUNT:
            self._last = None
            return [err_packet(ER_MAX_PREPARED_STMT_COUNT_REACHED, "Can't create more than max_prepared_stmt_count "
                               f"statements (current value: {MAX_PREPARED_STMT_COUNT})", "42000")]
        columns: list[bytes] = []
        if pieces[0].lstrip()[:6].upper() == "SELECT" or pieces[0].lstrip()[:4].upper() == "SHOW":
            trial = self._answer("NULL".join(pieces))
            if trial and trial[0][:1] == b"\xff":
                self._last = None
                return trial[:1]
            columns = column_definitions(trial)
        sid = self._next
        self._next += 1
        stmt = self._statements[sid] = _Statement(pieces, columns)
        self._last = sid
        out = [prepare_ok(sid, len(columns), stmt.nparams)]
        if stmt.nparams:
            out += [param_definition()] * stmt.nparams + [eof_packet()]
        if columns:
            out += [*columns, eof_packet()]
        return out

    def _find(self, sid: int, command: str) -> _Statement:
        if sid == LAST_PREPARED and self.mariadb and self._last is not None:
            sid = self._last
        stmt = self._statements.get(sid)
        if stmt is None:
            raise ExecuteError(ER_UNKNOWN_STMT_HANDLER,
                               f"Unknown prepared statement handler ({sid}) given to {command}")
        return stmt

    def execute(self, payload: bytes) -> list[bytes]:
        try:
            if len(payload) < 5:
                raise ExecuteError(1210, "Incorrect arguments to mysqld_stmt_execute")
            stmt = self._find(struct.unpack_from("<I", payload, 1)[0], "mysqld_stmt_execute")
        except ExecuteError as exc:
            return [err_packet(exc.code, str(exc), exc.state)]
        try:
            values, stmt.types = parse_execute(payload, stmt.nparams, stmt.types, stmt.long_data)
        except ExecuteError as exc:
            return [err_packet(exc.code, str(exc), exc.state)]
        finally:
            stmt.long_data = {}  # long data serves one execution
        sql = stmt.pieces[0] + "".join(sql_literal(v) + p for v, p in zip(values, stmt.pieces[1:], strict=True))
        return binary_result_set(self._answer(sql))

    def send_long_data(self, payload: bytes) -> None:
        if len(payload) < 7:
            return  # no answer is ever sent: a server reports a bad one at execute
        sid, param = struct.unpack_from("<IH", payload, 1)
        stmt = self._statements.get(sid)
        if stmt is not None and param < stmt.nparams:
            stmt.long_data[param] = stmt.long_data.get(param, b"") + payload[7:]

    def close(self, payload: bytes) -> None:
        if len(payload) >= 5:
            self._statements.pop(struct.unpack_from("<I", payload, 1)[0], None)

    def reset(self, payload: bytes) -> list[bytes]:
        try:
            if len(payload) < 5:
                raise ExecuteError(1210, "Incorrect arguments to mysqld_stmt_reset")
            self._find(struct.unpack_from("<I", payload, 1)[0], "mysqld_stmt_reset").long_data = {}
        except ExecuteError as exc:
            return [err_packet(exc.code, str(exc), exc.state)]
        return [ok_packet()]
