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
from dataclasses import dataclass, field
from typing import Any

from binlogwriter import images
from binlogwriter.errors import BinlogError, ValueEncodeError
from binlogwriter.events import (
    AnnotateRowsEvent,
    Event,
    QueryEvent,
    RowsQueryEvent,
    XidEvent,
)
from binlogwriter.events.rows import rows_event_class
from binlogwriter.layouts.header import FLAG_IGNORABLE, FLAG_SUPPRESS_USE, FLAG_THREAD_SPECIFIC
from binlogwriter.layouts.primitives import BitmapValue, packed_int_size
from binlogwriter.layouts.rows import STMT_END_F
from binlogwriter.values._common import describe
from binlogwriter.values.base import ABSENT

__all__ = ["Transaction", "SessionSettings", "normalise_rows", "query_status_vars"]

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


def _as_full_row(table, row: Any, where: str, index: int) -> tuple[tuple, set[int]]:
    """A row given as a mapping (column -> value) or a full-width sequence -> (full-width
    tuple with ABSENT for columns not given, indexes of the given columns)."""
    n = len(table.columns)
    if isinstance(row, Mapping):
        vals = [ABSENT] * n
        given = set()
        for k, v in row.items():
            try:
                i = k if isinstance(k, int) else table.index_of(k)
            except BinlogError:
                raise ValueEncodeError(f"unknown column {k!r}", table=where, row=index) from None
            vals[i] = v
            given.add(i)
        return tuple(vals), given
    if isinstance(row, str | bytes | bytearray) or not isinstance(row, Iterable):
        raise ValueEncodeError(f"a row is a mapping (column -> value) or a sequence of {n} values, "
                               f"got {describe(row)}", table=where, row=index)
    vals = tuple(row)
    if len(vals) != n:
        raise ValueEncodeError(f"row has {len(vals)} values, table has {n} columns", table=where, row=index)
    return vals, set(range(n))


def _update_pair(row: Any, where: str, index: int) -> tuple[Any, Any]:
    """An UPDATE's (before, after) pair, or a ValueEncodeError naming the table and row."""
    if isinstance(row, tuple | list) and len(row) == 2:
        return row[0], row[1]
    raise ValueEncodeError(f"an UPDATE row is a (before, after) pair, got {describe(row)}",
                           table=where, row=index)


def normalise_rows(rows: Any, where: str | None = None) -> list[Any]:
    """Rows as a list; a columnar batch (mapping column -> sequence or numpy array) becomes
    one mapping per row. Anything else that is not an iterable of rows is a
    ValueEncodeError naming the table (``where``)."""
    if isinstance(rows, str | bytes | bytearray) or not isinstance(rows, Iterable | Mapping):
        raise ValueEncodeError(f"rows are an iterable of rows or a columnar batch (mapping column -> "
                               f"sequence), got {describe(rows)}", table=where)
    if isinstance(rows, Mapping):
        cols = list(rows)
        if not cols:
            return []
        seqs = [rows[c] for c in cols]
        for c, col_values in zip(cols, seqs, strict=True):
            if isinstance(col_values, str | bytes | bytearray) or not hasattr(col_values, "__len__"):
                raise ValueEncodeError(f"a columnar batch maps each column to a sequence of values, "
                                       f"got {describe(col_values)}", table=where, column=str(c))
        n = len(seqs[0])
        if any(len(s) != n for s in seqs):
            raise ValueEncodeError("columnar batch has columns of different lengths", table=where)
        out = []
        for i in range(n):
            out.append({c: _py(s[i]) for c, s in zip(cols, seqs, strict=True)})
        return out
    return list(rows)


def _py(v: Any) -> Any:
    item = getattr(v, "item", None)  # numpy scalar -> Python scalar
    if item is not None and type(v).__module__ == "numpy":
        return item()
    return v


def _where(table: Any) -> str | None:
    """``db.table`` of a Table for messages (None when it is not one)."""
    name = getattr(table, "name", None)
    return f"{getattr(table, 'database', '')}.{name}" if name is not None else None


@dataclass
class _Statement:
    kind: str  # insert | update | delete | query
    table: Any = None
    rows: list = field(default_factory=list)
    sql: str | None = None
    db: str | None = None
    event_rows: list[int] = field(default_factory=list)
    """Rows in each rows event the statement was split into, in order (filled when its
    transaction is built; generators/changes_truth.py places each row change with it)."""


class Transaction:
    """Collects statements; :meth:`events` turns them into the event group of one commit."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self.statements: list[_Statement] = []

    def insert(self, table, rows: Iterable[Any] | Mapping[str, Sequence[Any]], *, sql: str | None = None) -> None:
        """INSERT rows: mappings (column -> value), full-width tuples, or a columnar batch."""
        self.statements.append(_Statement("insert", table, normalise_rows(rows, _where(table)), sql))

    def update(self, table, pairs: Iterable[tuple[Any, Any]], *, sql: str | None = None) -> None:
        """UPDATE rows: (before, after) pairs; ``before`` the current row — under MINIMAL or
        NOBLOB a mapping of just the columns its before image logs (the primary key equivalent;
        every column when the table has none) is enough — and ``after`` the assigned columns
        (mapping) or the full new row. A column the images log but not given is a
        ValueEncodeError naming table.column and row."""
        if isinstance(pairs, str | bytes | bytearray | Mapping) or not isinstance(pairs, Iterable):
            raise ValueEncodeError(f"UPDATE rows are an iterable of (before, after) pairs, got {describe(pairs)}",
                                   table=_where(table))
        self.statements.append(_Statement("update", table, list(pairs), sql))

    def partial_update(self, table, pairs: Iterable[tuple[Any, Any]], *, sql: str | None = None) -> None:
        """An UPDATE logged as MySQL does with ``binlog_row_value_options=PARTIAL_JSON``
        (PARTIAL_UPDATE_ROWS_EVENT): like :meth:`update`, and a JSON column of ``after`` may
        be a :class:`~binlogwriter.values.json_diff.JsonPartial` (replace / insert / remove
        diffs) instead of a whole document (binlogwriter/partial_json.py)."""
        self.update(table, pairs, sql=sql)
        self.statements[-1].kind = "partial_update"

    def delete(self, table, rows: Iterable[Any], *, sql: str | None = None) -> None:
        """DELETE rows: the current rows; under MINIMAL or NOBLOB a mapping of the columns the
        before image logs (the primary key equivalent, or every column without one) is enough."""
        self.statements.append(_Statement("delete", table, normalise_rows(rows, _where(table)), sql))

    def query(self, sql: str, db: str = "") -> None:
        """A statement-format QUERY event inside the transaction."""
        self.statements.append(_Statement("query", sql=sql, db=db))


def _present_bitmap(bits: tuple[bool, ...], fmt) -> BitmapValue:
    # MySQL's full-image column bitmaps have padding 1; MariaDB's 0 (format.md §13, mariadb.md)
    pad = -1 if (not fmt.is_mariadb and all(bits)) else 0
    return BitmapValue(bits, pad)


def _check_present(table, where: str, vals: tuple, present: tuple[bool, ...], row: int, image: str,
                   kind: str, side: str | None = None) -> None:
    """Every column the image logs has a value: a column left out that the image needs is a
    ValueEncodeError naming db.table.column and the row (images.py decides which columns an
    image needs; an UPDATE's after image takes unassigned columns from its before row)."""
    for i, (p, v) in enumerate(zip(present, vals, strict=True)):
        if p and v is ABSENT:
            img = {"insert": "after", "delete": "before"}.get(kind, side)
            why = _needs(table, image, i)
            raise ValueEncodeError(f"no value given, but the {img} image of this {kind.upper()} under "
                                   f"binlog_row_image={image} logs this column ({why})",
                                   table=where, column=table.columns[i].name, row=row)


def _needs(table, image: str, index: int) -> str:
    """Why an image logs column ``index``, for error messages."""
    pke = images.pke_columns(table)
    if image.upper() == "FULL":
        return "FULL logs the full current row"
    if pke is None:
        return "the table has no primary key or UNIQUE NOT NULL key, so the full row is logged"
    if index in pke:
        return "it is part of the primary key equivalent"
    if table.columns[index].auto_increment:
        return "the AUTO_INCREMENT value is logged"
    return "NOBLOB logs every non-BLOB column" if image.upper() == "NOBLOB" else "it is assigned"


VECTOR_MIN_ROWS = 8  # statements with this many rows encode their images column by column


def statement_rows(writer: Any, stmt: _Statement) -> list[tuple[tuple, tuple | None, list[bytes]]]:
    """Encode every row of a statement: [(before_bits, after_bits, [row bytes…])] grouped by
    image bitmaps (one rows event never mixes bitmaps). Raises before anything is written.

    A statement of at least ``VECTOR_MIN_ROWS`` rows has its images encoded column by column
    (:func:`binlogwriter.values.row.encode_row_images`, same bytes); on any error it is
    encoded again row by row, which raises the error of the first bad row."""
    if stmt.kind == "partial_update":  # JSON diffs: PARTIAL_UPDATE_ROWS_EVENT
        from binlogwriter.partial_json import partial_update_groups

        return partial_update_groups(writer, stmt)
    if len(stmt.rows) < VECTOR_MIN_ROWS:
        return _statement_rows_one_by_one(writer, stmt)
    try:
        return _statement_rows_vectorised(writer, stmt)
    except ValueEncodeError:
        return _statement_rows_one_by_one(writer, stmt)


def _statement_rows_vectorised(writer: Any, stmt: _Statement) -> list[tuple[tuple, tuple | None, list[bytes]]]:
    from binlogwriter.values.row import encode_row_images

    table = stmt.table
    fmt = writer.fmt
    flavor = fmt.flavor
    image = writer.settings.row_image
    where = f"{table.database}.{table.name}"
    cols = writer.column_descs(table)
    pad = -1 if fmt.is_mariadb else 0
    # (before bits, after bits, before values, after values) per row, in runs of equal bits
    runs: list[tuple[tuple, tuple | None, list, list]] = []
    for i, row in enumerate(stmt.rows):
        if stmt.kind == "update":
            before, after = _update_pair(row, where, i)
            bvals, _ = _as_full_row(table, before, where, i)
            avals, agiven = _as_full_row(table, after, where, i)
            merged = tuple(a if j in agiven else b for j, (a, b) in enumerate(zip(avals, bvals, strict=True)))
            bbits, abits = images.update_columns(table, image, agiven, flavor)
            _check_present(table, where, bvals, bbits, i, image, "update", "before")
            _check_present(table, where, merged, abits, i, image, "update", "after")
            vals = bvals
        else:
            vals, given = _as_full_row(table, row, where, i)
            if stmt.kind == "insert":
                bbits = images.insert_columns(table, image, given, flavor)
            else:
                bbits = images.delete_columns(table, image, flavor)
            abits, merged = None, None
            _check_present(table, where, vals, bbits, i, image, stmt.kind)
        if runs and runs[-1][0] == bbits and runs[-1][1] == abits:
            runs[-1][2].append(vals)
            runs[-1][3].append(merged)
        else:
            runs.append((bbits, abits, [vals], [merged]))
    groups: list[tuple[tuple, tuple | None, list[bytes]]] = []
    for bbits, abits, bv, av in runs:
        buf, lens = encode_row_images(cols, bbits, bv, pad)
        ends = lens.cumsum().tolist()
        starts = [0, *ends[:-1]]
        if abits is None:
            data = [buf[s:e] for s, e in zip(starts, ends, strict=True)]
        else:
            abuf, alens = encode_row_images(cols, abits, av, pad)
            aends = alens.cumsum().tolist()
            astarts = [0, *aends[:-1]]
            data = [buf[s:e] + abuf[x:y] for s, e, x, y in zip(starts, ends, astarts, aends, strict=True)]
        if groups and groups[-1][0] == bbits and groups[-1][1] == abits:
            groups[-1][2].extend(data)
        else:
            groups.append((bbits, abits, data))
    return groups


def _statement_rows_one_by_one(writer: Any, stmt: _Statement) -> list[tuple[tuple, tuple | None, list[bytes]]]:
    """:func:`statement_rows` row by row (the reference; it raises the first error in row order)."""
    from binlogwriter.values.row import encode_row_image

    table = stmt.table
    fmt = writer.fmt
    flavor = fmt.flavor
    image = writer.settings.row_image
    where = f"{table.database}.{table.name}"
    cols = writer.column_descs(table)
    pad = -1 if fmt.is_mariadb else 0
    groups: list[tuple[tuple, tuple | None, list[bytes]]] = []

    def add(bbits, abits, data):
        if groups and groups[-1][0] == bbits and groups[-1][1] == abits:
            groups[-1][2].append(data)
        else:
            groups.append((bbits, abits, [data]))

    for i, row in enumerate(stmt.rows):
        try:
            if stmt.kind == "update":
                before, after = _update_pair(row, where, i)
                bvals, _ = _as_full_row(table, before, where, i)
                avals, agiven = _as_full_row(table, after, where, i)
                merged = tuple(a if j in agiven else b for j, (a, b) in enumerate(zip(avals, bvals, strict=True)))
                bbits, abits = images.update_columns(table, image, agiven, flavor)
                _check_present(table, where, bvals, bbits, i, image, "update", "before")
                _check_present(table, where, merged, abits, i, image, "update", "after")
                data = encode_row_image(cols, bbits, bvals, pad) + encode_row_image(cols, abits, merged, pad)
                add(bbits, abits, data)
            else:
                vals, given = _as_full_row(table, row, where, i)
                if stmt.kind == "insert":
                    bits = images.insert_columns(table, image, given, flavor)
                else:
                    bits = images.delete_columns(table, image, flavor)
                _check_present(table, where, vals, bits, i, image, stmt.kind)
                add(bits, None, encode_row_image(cols, bits, vals, pad))
        except ValueEncodeError as exc:
            # name the place as db.table.column, row N (docs/design.md principle 6)
            raise ValueEncodeError(exc.reason, table=where, column=exc.column, row=i) from None
    return groups


def split_rows_events(writer: Any, stmt: _Statement, table_id: int,
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
        present = _present_bitmap(bbits, fmt)
        after = _present_bitmap(abits, fmt) if abits is not None else None
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


def transaction_events(writer: Any, tx: Transaction) -> list[Event]:
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
        events.append(writer.next_mariadb_gtid(flags2=0x0C))  # TRANSACTIONAL | ALLOW_PARALLEL
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


def ddl_events(writer: Any, sql: str, db: str) -> list[Event]:
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


def default_statement_text(stmt: _Statement) -> str:
    """A plausible SQL text for ROWS_QUERY / ANNOTATE_ROWS when the caller gave none."""
    t = stmt.table
    name = f"`{t.database}`.`{t.name}`"
    n = len(stmt.rows)
    if stmt.kind == "insert":
        return f"INSERT INTO {name} /* {n} row{'s' if n != 1 else ''} */"
    if stmt.kind in ("update", "partial_update"):
        return f"UPDATE {name} /* {n} row{'s' if n != 1 else ''} */"
    return f"DELETE FROM {name} /* {n} row{'s' if n != 1 else ''} */"
