"""Transactions as the servers lay them out (format.md §1, §8, §9, §11, §13; mariadb.md).

MySQL 8: ``GTID|ANONYMOUS_GTID · QUERY BEGIN · [ROWS_QUERY] · TABLE_MAP… · ROWS… · XID``
per transaction (a ROWS_QUERY before each statement's table maps when
``binlog_rows_query_log_events``); DDL is ``GTID · QUERY(ddl)``.
MariaDB 10.11: ``GTID(flags2 0x0c) · [ANNOTATE_ROWS] · TABLE_MAP… · ROWS v1… · XID``; DDL is
``GTID(0x29) · QUERY(ddl, Q_XID)``.

Rows go into events of one table each, split when the event would exceed
``binlog_row_event_max_size`` (format.md §13 exact rule); only the last event of a
statement carries STMT_END_F. Every value is encoded before anything is written: a value
that does not fit raises ``ValueEncodeError`` naming table.column and row, and the file is
left as it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from binlogwriter.errors import ValueEncodeError
from binlogwriter.events import (
    AnnotateRowsEvent,
    Event,
    QueryEvent,
    RowsQueryEvent,
    XidEvent,
)
from binlogwriter.events.rows import rows_event_class
from binlogwriter.layouts.header import FLAG_IGNORABLE, FLAG_SUPPRESS_USE, FLAG_THREAD_SPECIFIC
from binlogwriter.layouts.primitives import packed_int_size
from binlogwriter.layouts.rows import STMT_END_F
from binlogwriter.values._common import describe
from binlogwriter.write.statement_rows import Statement, normalise_rows, present_bitmap, statement_rows, where

if TYPE_CHECKING:
    from binlogwriter.write.writer import BinlogWriter

__all__ = ["Transaction", "SessionSettings", "query_status_vars"]

@dataclass(frozen=True)
class SessionSettings:
    """The server/session settings that shape what a transaction looks like.

    ``row_metadata``/``rows_query`` None = the flavor's default (MySQL: MINIMAL / off;
    MariaDB: NO_LOG / annotate on). ``gtid``: "anonymous" or a server UUID (MySQL); MariaDB
    always writes its own GTIDs (``domain_id``).
    """

    row_metadata: str | None = None
    row_image: str = "FULL"
    rows_query: bool | None = None
    gtid: str = "anonymous"
    domain_id: int = 0
    row_event_max_size: int = 8192
    thread_id: int = 1
    sql_mode: int = 0x45A00020  # ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,… (8.0 default bits)
    charset: tuple[int, int, int] = (45, 45, 45)
    first_table_id: int = 100
    transaction_compression: bool = False
    """MySQL ``binlog_transaction_compression``: DML after the GTID goes into one zstd
    TRANSACTION_PAYLOAD event (format.md §15). DDL is never compressed; MariaDB ignores it."""
    group_commit_ids: bool = False
    """MariaDB: a row transaction that group-committed with others carries
    ``FL_GROUP_COMMIT_ID`` and a ``commit_id`` (mariadb.md GTID_EVENT): ``seq_no`` minus the
    writer's ``group_pos`` (its position in the group); a group of one (``group_pos`` -1)
    and DDL never. MySQL ignores it."""


def query_status_vars(fmt, settings: SessionSettings, *, ddl_xid: int | None = None,
                      begin: bool = False) -> list[tuple[int, Any]]:
    """Status variables in the servers' write order 0,1,6,3,4,…,17,18 (format.md §9.1;
    mariadb.md: codes 128–130 after MySQL's)."""
    client, conn, server = settings.charset
    sv: list[tuple[int, Any]] = [
        (0, 0),
        (1, settings.sql_mode),
        (6, "std"),
        (4, {"client": client, "connection": conn, "server": server}),
    ]
    if fmt.is_mariadb:
        if ddl_xid is not None:
            sv.append((129, ddl_xid))
        return sv
    if ddl_xid is not None:
        sv.append((17, ddl_xid))
    sv.append((18, 255))  # Q_DEFAULT_COLLATION_FOR_UTF8MB4 = utf8mb4_0900_ai_ci
    return sv


class Transaction:
    """Collects statements; :meth:`events` turns them into the event group of one commit."""

    def __init__(self, writer: BinlogWriter) -> None:
        self.writer = writer
        self.statements: list[Statement] = []

    def insert(self, table, rows: Iterable[Any] | Mapping[str, Sequence[Any]], *, sql: str | None = None) -> None:
        """INSERT rows: mappings (column -> value), full-width tuples, or a columnar batch."""
        self.statements.append(Statement("insert", table, normalise_rows(rows, where(table)), sql))

    def update(self, table, pairs: Iterable[tuple[Any, Any]], *, sql: str | None = None) -> None:
        """UPDATE rows: (before, after) pairs; ``before`` the current row — under MINIMAL or
        NOBLOB a mapping of just the columns its before image logs (the primary key equivalent;
        every column when the table has none) is enough — and ``after`` the assigned columns
        (mapping) or the full new row. A column the images log but not given is a
        ValueEncodeError naming table.column and row."""
        if isinstance(pairs, str | bytes | bytearray | Mapping) or not isinstance(pairs, Iterable):
            raise ValueEncodeError(f"UPDATE rows are an iterable of (before, after) pairs, got {describe(pairs)}",
                                   table=where(table))
        self.statements.append(Statement("update", table, list(pairs), sql))

    def partial_update(self, table, pairs: Iterable[tuple[Any, Any]], *, sql: str | None = None) -> None:
        """An UPDATE logged as MySQL does with ``binlog_row_value_options=PARTIAL_JSON``
        (PARTIAL_UPDATE_ROWS_EVENT): like :meth:`update`, and a JSON column of ``after`` may
        be a :class:`~binlogwriter.values.json_diff.JsonPartial` (replace / insert / remove
        diffs) instead of a whole document (binlogwriter/write/partial_json.py)."""
        self.update(table, pairs, sql=sql)
        self.statements[-1].kind = "partial_update"

    def delete(self, table, rows: Iterable[Any], *, sql: str | None = None) -> None:
        """DELETE rows: the current rows; under MINIMAL or NOBLOB a mapping of the columns the
        before image logs (the primary key equivalent, or every column without one) is enough."""
        self.statements.append(Statement("delete", table, normalise_rows(rows, where(table)), sql))

    def query(self, sql: str, db: str = "") -> None:
        """A statement-format QUERY event inside the transaction."""
        self.statements.append(Statement("query", sql=sql, db=db))


def split_rows_events(writer: BinlogWriter, stmt: Statement, table_id: int,
                      groups: list[tuple[tuple, tuple | None, list[bytes]]]) -> list[Event]:
    """Rows events of one statement, split at binlog_row_event_max_size (format.md §13)."""
    fmt = writer.fmt
    if stmt.kind == "partial_update":
        from binlogwriter.events.rows import PartialUpdateRowsEvent as cls  # type 39
    else:
        cls = rows_event_class(stmt.kind, version=fmt.rows_version)
    width = len(stmt.table.columns)
    nbm = (width + 7) // 8
    post = 10 if fmt.rows_version == 2 else 8
    limit = writer.settings.row_event_max_size
    out: list[Event] = []
    for bbits, abits, rows in groups:
        if len(rows) > 1 and abits is None and not any(bbits):  # images.py: zero-column images
            raise ValueEncodeError(f"{len(rows)} rows whose {writer.settings.row_image} image holds no column: "
                                   "a rows event can carry one (its rows are zero bytes long: a reader "
                                   "cannot count them); give their key values",
                                   table=f"{stmt.table.database}.{stmt.table.name}", row=1)
        overhead = post + packed_int_size(width) + nbm * (2 if abits is not None else 1)
        present = present_bitmap(bbits, fmt)
        after = present_bitmap(abits, fmt) if abits is not None else None
        chunks: list[list[bytes]] = [[]]
        size = 0
        for r in rows:
            if chunks[-1] and overhead + size + len(r) > limit:
                chunks.append([])
                size = 0
            chunks[-1].append(r)
            size += len(r)
        for chunk in chunks:
            stmt.event_rows.append(len(chunk))
            out.append(cls(table_id=table_id, rows_flags=0, width=width, columns_present=present,
                           columns_after=after, rows=None, rows_raw=b"".join(chunk),
                           server_id=writer.server_id))
    if out:
        out[-1].rows_flags |= STMT_END_F
    return out


def transaction_events(writer: BinlogWriter, tx: Transaction) -> list[Event]:
    """The full event group of ``tx`` (GTID event first, its transaction_length filled in by
    the writer)."""
    fmt = writer.fmt
    st = writer.settings
    body: list[Event] = []
    may_have_sbr = False
    for stmt in tx.statements:
        if stmt.kind == "query":
            may_have_sbr = True
            body.append(QueryEvent(thread_id=st.thread_id, db=stmt.db or "", query=stmt.sql,
                                   status_vars=query_status_vars(fmt, st), server_id=writer.server_id))
            continue
        groups = statement_rows(writer, stmt)
        if not groups:
            continue
        table = stmt.table
        tid = writer.table_id(table)
        if writer.rows_query:
            sql = stmt.sql or default_statement_text(stmt)
            if fmt.is_mariadb:
                body.append(AnnotateRowsEvent(query=sql, server_id=writer.server_id))
            else:
                body.append(RowsQueryEvent(query=sql, flags=FLAG_IGNORABLE, server_id=writer.server_id))
        body.append(writer.table_map_event(table, tid))
        body.extend(split_rows_events(writer, stmt, tid, groups))
    if not body:
        return []
    xid = writer.next_xid()
    events: list[Event] = []
    if fmt.is_mariadb:
        events.append(writer.next_mariadb_gtid(flags2=0x0C, grouped=st.group_commit_ids))  # TRANSACTIONAL | ALLOW_PARALLEL
    else:
        events.append(writer.next_mysql_gtid(may_have_sbr))
        events.append(QueryEvent(thread_id=st.thread_id, db="", query="BEGIN", flags=FLAG_SUPPRESS_USE,
                                 status_vars=query_status_vars(fmt, st), server_id=writer.server_id))
    events.extend(body)
    events.append(XidEvent(xid=xid, server_id=writer.server_id))
    if st.transaction_compression and not fmt.is_mariadb:
        from binlogwriter.payload import compress_transaction

        events = [events[0], compress_transaction(events[1:], fmt, timestamp=writer.now,
                                                  server_id=writer.server_id)]
    return events


def ddl_events(writer: BinlogWriter, sql: str, db: str) -> list[Event]:
    """``GTID · QUERY(ddl)``: a DDL statement (MySQL Q_DDL_LOGGED_WITH_XID, MariaDB Q_XID)."""
    fmt = writer.fmt
    xid = writer.next_xid()
    flags = 0
    low = sql.lstrip().upper()
    if fmt.is_mariadb and low.startswith("DROP TABLE"):
        flags = FLAG_THREAD_SPECIFIC
    creates_db = low.startswith(("CREATE DATABASE", "CREATE SCHEMA", "DROP DATABASE", "DROP SCHEMA"))
    if creates_db:
        flags = FLAG_SUPPRESS_USE | (FLAG_THREAD_SPECIFIC if low.startswith("DROP") and fmt.is_mariadb else 0)
    with_xid = None if (creates_db and low.startswith("CREATE")) else xid
    q = QueryEvent(thread_id=writer.settings.thread_id, db=db, query=sql, flags=flags,
                   status_vars=query_status_vars(fmt, writer.settings, ddl_xid=with_xid),
                   server_id=writer.server_id)
    if fmt.is_mariadb:
        return [writer.next_mariadb_gtid(flags2=0x29), q]
    return [writer.next_mysql_gtid(True), q]


def default_statement_text(stmt: Statement) -> str:
    """A plausible SQL text for ROWS_QUERY / ANNOTATE_ROWS when the caller gave none."""
    t = stmt.table
    name = f"`{t.database}`.`{t.name}`"
    n = len(stmt.rows)
    if stmt.kind == "insert":
        return f"INSERT INTO {name} /* {n} row{'s' if n != 1 else ''} */"
    if stmt.kind in ("update", "partial_update"):
        return f"UPDATE {name} /* {n} row{'s' if n != 1 else ''} */"
    return f"DELETE FROM {name} /* {n} row{'s' if n != 1 else ''} */"
