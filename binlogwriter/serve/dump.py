"""COM_BINLOG_DUMP and COM_BINLOG_DUMP_GTID: the event stream (docs/serve.md "Dump").

What a primary sends, per file (MySQL's binlog sender and MariaDB's sql_repl.cc do the same):

1. a fake ROTATE naming the file and the start position (timestamp 0, log_pos 0, flag
   LOG_EVENT_ARTIFICIAL_F), with a CRC32 footer when the file has them;
2. the file's FORMAT_DESCRIPTION_EVENT with LOG_EVENT_BINLOG_IN_USE_F cleared; when the dump
   starts after it (position > 4) its log_pos and ``created`` are 0 (the replica must not
   advance its position nor drop temporary tables) and its CRC32 is recomputed;
3. the file's events from the start position, each in one packet ``0x00`` + event (an event of
   2^24-2 bytes or more spans several packets, protocol.py).

After the last file a non-blocking dump (flag BINLOG_DUMP_NON_BLOCK, or replica server id 0)
ends with an EOF packet; a blocking one stays open and, when idle for the heartbeat period the
replica set (``@master_heartbeat_period``, ns), sends HEARTBEAT_LOG_EVENT naming the file and
position (v1; MySQL ≥ 8.0.26 sends HEARTBEAT_LOG_EVENT_V2). With ``--follow`` new bytes and
files are picked up while waiting.

Filtering: MariaDB leaves out ANNOTATE_ROWS unless the dump flags ask for them
(BINLOG_SEND_ANNOTATE_ROWS_EVENT, 2). GTID starts begin at the file found from the
PREVIOUS_GTIDS / GTID_LIST headers and skip whole event groups the replica has: MySQL each
group whose GTID is in the replica's set; MariaDB per domain every group up to and including
the replica's GTID, then nothing more in that domain.
"""

from __future__ import annotations

import select
import socket
import time
import zlib

from binlogwriter.events import HeartbeatEvent, HeartbeatV2Event, RotateEvent, encode_event
from binlogwriter.format import Checksum, version_tuple
from binlogwriter.gtids import MariadbState
from binlogwriter.layouts.header import FLAGS_AT, HEADER_SIZE, LOG_POS_AT
from binlogwriter.serve.binlogs import BinlogFile, BinlogSet
from binlogwriter.serve.dump_files import FileSendingMixin, start_error
from binlogwriter.serve.dump_request import (
    ARTIFICIAL_F,
    ER_MASTER_FATAL_ERROR_READING_BINLOG,
    FDE_CREATED_AT,
    IN_USE_F,
    SEND_ANNOTATE_ROWS,
    DumpError,
    DumpRequest,
    GtidFilter,
    parse_dump,
    parse_dump_gtid,
)
from binlogwriter.serve.pacing import Pacer
from binlogwriter.serve.protocol import PacketIO, eof_packet, err_packet, frame
from binlogwriter.serve.session import Session

__all__ = ["DumpRequest", "DumpError", "stream", "parse_dump", "parse_dump_gtid", "in_use_cleared"]


def _with_crc(ev: bytearray, fmt_has_crc: bool) -> bytes:
    if fmt_has_crc:
        ev[-4:] = zlib.crc32(ev[:-4]).to_bytes(4, "little")
    return bytes(ev)


class Streamer(FileSendingMixin):
    """One client's dump: sends packets through ``io`` until the end (non-blocking) or until
    the client goes away.

    Size: one client's binlog dump (COM_BINLOG_DUMP): its packets, the fake ROTATE/FDE,
    heartbeats and the run loop share the connection state.
    """

    def __init__(
        self,
        io: PacketIO,
        binlogs: BinlogSet,
        session: Session,
        req: DumpRequest,
        *,
        mariadb_gtid: MariadbState | None = None,
        pacer: Pacer | None = None,
        heartbeat_version: int | None = None,
        default_heartbeat_ns: int = 0,
        poll_interval: float = 0.2,
        fast_block: int = 256 << 10,
    ) -> None:
        self.io = io
        self.sock: socket.socket = io.sock
        self.binlogs = binlogs
        self.session = session
        self.req = req
        self.pacer = pacer
        self.filter = (
            GtidFilter(req.mysql_gtids, None)
            if req.mysql_gtids is not None
            else GtidFilter(None, mariadb_gtid)
            if mariadb_gtid is not None
            else None
        )
        self.gtid_start = self.filter is not None
        self.skip_annotate = binlogs.is_mariadb and not (req.flags & SEND_ANNOTATE_ROWS)
        hb_ns = session.heartbeat_ns or default_heartbeat_ns
        self.heartbeat = hb_ns / 1e9 if hb_ns else None
        if heartbeat_version is None:
            heartbeat_version = (
                2 if (not binlogs.is_mariadb and version_tuple(binlogs.server_version) >= (8, 0, 26)) else 1
            )
        self.heartbeat_version = heartbeat_version
        self.poll = poll_interval
        self.fast_block = fast_block  # 256 KB: measured faster than 1-4 MB (cache), bench/serve.py
        self.fake_crc = session.checksum_value == "CRC32"
        self.sent_bytes = 0
        self.sent_events = 0

    # ------------------------------------------------------------------------------ helpers
    def _send(self, data: bytes | bytearray) -> None:
        self.sock.sendall(data)

    def _packet(self, event: bytes) -> None:
        data, self.io.seq = frame(b"\x00" + event, self.io.seq)
        self._send(data)
        self.sent_bytes += len(event)
        self.sent_events += 1

    def _fake_fmt(self, f: BinlogFile):
        """Fake events carry a CRC32 when the checksum in force says so: before the first FDE
        the one the client named in ``@master_binlog_checksum`` (mysqlbinlog says NONE), then
        the FDE's."""
        return f.fmt.with_checksum(Checksum.CRC32 if self.fake_crc else Checksum.NONE)

    def _fake_rotate(self, f: BinlogFile, pos: int) -> None:
        ev = RotateEvent(
            position=pos, next_file=f.name, timestamp=0, server_id=f.server_id, flags=ARTIFICIAL_F, log_pos=0
        )
        self._packet(encode_event(ev, self._fake_fmt(f)))

    def _fde(self, f: BinlogFile, start: int) -> None:
        ev = in_use_cleared(f.fde)
        has_crc = _fde_has_crc(f, ev)
        if start > 4 or (self.filter is not None and self.filter.position_pending()):
            if start > 4:
                ev[LOG_POS_AT:FLAGS_AT] = b"\x00\x00\x00\x00"
            ev[FDE_CREATED_AT : FDE_CREATED_AT + 4] = b"\x00\x00\x00\x00"
            self._packet(_with_crc(ev, has_crc))
        else:
            self._packet(bytes(ev))  # the stored CRC covers the FDE with IN_USE cleared (format.md §3)
        self.fake_crc = f.fmt.footer_size == 4

    def _heartbeat(self, f: BinlogFile, pos: int) -> None:
        if self.heartbeat_version == 2:
            ev = HeartbeatV2Event(
                log_filename=f.name,
                log_position=pos,
                timestamp=0,
                server_id=f.server_id,
                flags=ARTIFICIAL_F,
                log_pos=0,
            )
        else:
            ev = HeartbeatEvent(
                log_filename=f.name,
                timestamp=0,
                server_id=f.server_id,
                flags=ARTIFICIAL_F,
                log_pos=pos & 0xFFFFFFFF,
            )
        self._packet(encode_event(ev, self._fake_fmt(f)))

    def _client_gone(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the client; True if it closed the connection (bytes it
        sends while dumping are read and ignored, as a server does)."""
        r, _, _ = select.select([self.sock], [], [], timeout)
        if not r:
            return False
        try:
            data = self.sock.recv(65536)
        except OSError:
            return True
        return not data

    # ------------------------------------------------------------------------------ the dump
    def start_index(self) -> tuple[int, int]:
        bs = self.binlogs
        if self.req.mysql_gtids is not None:
            return bs.mysql_start_file(self.req.mysql_gtids), 4
        if self.filter is not None and self.filter.mariadb is not None:
            return bs.mariadb_start_file(self.filter.mariadb), 4
        if not self.req.file:
            return 0, max(4, self.req.pos)
        i = bs.find(self.req.file)
        if i is None:
            raise DumpError("Could not find first log file name in binary log index file")
        pos = max(4, self.req.pos)
        size = bs.files[i].size
        if pos > size:
            # MariaDB's sql_repl.cc and MySQL's binlog sender word it differently
            what = "impossible position" if bs.is_mariadb else "position > file size"
            name = self.req.file
            raise DumpError(
                f"Client requested master to start replication from {what}; "
                f"the first event '{name}' at {pos}, the last event read from "
                f"'{name}' at 4, the last byte read from '{name}' at 4."
            )
        return i, pos

    def run(self) -> None:
        bs = self.binlogs
        if bs.last.fmt.footer_size and not self.session.checksum_aware:
            raise DumpError(
                "Slave can not handle replication events with the checksum that master is configured to log"
            )
        index, pos = self.start_index()
        first = True
        while True:
            f = bs.files[index]
            self._fake_rotate(f, pos)
            self._fde(f, pos)
            if first and pos > 4:  # a position inside an event: refused once ROTATE and FDE are sent
                why = start_error(f, pos, follow=bs.follow)
                if why:
                    raise DumpError(why)
            first = False
            at = pos if pos > 4 else f.header_end
            while True:
                at = self._send_file(f, at)
                if bs.follow:
                    bs.refresh()
                size = f.size
                if at < size:
                    if bs.follow:
                        if self._client_gone(self.poll):
                            return
                        continue  # the writer is still writing this event
                    raise DumpError(f"{f.name}: the file ends inside an event at offset {at}")
                if index + 1 < len(bs.files):
                    index, pos = index + 1, 4
                    break
                if not self.req.blocking:
                    self.io.write(eof_packet())
                    return
                if self._wait(f, at):
                    return  # the client went away

    def _wait(self, f: BinlogFile, at: int) -> bool:
        """Idle at the end of the data: heartbeats; True once the client is gone."""
        deadline = time.monotonic() + (self.heartbeat or 3600.0)
        while True:
            now = time.monotonic()
            step = min(self.poll if self.binlogs.follow else 1.0, max(0.0, deadline - now))
            if self._client_gone(step):
                return True
            if self.binlogs.follow:
                self.binlogs.refresh()
                if f.size > at or self.binlogs.files[-1].path != f.path:
                    return False
            if time.monotonic() >= deadline:
                if self.heartbeat:
                    self._heartbeat(f, at)
                deadline = time.monotonic() + (self.heartbeat or 3600.0)


def in_use_cleared(ev: bytes | bytearray) -> bytearray:
    """The FORMAT_DESCRIPTION_EVENT ``ev`` with LOG_EVENT_BINLOG_IN_USE_F cleared in its header
    flags, as a dump sends it (a server's stored CRC covers the FDE with the flag cleared,
    format.md §3)."""
    ev = bytearray(ev)
    flags = int.from_bytes(ev[FLAGS_AT:HEADER_SIZE], "little") & ~IN_USE_F
    ev[FLAGS_AT:HEADER_SIZE] = flags.to_bytes(2, "little")
    return ev


def _fde_has_crc(f: BinlogFile, cleared: bytearray) -> bool:
    """Whether the stored FDE ends with a real CRC32 (of its bytes with IN_USE cleared)."""
    return version_tuple(f.fmt.server_version) >= (5, 6, 1) and zlib.crc32(cleared[:-4]) == int.from_bytes(
        cleared[-4:], "little"
    )


def stream(
    io: PacketIO,
    binlogs: BinlogSet,
    session: Session,
    req: DumpRequest,
    *,
    cls: type[Streamer] = Streamer,
    **kw,
) -> Streamer:
    """Run a dump; a :class:`DumpError` before or during it is sent as ERR 1236."""
    st = cls(io, binlogs, session, req, **kw)
    try:
        st.run()
    except DumpError as exc:
        io.write(err_packet(ER_MASTER_FATAL_ERROR_READING_BINLOG, str(exc)))
        raise
    return st
