"""A dump request (part of binlogwriter/serve/dump.py): COM_BINLOG_DUMP / COM_BINLOG_DUMP_GTID
packets parsed into a :class:`DumpRequest` (file, position, flags, the replica's GTID state),
and the GTID filter that skips the event groups a replica has (docs/serve.md "Dump")."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from binlogwriter.events import decode_event
from binlogwriter.format import (
    QUERY_COMPRESSED_EVENT,
    QUERY_EVENT,
    TRANSACTION_PAYLOAD_EVENT,
    XA_PREPARE_LOG_EVENT,
    XID_EVENT,
)
from binlogwriter.gtids import MariadbState, MysqlGtidSet
from binlogwriter.layouts.header import HEADER_SIZE, TYPE_AT
from binlogwriter.serve.binlogs import NUMBERED_GTID_TYPES, gtid_of

__all__ = ["DumpRequest", "DumpError", "parse_dump", "parse_dump_gtid"]


NON_BLOCK = 0x01
SEND_ANNOTATE_ROWS = 0x02
THROUGH_GTID = 0x04
ARTIFICIAL_F = 0x0020
IN_USE_F = 0x0001
ER_MASTER_FATAL_ERROR_READING_BINLOG = 1236
FDE_CREATED_AT = HEADER_SIZE + 2 + 50
HEAD = struct.Struct("<I")
_MARIA_STANDALONE = 0x01


def _query_text(data: bytes, fmt) -> str:
    ev = decode_event(data, fmt, verify_checksum=False)
    q = getattr(ev, "query", "")
    return q.strip().upper() if isinstance(q, str) else ""


class DumpError(Exception):
    """The dump cannot start or continue: sent to the client as ERR 1236."""


@dataclass
class DumpRequest:
    file: str
    pos: int
    flags: int
    server_id: int
    mysql_gtids: MysqlGtidSet | None = None

    @property
    def blocking(self) -> bool:
        return not (self.flags & NON_BLOCK) and self.server_id != 0


def parse_dump(payload: bytes) -> DumpRequest:
    """COM_BINLOG_DUMP: pos (4), flags (2), server id (4), file name (rest; NULs ignored)."""
    if len(payload) < 11:
        raise DumpError(f"malformed COM_BINLOG_DUMP packet ({len(payload)} bytes)")
    pos, flags, sid = struct.unpack_from("<IHI", payload, 1)
    name = payload[11:].rstrip(b"\x00").decode("utf-8", "replace")
    return DumpRequest(name, pos, flags, sid)


def parse_dump_gtid(payload: bytes) -> DumpRequest:
    """COM_BINLOG_DUMP_GTID: flags (2), server id (4), name length (4), name, pos (8), then the
    GTID set's length (4) and bytes (Gtid_set::encode, tagged or not). Clients set
    BINLOG_THROUGH_GTID with it, or not (ZongJi): the set is read when present either way."""
    try:
        flags, sid, nlen = struct.unpack_from("<HII", payload, 1)
        name = payload[11 : 11 + nlen].decode("utf-8", "replace")
        (pos,) = struct.unpack_from("<Q", payload, 11 + nlen)
        at = HEADER_SIZE + nlen
        gtids = MysqlGtidSet()
        if len(payload) > at:  # MySQL reads the set whether or not BINLOG_THROUGH_GTID is set
            (size,) = struct.unpack_from("<I", payload, at)
            data = payload[at + 4 : at + 4 + size]
            if len(data) != size:
                raise DumpError(f"COM_BINLOG_DUMP_GTID: GTID set of {size} bytes, {len(data)} present")
            gtids = MysqlGtidSet.from_binary(data)
    except struct.error:
        raise DumpError(f"malformed COM_BINLOG_DUMP_GTID packet ({len(payload)} bytes)") from None
    return DumpRequest(name.rstrip("\x00"), pos, flags, sid, gtids)


class GtidFilter:
    """Which event groups a GTID start leaves out (module docstring)."""

    def __init__(self, mysql: MysqlGtidSet | None, mariadb: MariadbState | None) -> None:
        self.mysql = mysql
        self.mariadb = mariadb.copy() if mariadb is not None else None
        self.skipping: str | None = None  # None, "pending" (MySQL, decided by the next event), "one", "txn"

    @property
    def active(self) -> bool:
        if self.skipping is not None:
            return True
        if self.mysql is not None:
            return bool(self.mysql)
        return self.mariadb is not None and bool(self.mariadb.domains)

    def position_pending(self) -> bool:
        return self.mariadb is not None and bool(self.mariadb.domains)

    def skip(self, data: bytes, fmt) -> bool:
        t = data[TYPE_AT]
        if self.skipping is None:
            if t not in NUMBERED_GTID_TYPES:
                return False
            g = gtid_of(data, fmt)
            if not g:
                return False
            if g[0] == "mysql":
                if self.mysql is not None and self.mysql.contains(g[1], g[2], g[3]):
                    self.skipping = "pending"
                    return True
                return False
            _, domain, server, seq, flags2 = g
            if self.mariadb is None or domain not in self.mariadb.domains:
                return False
            want_server, want_seq = self.mariadb.domains[domain]
            skip = server != want_server or seq <= want_seq
            if server == want_server and seq >= want_seq:
                del self.mariadb.domains[domain]  # position reached in this domain
            if skip:
                self.skipping = "one" if flags2 & _MARIA_STANDALONE else "txn"
            return skip
        if self.skipping == "pending":
            if t == QUERY_EVENT and _query_text(data, fmt) == "BEGIN":
                self.skipping = "txn"
            elif t in (QUERY_EVENT, TRANSACTION_PAYLOAD_EVENT):
                self.skipping = None
            else:
                self.skipping = "txn"
            return True
        if self.skipping == "one":
            if t in (QUERY_EVENT, QUERY_COMPRESSED_EVENT, XID_EVENT):
                self.skipping = None
            return True
        # "txn": up to and including XID or a COMMIT / ROLLBACK query
        if t == XID_EVENT or (
            t == QUERY_EVENT and _query_text(data, fmt) in ("COMMIT", "ROLLBACK")
        ):
            self.skipping = None
        elif t == XA_PREPARE_LOG_EVENT:
            self.skipping = None
        return True
