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
import struct
import time
import zlib
from dataclasses import dataclass

from binlogwriter.errors import DecodeError
from binlogwriter.events import HeartbeatEvent, HeartbeatV2Event, RotateEvent, decode_event, encode_event
from binlogwriter.format import Checksum, EventType, version_tuple
from binlogwriter.serve.binlogs import GTID_TYPES, BinlogFile, BinlogSet, gtid_of
from binlogwriter.serve.framing import chunks
from binlogwriter.serve.gtid import MariadbState, MysqlGtidSet
from binlogwriter.serve.pacing import Pacer
from binlogwriter.serve.protocol import MAX_PAYLOAD, PacketIO, eof_packet, err_packet, frame
from binlogwriter.serve.session import Session

__all__ = ["DumpRequest", "DumpError", "stream", "parse_dump", "parse_dump_gtid"]


NON_BLOCK = 0x01
SEND_ANNOTATE_ROWS = 0x02
THROUGH_GTID = 0x04
ARTIFICIAL_F = 0x0020
IN_USE_F = 0x0001
ER_MASTER_FATAL_ERROR_READING_BINLOG = 1236
_FDE_CREATED_AT = 19 + 2 + 50
_HEAD = struct.Struct("<I")
_MARIA_STANDALONE = 0x01
_TXN_TYPES = frozenset((EventType.GTID_LOG_EVENT, EventType.ANONYMOUS_GTID_LOG_EVENT,
                        EventType.GTID_TAGGED_LOG_EVENT, EventType.MARIADB_GTID_EVENT))


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
        name = payload[11:11 + nlen].decode("utf-8", "replace")
        (pos,) = struct.unpack_from("<Q", payload, 11 + nlen)
        at = 19 + nlen
        gtids = MysqlGtidSet()
        if len(payload) > at:  # MySQL reads the set whether or not BINLOG_THROUGH_GTID is set
            (size,) = struct.unpack_from("<I", payload, at)
            data = payload[at + 4:at + 4 + size]
            if len(data) != size:
                raise DumpError(f"COM_BINLOG_DUMP_GTID: GTID set of {size} bytes, {len(data)} present")
            gtids = MysqlGtidSet.from_binary(data)
    except struct.error:
        raise DumpError(f"malformed COM_BINLOG_DUMP_GTID packet ({len(payload)} bytes)") from None
    return DumpRequest(name.rstrip("\x00"), pos, flags, sid, gtids)


class _GtidFilter:
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
        t = data[4]
        if self.skipping is None:
            if t not in GTID_TYPES:
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
            if t == EventType.QUERY_EVENT and _query_text(data, fmt) == "BEGIN":
                self.skipping = "txn"
            elif t in (EventType.QUERY_EVENT, EventType.TRANSACTION_PAYLOAD_EVENT):
                self.skipping = None
            else:
                self.skipping = "txn"
            return True
        if self.skipping == "one":
            if t in (EventType.QUERY_EVENT, EventType.QUERY_COMPRESSED_EVENT, EventType.XID_EVENT):
                self.skipping = None
            return True
        # "txn": up to and including XID or a COMMIT / ROLLBACK query
        if t == EventType.XID_EVENT or (t == EventType.QUERY_EVENT
                                         and _query_text(data, fmt) in ("COMMIT", "ROLLBACK")):
            self.skipping = None
        elif t == EventType.XA_PREPARE_LOG_EVENT:
            self.skipping = None
        return True


def _query_text(data: bytes, fmt) -> str:
    ev = decode_event(data, fmt, verify_checksum=False)
    q = getattr(ev, "query", "")
    return q.strip().upper() if isinstance(q, str) else ""


def _with_crc(ev: bytearray, fmt_has_crc: bool) -> bytes:
    if fmt_has_crc:
        ev[-4:] = zlib.crc32(ev[:-4]).to_bytes(4, "little")
    return bytes(ev)


class Streamer:
    """One client's dump: sends packets through ``io`` until the end (non-blocking) or until
    the client goes away."""

    def __init__(self, io: PacketIO, binlogs: BinlogSet, session: Session, req: DumpRequest, *,
                 mariadb_gtid: MariadbState | None = None, pacer: Pacer | None = None,
                 heartbeat_version: int | None = None, default_heartbeat_ns: int = 0,
                 poll_interval: float = 0.2, fast_block: int = 256 << 10) -> None:
        self.io = io
        self.sock: socket.socket = io.sock
        self.binlogs = binlogs
        self.session = session
        self.req = req
        self.pacer = pacer
        self.filter = (_GtidFilter(req.mysql_gtids, None) if req.mysql_gtids is not None
                       else _GtidFilter(None, mariadb_gtid) if mariadb_gtid is not None else None)
        self.gtid_start = self.filter is not None
        self.skip_annotate = binlogs.is_mariadb and not (req.flags & SEND_ANNOTATE_ROWS)
        hb_ns = session.heartbeat_ns or default_heartbeat_ns
        self.heartbeat = hb_ns / 1e9 if hb_ns else None
        if heartbeat_version is None:
            heartbeat_version = 2 if (not binlogs.is_mariadb
                                      and version_tuple(binlogs.server_version) >= (8, 0, 26)) else 1
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
        ev = RotateEvent(position=pos, next_file=f.name, timestamp=0, server_id=f.server_id,
                         flags=ARTIFICIAL_F, log_pos=0)
        self._packet(encode_event(ev, self._fake_fmt(f)))

    def _fde(self, f: BinlogFile, start: int) -> None:
        ev = bytearray(f.fde)
        flags = int.from_bytes(ev[17:19], "little") & ~IN_USE_F
        ev[17:19] = flags.to_bytes(2, "little")
        has_crc = _fde_has_crc(f, ev)
        if start > 4 or (self.filter is not None and self.filter.position_pending()):
            if start > 4:
                ev[13:17] = b"\x00\x00\x00\x00"
            ev[_FDE_CREATED_AT:_FDE_CREATED_AT + 4] = b"\x00\x00\x00\x00"
            self._packet(_with_crc(ev, has_crc))
        else:
            self._packet(bytes(ev))  # the stored CRC covers the FDE with IN_USE cleared (format.md §3)
        self.fake_crc = f.fmt.footer_size == 4

    def _heartbeat(self, f: BinlogFile, pos: int) -> None:
        if self.heartbeat_version == 2:
            ev = HeartbeatV2Event(log_filename=f.name, log_position=pos, timestamp=0,
                                  server_id=f.server_id, flags=ARTIFICIAL_F, log_pos=0)
        else:
            ev = HeartbeatEvent(log_filename=f.name, timestamp=0, server_id=f.server_id,
                                flags=ARTIFICIAL_F, log_pos=pos & 0xFFFFFFFF)
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
            raise DumpError(f"Client requested master to start replication from position > file size; "
                            f"the first event '{self.req.file}' at {pos}, the last event read from "
                            f"'{self.req.file}' at 4, the last byte read from '{self.req.file}' at 4.")
        return i, pos

    def run(self) -> None:
        bs = self.binlogs
        if bs.last.fmt.footer_size and not self.session.checksum_aware:
            raise DumpError("Slave can not handle replication events with the checksum that master "
                            "is configured to log")
        index, pos = self.start_index()
        while True:
            f = bs.files[index]
            self._fake_rotate(f, pos)
            self._fde(f, pos)
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

    def _send_file(self, f: BinlogFile, start: int) -> int:
        """Send the complete events of ``f`` from ``start``; returns the position reached."""
        flt = self.filter if self.filter is not None and self.filter.active else None
        if flt is None and self.pacer is None:
            return self._send_file_fast(f, start)
        return self._send_file_general(f, start, flt)

    def _send_file_fast(self, f: BinlogFile, start: int) -> int:
        """The unfiltered, unpaced path: framing (framing.py's rule) and packet headers in one
        loop per block, one ``sendall`` per block. tests/serve/test_dump_fast_path.py proves it
        sends the bytes the general path sends."""
        block = self.fast_block
        skip_annotate = self.skip_annotate
        sendall = self.sock.sendall
        unpack_from = _HEAD.unpack_from
        seq = self.io.seq
        pos = start
        carry = b""
        events = 0
        with open(f.path, "rb") as fh:
            fh.seek(start)
            while True:
                data = fh.read(block)
                if not data:
                    break
                buf = carry + data if carry else data
                nb = len(buf)
                off = 0
                parts: list = []
                ap = parts.append
                while off + 19 <= nb:
                    ln = unpack_from(buf, off + 9)[0]
                    end = off + ln
                    if end > nb:
                        if ln >= 19:
                            break
                        raise DecodeError(f"event_length {ln} is shorter than the 19-byte header",
                                          file=f.name, offset=pos + off)
                    if ln < 19:
                        raise DecodeError(f"event_length {ln} is shorter than the 19-byte header",
                                          file=f.name, offset=pos + off)
                    if skip_annotate and buf[off + 4] == 160:
                        off = end
                        continue
                    if ln + 1 < MAX_PAYLOAD:
                        ap(((ln + 1) | seq << 24).to_bytes(5, "little"))
                        ap(buf[off:end])
                        seq = (seq + 1) & 0xFF
                    else:
                        packets, seq = frame(b"\x00" + buf[off:end], seq)
                        ap(packets)
                    events += 1
                    off = end
                if parts:
                    sendall(b"".join(parts))
                pos += off
                carry = buf[off:]
                if off == 0 and nb >= 19:  # one event larger than the block: read it whole
                    block = max(block, int.from_bytes(buf[9:13], "little"))
        self.io.seq = seq
        self.sent_bytes += pos - start
        self.sent_events += events
        return pos

    def _send_file_general(self, f: BinlogFile, start: int, flt: _GtidFilter | None) -> int:
        pos = start
        fmt = f.fmt
        pacer = self.pacer
        skip_annotate = self.skip_annotate
        sendall = self.sock.sendall
        pack = _HEAD.pack
        with open(f.path, "rb") as fh:
            for base, buf, bounds in chunks(fh, start, name=f.name,
                                            block=pacer.block if pacer else (1 << 20)):
                mv = memoryview(buf)
                parts: list = []
                seq = self.io.seq
                nbytes = 0
                ntx = 0
                last = len(bounds) - 1
                for i in range(last):
                    a = bounds[i]
                    b = bounds[i + 1]
                    t = buf[a + 4]
                    if flt is not None:
                        if flt.skip(buf[a:b], fmt):
                            continue
                        if not flt.active:
                            flt = None
                    if t == 160 and skip_annotate:
                        continue
                    if t in _TXN_TYPES:
                        ntx += 1
                    n = b - a + 1
                    if n < MAX_PAYLOAD:
                        parts.append(pack(n | seq << 24) + b"\x00")
                        parts.append(mv[a:b])
                        seq = (seq + 1) & 0xFF
                    else:
                        data, seq = frame(b"\x00" + buf[a:b], seq)
                        parts.append(data)
                    nbytes += n - 1
                    if pacer is not None and pacer.due(nbytes, ntx):
                        sendall(b"".join(parts))
                        parts = []
                        pacer.wait(nbytes, ntx)
                        nbytes = ntx = 0
                if parts:
                    sendall(b"".join(parts))
                if pacer is not None and (nbytes or ntx):
                    pacer.wait(nbytes, ntx)
                self.io.seq = seq
                self.sent_bytes += bounds[-1]
                self.sent_events += last
                pos = base + bounds[-1]
        if flt is None and self.filter is not None and not self.filter.active:
            self.filter = None
        return pos


def _fde_has_crc(f: BinlogFile, cleared: bytearray) -> bool:
    """Whether the stored FDE ends with a real CRC32 (of its bytes with IN_USE cleared)."""
    return (version_tuple(f.fmt.server_version) >= (5, 6, 1)
            and zlib.crc32(cleared[:-4]) == int.from_bytes(cleared[-4:], "little"))


def stream(io: PacketIO, binlogs: BinlogSet, session: Session, req: DumpRequest, *,
           cls: type[Streamer] = Streamer, **kw) -> Streamer:
    """Run a dump; a :class:`DumpError` before or during it is sent as ERR 1236."""
    st = cls(io, binlogs, session, req, **kw)
    try:
        st.run()
    except DumpError as exc:
        io.write(err_packet(ER_MASTER_FATAL_ERROR_READING_BINLOG, str(exc)))
        raise
    return st
