"""``SHOW BINLOG EVENTS`` rows, read with :class:`~binlogwriter.reader.BinlogReader`.

Columns as servers print them: Log_name, Pos, Event_type (the server's short names:
``Format_desc``, ``Query``, ``Gtid``, ``Table_map``, ``Write_rows`` — MariaDB ``Write_rows_v1`` —,
…), Server_id, End_log_pos, Info (a one-line summary: the statement of a Query, ``COMMIT /*
xid=N */`` of an Xid, the GTID, the table of a Table_map, ``table_id: N flags: STMT_END_F`` of a
rows event, the next file of a Rotate).
"""

from __future__ import annotations

from itertools import islice

from binlogwriter.format import (
    ANNOTATE_ROWS_EVENT,
    ANONYMOUS_GTID_LOG_EVENT,
    BINLOG_CHECKPOINT_EVENT,
    FORMAT_DESCRIPTION_EVENT,
    GTID_LOG_EVENT,
    GTID_TAGGED_LOG_EVENT,
    MARIADB_GTID_EVENT,
    MARIADB_GTID_LIST_EVENT,
    PREVIOUS_GTIDS_LOG_EVENT,
    QUERY_COMPRESSED_EVENT,
    QUERY_EVENT,
    ROTATE_EVENT,
    ROWS_QUERY_LOG_EVENT,
    TABLE_MAP_EVENT,
    XID_EVENT,
    EventType,
)
from binlogwriter.gtids import mariadb_gtid_text
from binlogwriter.layouts.header import HEADER_SIZE, LENGTH_AT, SERVER_ID_AT
from binlogwriter.layouts.rows import ROWS_TYPES
from binlogwriter.reader import BinlogReader
from binlogwriter.serve.binlogs import BinlogFile

__all__ = ["binlog_events"]

_NAMES = {
    EventType.QUERY_EVENT: "Query",
    EventType.STOP_EVENT: "Stop",
    EventType.ROTATE_EVENT: "Rotate",
    EventType.INTVAR_EVENT: "Intvar",
    EventType.RAND_EVENT: "RAND",
    EventType.USER_VAR_EVENT: "User var",
    EventType.FORMAT_DESCRIPTION_EVENT: "Format_desc",
    EventType.XID_EVENT: "Xid",
    EventType.BEGIN_LOAD_QUERY_EVENT: "Begin_load_query",
    EventType.EXECUTE_LOAD_QUERY_EVENT: "Execute_load_query",
    EventType.TABLE_MAP_EVENT: "Table_map",
    EventType.INCIDENT_EVENT: "Incident",
    EventType.HEARTBEAT_LOG_EVENT: "Heartbeat",
    EventType.IGNORABLE_LOG_EVENT: "Ignorable",
    EventType.ROWS_QUERY_LOG_EVENT: "Rows_query",
    EventType.WRITE_ROWS_EVENT: "Write_rows",
    EventType.UPDATE_ROWS_EVENT: "Update_rows",
    EventType.DELETE_ROWS_EVENT: "Delete_rows",
    EventType.GTID_LOG_EVENT: "Gtid",
    EventType.ANONYMOUS_GTID_LOG_EVENT: "Anonymous_Gtid",
    EventType.PREVIOUS_GTIDS_LOG_EVENT: "Previous_gtids",
    EventType.XA_PREPARE_LOG_EVENT: "XA_prepare",
    EventType.PARTIAL_UPDATE_ROWS_EVENT: "Update_rows_partial",
    EventType.TRANSACTION_PAYLOAD_EVENT: "Transaction_payload",
    EventType.HEARTBEAT_LOG_EVENT_V2: "Heartbeat_v2",
    EventType.GTID_TAGGED_LOG_EVENT: "Gtid_tagged_log",
    EventType.WRITE_ROWS_EVENT_V1: "Write_rows_v1",
    EventType.UPDATE_ROWS_EVENT_V1: "Update_rows_v1",
    EventType.DELETE_ROWS_EVENT_V1: "Delete_rows_v1",
    EventType.ANNOTATE_ROWS_EVENT: "Annotate_rows",
    EventType.BINLOG_CHECKPOINT_EVENT: "Binlog_checkpoint",
    EventType.MARIADB_GTID_EVENT: "Gtid",
    EventType.MARIADB_GTID_LIST_EVENT: "Gtid_list",
    EventType.START_ENCRYPTION_EVENT: "Start_encryption",
    EventType.QUERY_COMPRESSED_EVENT: "Query_compressed",
    EventType.WRITE_ROWS_COMPRESSED_EVENT_V1: "Write_rows_compressed_v1",
    EventType.UPDATE_ROWS_COMPRESSED_EVENT_V1: "Update_rows_compressed_v1",
    EventType.DELETE_ROWS_COMPRESSED_EVENT_V1: "Delete_rows_compressed_v1",
}


_ROWS = frozenset(ROWS_TYPES)


def _info(ev, mariadb: bool) -> str:
    t = ev.type_code
    if t == FORMAT_DESCRIPTION_EVENT:
        return f"Server ver: {ev.server_version}, Binlog ver: {ev.binlog_version}"
    if t in (QUERY_EVENT, QUERY_COMPRESSED_EVENT):
        q = ev.query if isinstance(ev.query, str) else ev.query.decode("utf-8", "replace")
        return f"use `{ev.db}`; {q}" if ev.db else q
    if t == ROTATE_EVENT:
        return f"{ev.next_file};pos={ev.position}"
    if t == XID_EVENT:
        return f"COMMIT /* xid={ev.xid} */"
    if t in (GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT, GTID_TAGGED_LOG_EVENT):
        sid = "ANONYMOUS" if t == ANONYMOUS_GTID_LOG_EVENT else ev.gtid
        return f"SET @@SESSION.GTID_NEXT= '{sid}'"
    if t == PREVIOUS_GTIDS_LOG_EVENT:
        return ev.text
    if t == TABLE_MAP_EVENT:
        return f"table_id: {ev.table_id} ({ev.schema}.{ev.table})"
    if t == MARIADB_GTID_EVENT:
        kind = "GTID" if ev.flags2 & 1 else "BEGIN GTID"
        return f"{kind} {ev.gtid}"
    if t == MARIADB_GTID_LIST_EVENT:
        return "[" + ",".join(mariadb_gtid_text(g["domain_id"], g["server_id"], g["seq_no"]) for g in ev.gtids) + "]"
    if t == BINLOG_CHECKPOINT_EVENT:
        return ev.log_file
    if t in (ANNOTATE_ROWS_EVENT, ROWS_QUERY_LOG_EVENT):
        return ev.query
    return ""


def binlog_events(f: BinlogFile, start: int, offset: int, limit: int | None) -> list[tuple]:
    reader = BinlogReader([f.path], start_position=start)
    mariadb = f.fmt.is_mariadb
    rows = []
    recs = islice(reader.records(), offset, None if limit is None else offset + limit)
    id_size = f.fmt.table_id_size
    for rec in recs:
        t = rec.type_code
        if t in _ROWS:  # rows need their Table_map to decode: the summary comes from the post-header
            table_id = int.from_bytes(rec.data[HEADER_SIZE : HEADER_SIZE + id_size], "little")
            flags = int.from_bytes(rec.data[HEADER_SIZE + id_size : HEADER_SIZE + 2 + id_size], "little")
            info = f"table_id: {table_id}" + (" flags: STMT_END_F" if flags & 1 else "")
        else:
            info = _info(reader.decode(rec), mariadb)
        name = _NAMES.get(t, f"Unknown({t})")
        rows.append(
            (
                f.name,
                rec.offset,
                name,
                int.from_bytes(rec.data[SERVER_ID_AT:LENGTH_AT], "little"),
                rec.offset + len(rec.data),
                info,
            )
        )
    return rows
