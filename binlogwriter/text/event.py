"""mysqlbinlog-style rendering of events (the ``binlogwriter inspect`` listing).

Each event is a block: ``# at POS``, then the header line
``#YYMMDD HH:MM:SS server id N  end_log_pos P CRC32 0x…\t<summary>`` as mysqlbinlog prints it
(times in UTC), then the event's fields: the SQL of Query events, GTIDs, XIDs, …. Rows and
Table_map details (``-v``/``-vv``, ``--print-table-metadata``) are rendered by the renderers
registered in :data:`DETAIL_RENDERERS`.
"""

from __future__ import annotations

import functools
import time as _time
from collections.abc import Callable, Iterator
from typing import Any

from binlogwriter import events as ev
from binlogwriter.charsets import find_collation
from binlogwriter.errors import DecodeError
from binlogwriter.events.rows import RowsEvent
from binlogwriter.events.table_map import TableMapEvent
from binlogwriter.format import (
    DELETE_ROWS_EVENT_V1,
    UPDATE_ROWS_EVENT_V1,
    WRITE_ROWS_COMPRESSED_EVENT_V1,
    WRITE_ROWS_EVENT_V1,
    EventType,
    flavor_family,
)
from binlogwriter.gtids import mariadb_gtid_text
from binlogwriter.layouts.mariadb import FL_PREPARED_XA
from binlogwriter.layouts.query import (
    Q_AUTO_INCREMENT,
    Q_CHARSET_CODE,
    Q_DDL_LOGGED_WITH_XID,
    Q_GTID_FLAGS3,
    Q_LC_TIME_NAMES_CODE,
    Q_SQL_MODE_CODE,
    Q_XID,
)
from binlogwriter.layouts.rows import ROWS_TYPES
from binlogwriter.read.xa import xa_key
from binlogwriter.text.rows import render_rows

__all__ = ["render_event", "render_tail", "format_time", "DETAIL_RENDERERS", "RenderOptions", "render_table_map"]


class RenderOptions:
    """What to print: ``verbose`` 0/1/2 (pseudo-SQL of rows, with type comments),
    ``print_table_metadata`` (Table_map column lines)."""

    def __init__(self, verbose: int = 0, print_table_metadata: bool = False) -> None:
        self.verbose = verbose
        self.print_table_metadata = print_table_metadata


@functools.lru_cache(maxsize=4096)
def format_time(ts: int) -> str:
    """``YYMMDD HH:MM:SS`` with a space-padded hour, as mysqlbinlog prints (UTC)."""
    t = _time.gmtime(ts)
    return f"{t.tm_year % 100:02d}{t.tm_mon:02d}{t.tm_mday:02d} {t.tm_hour:2d}:{t.tm_min:02d}:{t.tm_sec:02d}"


ROWS_NAMES = {
    "mariadb": {EventType.WRITE_ROWS_EVENT_V1: "Write_rows", EventType.UPDATE_ROWS_EVENT_V1: "Update_rows",
                EventType.DELETE_ROWS_EVENT_V1: "Delete_rows", EventType.WRITE_ROWS_EVENT: "Write_rows",
                EventType.UPDATE_ROWS_EVENT: "Update_rows", EventType.DELETE_ROWS_EVENT: "Delete_rows",
                EventType.WRITE_ROWS_COMPRESSED_EVENT_V1: "Write_compressed_rows",
                EventType.UPDATE_ROWS_COMPRESSED_EVENT_V1: "Update_compressed_rows",
                EventType.DELETE_ROWS_COMPRESSED_EVENT_V1: "Delete_compressed_rows",
                EventType.WRITE_ROWS_COMPRESSED_EVENT: "Write_compressed_rows",
                EventType.UPDATE_ROWS_COMPRESSED_EVENT: "Update_compressed_rows",
                EventType.DELETE_ROWS_COMPRESSED_EVENT: "Delete_compressed_rows"},
    "mysql": {EventType.WRITE_ROWS_EVENT_V1: "Write_rows_v1", EventType.UPDATE_ROWS_EVENT_V1: "Update_rows_v1",
              EventType.DELETE_ROWS_EVENT_V1: "Delete_rows_v1", EventType.WRITE_ROWS_EVENT: "Write_rows",
              EventType.UPDATE_ROWS_EVENT: "Update_rows", EventType.DELETE_ROWS_EVENT: "Delete_rows",
              EventType.PARTIAL_UPDATE_ROWS_EVENT: "Update_rows_partial"},
}
"""Rows-event names in the header line: mariadb-binlog passes a fixed name per class
(``Rows_log_event::print_helper``), mysqlbinlog prints ``get_type_str()``."""


def gtid_kinds(flags2: int) -> str:
    """What mariadb-binlog prints after a MariaDB GTID (mariadb.md, flags2): `` ddl`` for
    FL_DDL (0x20), `` trans`` for FL_TRANSACTIONAL (0x04); neither for a MyISAM group (0x08)."""
    return (" ddl" if flags2 & 0x20 else "") + (" trans" if flags2 & 0x04 else "")


def _rows_summary(e: Any, state: Any) -> str:
    """``Write_rows: table id N flags: STMT_END_F`` (the flags part only on a statement end)."""
    tables = getattr(state, "tables", None) or {}
    tm = tables.get(e.table_id) or next(iter(tables.values()), None)
    family = flavor_family(tm.flavor) if tm is not None else (
        "mariadb" if e.type_code >= WRITE_ROWS_COMPRESSED_EVENT_V1 or e.type_code in (WRITE_ROWS_EVENT_V1, UPDATE_ROWS_EVENT_V1, DELETE_ROWS_EVENT_V1) else "mysql")
    name = ROWS_NAMES[family].get(e.type_code) or ROWS_NAMES["mariadb"].get(e.type_code) or e.type_name
    return f"{name}: table id {e.table_id}" + (" flags: STMT_END_F" if e.rows_flags & 1 else "")


TM_BIT_HAS_TRIGGERS_F = 1 << 14
"""MariaDB Table_map flag: the table has triggers (mariadb-binlog adds `` (has triggers)``)."""


def _table_map_summary(e: Any) -> str:
    """MariaDB prints the names with ``%`s`` (backquotes doubled) and `` (has triggers)`` when
    the post-header flags say so; MySQL the names between backquotes."""
    if flavor_family(e.flavor) == "mariadb":
        names = "`" + e.schema.replace("`", "``") + "`.`" + e.table.replace("`", "``") + "`"
        more = " (has triggers)" if e.tm_flags & TM_BIT_HAS_TRIGGERS_F else ""
        return f"Table_map: {names} mapped to number {e.table_id}{more}"
    names = f"`{e.schema}`.`{e.table}`"
    return f"Table_map: {names} mapped to number {e.table_id}"


def _fde_summary(e: ev.FormatDescriptionEvent, state: Any) -> str:
    """An FDE's ``Start:`` line; a MariaDB file after a rotation (no creation time) shows its
    header time, as mariadb-binlog prints it."""
    created = e.create_timestamp
    if not created and flavor_family(getattr(state, "flavor", None)) == "mariadb":
        created = e.timestamp or 0
    s = f"Start: binlog v {e.binlog_version}, server v {e.server_version} created {format_time(created)}"
    return s + (" at startup" if e.create_timestamp else "")


def _query_summary(e: ev.Event, state: Any) -> str:
    """A Query event's line: thread id, exec time, error code and its xid (status var
    Q_XID / Q_DDL_LOGGED_WITH_XID); mariadb-binlog prints the xid always, 0 when it has none."""
    s = f"Query\tthread_id={e.thread_id}\texec_time={e.exec_time}\terror_code={e.error_code}"
    xid = e.status(Q_XID, e.status(Q_DDL_LOGGED_WITH_XID))
    if xid is None and flavor_family(getattr(state, "flavor", None)) == "mariadb":
        xid = 0
    if xid is not None:
        s += f"\txid={xid}"
    return s


def _mysql_gtid_summary(e: ev.Event) -> str:
    """A MySQL GTID / ANONYMOUS_GTID event's line: logical clock, rbr_only, then the commit
    timestamps and transaction length when the event has them."""
    kind = "GTID" if e.type_code == EventType.GTID_LOG_EVENT else "Anonymous_GTID"
    s = f"{kind}\tlast_committed={e.last_committed}\tsequence_number={e.sequence_number}"
    s += f"\trbr_only={'no' if e.gtid_flags & 1 else 'yes'}"
    if e.immediate_commit_timestamp is not None:
        s += f"\toriginal_committed_timestamp={e.original_commit_timestamp or e.immediate_commit_timestamp}"
        s += f"\timmediate_commit_timestamp={e.immediate_commit_timestamp}"
    if e.transaction_length is not None:
        s += f"\ttransaction_length={e.transaction_length}"
    return s


def _payload_summary(e: ev.TransactionPayloadEvent) -> str:
    """A TRANSACTION_PAYLOAD's line from its header fields (1 size, 2 compression, 3
    uncompressed size; format.md §15)."""
    fields = dict(e.header_fields)
    comp = {0: "ZSTD", 255: "NONE"}.get(fields.get(2), fields.get(2))
    return (f"Transaction_Payload\tpayload_size={fields.get(1)}\tcompression_type={comp}"
            f"\tuncompressed_size={fields.get(3)}")


def _mariadb_gtid_summary(e: ev.MariadbGtidEvent, state: Any) -> str:
    """mariadb-binlog prints the commit id before `` ddl`` / `` trans``."""
    cid = "" if e.commit_id is None else f" cid={e.commit_id}"
    return f"GTID {e.gtid}{cid}{gtid_kinds(e.flags2)}"


def _xa_prepare_summary(e: ev.XaPrepareEvent, state: Any) -> str:
    if flavor_family(getattr(state, "flavor", None)) == "mariadb":  # as mariadb-binlog prints it
        return f"XID = {xa_key(e.format_id, e.gtrid, e.bqual)}"
    return "XA PREPARE"


def _fixed(text: str) -> Callable[[Any, Any], str]:
    return lambda e, state: text


_SUMMARIES: tuple[tuple[Any, Callable[[Any, Any], str]], ...] = (
    (TableMapEvent, lambda e, state: _table_map_summary(e)),
    (RowsEvent, _rows_summary),
    (ev.FormatDescriptionEvent, _fde_summary),
    (ev.ExecuteLoadQueryEvent, lambda e, state: (
        f"Execute_load_query\tthread_id={e.thread_id}\texec_time={e.exec_time}\t"
        f"error_code={e.error_code}\tfile_id={e.file_id}")),
    (ev.QueryBase, _query_summary),
    (ev.XidEvent, lambda e, state: f"Xid = {e.xid}"),
    (ev.RotateEvent, lambda e, state: f"Rotate to {e.next_file}  pos: {e.position}"),
    (ev.StopEvent, _fixed("Stop")),
    (ev.PreviousGtidsEvent, _fixed("Previous-GTIDs")),
    (ev.GtidBase, lambda e, state: _mysql_gtid_summary(e)),
    (ev.GtidTaggedEvent, lambda e, state: (
        f"GTID\tlast_committed={e.last_committed}\tsequence_number={e.sequence_number}"
        f"\ttransaction_length={e.transaction_length}")),
    (ev.MariadbGtidEvent, _mariadb_gtid_summary),
    (ev.MariadbGtidListEvent, lambda e, state: "Gtid list [" + ",\n# ".join(
        mariadb_gtid_text(g["domain_id"], g["server_id"], g["seq_no"]) for g in e.gtids) + "]"),
    (ev.BinlogCheckpointEvent, lambda e, state: f"Binlog checkpoint {e.log_file}"),
    (ev.AnnotateRowsEvent, _fixed("Annotate_rows:")),
    (ev.RowsQueryEvent, _fixed("Rows_query")),
    (ev.IntvarEvent, _fixed("Intvar")),
    (ev.RandEvent, _fixed("Rand")),
    (ev.UserVarEvent, _fixed("User_var")),
    (ev.IncidentEvent, lambda e, state: f"Incident: {'LOST_EVENTS' if e.incident == 1 else e.incident}"),
    (ev.XaPrepareEvent, _xa_prepare_summary),
    (ev.BeginLoadQueryEvent, lambda e, state: f"Begin_load_query\tfile_id={e.file_id}\tblock_len={len(e.block)}"),
    (ev.AppendBlockEvent, lambda e, state: f"Append_block\tfile_id={e.file_id}\tblock_len={len(e.block)}"),
    (ev.DeleteFileEvent, lambda e, state: f"Delete_file\tfile_id={e.file_id}"),
    (ev.TransactionPayloadEvent, lambda e, state: _payload_summary(e)),
    (ev.HeartbeatEvent | ev.HeartbeatV2Event, lambda e, state: f"Heartbeat {e.log_filename}"),
)
"""Event class -> the text after its header tab, as mysqlbinlog / mariadb-binlog print it;
subclasses before their bases (the first class an event is an instance of wins)."""

_SUMMARY_OF: dict[type, Callable[[Any, Any], str]] = {}
"""Event type -> its entry of :data:`_SUMMARIES`, found once per type."""


def _summary(e: ev.Event, state: Any = None) -> str:
    """The text after an event's header tab (its first line): its class's entry of
    :data:`_SUMMARIES`, else its type name."""
    fn = _SUMMARY_OF.get(type(e))
    if fn is None:
        fn = next((f for cls, f in _SUMMARIES if isinstance(e, cls)), lambda e, state: e.type_name)
        _SUMMARY_OF[type(e)] = fn
    return fn(e, state)


def _quote_sql_value(raw: bytes, charset: int | None) -> str:
    """A user variable's string value, decoded in its collation's charset (hex if it can't be)."""
    coll = find_collation(charset) if charset is not None else None
    try:
        text = coll.decode(raw) if coll is not None and not coll.is_binary else raw.decode("utf-8")
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    except (UnicodeDecodeError, LookupError):
        return "0x" + raw.hex()


def _body(e: ev.Event, opts: RenderOptions) -> Iterator[str]:  # noqa: C901
    if isinstance(e, ev.QueryBase):
        if e.db:
            yield f"use `{e.db}`/*!*/;"
        yield f"SET TIMESTAMP={e.timestamp}/*!*/;"
        sql_mode = e.status(Q_SQL_MODE_CODE)
        if sql_mode is not None:
            yield f"SET @@session.sql_mode={sql_mode}/*!*/;"
        ai = e.status(Q_AUTO_INCREMENT)
        if ai is not None:
            yield (f"SET @@session.auto_increment_increment={ai['increment']}, "
                   f"@@session.auto_increment_offset={ai['offset']}/*!*/;")
        chs = e.status(Q_CHARSET_CODE)
        if chs is not None:
            yield (f"SET @@session.character_set_client={chs['client']},@@session.collation_connection="
                   f"{chs['connection']},@@session.collation_server={chs['server']}/*!*/;")
        lc = e.status(Q_LC_TIME_NAMES_CODE)
        if lc is not None:
            yield f"SET @@session.lc_time_names={lc}/*!*/;"
        q = e.text if isinstance(e, ev.QueryCompressedEvent) else e.query
        f3 = e.status(Q_GTID_FLAGS3)
        if f3 is not None and f3["flags3"] & (2 | 4 | 8):
            # a two-phase ALTER half: mariadb-binlog (decode-rows) shows its text only with -v,
            # commented out like a row (Query_log_event::print)
            if opts.verbose:
                yield f"### {q}"
            return
        yield q
        yield "/*!*/;"
    elif isinstance(e, ev.XidEvent):
        yield "COMMIT/*!*/;"
    elif isinstance(e, ev.GtidBase | ev.GtidTaggedEvent):
        if e.type_code == EventType.ANONYMOUS_GTID_LOG_EVENT:
            yield "SET @@SESSION.GTID_NEXT= 'ANONYMOUS'/*!*/;"
        else:
            yield f"SET @@SESSION.GTID_NEXT= '{e.gtid}'/*!*/;"
    elif isinstance(e, ev.MariadbGtidEvent):
        yield f"/*M!100001 SET @@session.gtid_seq_no={e.seq_no}*//*!*/;"
        if e.flags2 & FL_PREPARED_XA and e.xid:  # the group of an XA transaction's XA PREPARE
            yield f"XA START {xa_key(e.xid['format_id'], e.xid['gtrid'], e.xid['bqual'])}/*!*/;"
        elif not e.flags2 & 1:
            yield "START TRANSACTION"
            yield "/*!*/;"
    elif isinstance(e, ev.PreviousGtidsEvent):
        yield f"# {e.text}"
    elif isinstance(e, ev.AnnotateRowsEvent | ev.RowsQueryEvent):
        for line in e.query.splitlines() or [""]:
            yield f"#Q> {line}" if isinstance(e, ev.AnnotateRowsEvent) else f"# {line}"
    elif isinstance(e, ev.IntvarEvent):
        name = {1: "LAST_INSERT_ID", 2: "INSERT_ID"}.get(e.type, str(e.type))
        yield f"SET {name}={e.value}/*!*/;"
    elif isinstance(e, ev.RandEvent):
        yield f"SET @@RAND_SEED1={e.seed1}, @@RAND_SEED2={e.seed2}/*!*/;"
    elif isinstance(e, ev.UserVarEvent):
        yield f"SET @`{e.name}`:={_user_var_value(e)}/*!*/;"
    elif isinstance(e, ev.IncidentEvent):
        yield f"# Incident: {e.message}"
    elif isinstance(e, ev.XaPrepareEvent):
        yield f"XA PREPARE {xa_key(e.format_id, e.gtrid, e.bqual)}"
        yield "/*!*/;"
    elif isinstance(e, ev.RawEvent):
        yield f"# {len(e.body)} body bytes (not decoded)"


def _user_var_value(e: Any) -> str:
    if e.is_null:
        return "NULL"
    v = e.value or b""
    if e.value_type == 2 and len(v) == 8:
        return str(int.from_bytes(v, "little", signed=not (e.value_flags or 0) & 1))
    if e.value_type == 1 and len(v) == 8:
        import struct

        return repr(struct.unpack("<d", v)[0])
    if e.value_type == 4:
        try:
            from binlogwriter.values import ColumnDesc, decode_value

            col = ColumnDesc(246, bytes(v[:2]))
            return str(decode_value(col, v, 2)[0])
        except Exception:  # noqa: BLE001 - best-effort display only
            return "0x" + v.hex()
    return _quote_sql_value(v, e.charset)


def render_table_map(e: Any, opts: RenderOptions, state: Any = None) -> Iterator[str]:
    """With ``--print-table-metadata``: the ``# Columns(…)`` / ``# Primary Key(…)`` lines
    (:func:`binlogwriter.text.metadata.render_table_metadata`)."""
    if opts.print_table_metadata:
        from binlogwriter.text.metadata import render_table_metadata

        yield from render_table_metadata(e.view(), e.flavor)


DETAIL_RENDERERS: dict[int, Callable[[ev.Event, RenderOptions, Any], Iterator[str]]] = {
    EventType.TABLE_MAP_EVENT: render_table_map,
    **{code: render_rows for code in ROWS_TYPES},
}
"""type code -> renderer(event, options, state) for Table_map / rows events."""


def render_event(e: ev.Event, opts: RenderOptions | None = None, state: Any = None,
                 crc: int | None = None) -> list[str]:
    """The lines of one event block (``crc``: the stored CRC32 footer, if any)."""
    o = e.origin
    crc_text = "" if crc is None else f" CRC32 0x{crc:08x}"
    head = f"#{format_time(e.timestamp or 0)} server id {e.server_id}  end_log_pos {e.log_pos}{crc_text} \t"
    tail = render_tail(e, opts, state)
    tail[0] = head + tail[0]
    if o is not None:
        tail.insert(0, f"# at {o.offset}")
    return tail


def render_tail(e: ev.Event, opts: RenderOptions | None = None, state: Any = None) -> list[str]:
    """The event's summary (what follows the tab of its header line) and its detail lines:
    :func:`render_event` without the ``# at`` line and the header fields before the tab."""
    opts = opts or _DEFAULT_OPTIONS
    lines = [_summary(e, state)]
    renderer = DETAIL_RENDERERS.get(e.type_code)
    try:
        if renderer is not None:
            lines.extend(renderer(e, opts, state))
        else:
            lines.extend(_body(e, opts))
    except DecodeError as exc:  # raised by a view of the event: say which event
        o = e.origin
        raise exc.located(file=o.file if o else None, offset=o.offset if o else None,
                          event_type=e.type_name) from None
    return lines


_DEFAULT_OPTIONS = RenderOptions()
