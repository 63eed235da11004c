"""A file's events sent to a replica (part of binlogwriter/serve/dump.py): the fast path
that frames whole runs of events straight from the file's bytes, and the general one (GTID
filter, skipped ANNOTATE_ROWS, pacing) event by event."""

from __future__ import annotations

import os

from binlogwriter.crc import crc32
from binlogwriter.errors import DecodeError
from binlogwriter.format import ANNOTATE_ROWS_EVENT, GTID_TYPES
from binlogwriter.layouts.header import HEADER_SIZE as HEADER
from binlogwriter.layouts.header import HEADER_STRUCT, LENGTH_AT, LOG_POS_AT, TYPE_AT
from binlogwriter.serve.binlogs import BinlogFile
from binlogwriter.serve.dump_request import HEAD, GtidFilter
from binlogwriter.serve.framing import MAX_EVENT_LENGTH, chunks, length_error
from binlogwriter.serve.protocol import MAX_PAYLOAD, frame

# Why MariaDB's binlog sender stops reading an event (sql_repl.cc, the LOG_READ_* codes of
# Log_event::read_log_event); the ERR 1236 text is the reason, then where it was reading.
BOGUS = "bogus data in log event"
TOO_LARGE = "log event entry exceeded max_allowed_packet; Increase max_allowed_packet on master"
TRUNCATED = "binlog truncated in the middle of event; consider out of disk space on master"
BAD_CRC = "event read from binlog did not pass crc check"


def read_error(reason: str, name: str, pos: int, last_byte: int) -> str:
    """ERR 1236's message for an event that cannot be read at ``name``:``pos`` (MariaDB's
    wording, compared with a real MariaDB 10.11 in tests/conformance/test_serve_positions.py)."""
    return (
        f"{reason}; the first event '{name}' at {pos}, the last event read from '{name}' at {pos}, "
        f"the last byte read from '{name}' at {last_byte}."
    )


def start_error(f: BinlogFile, pos: int, *, follow: bool) -> str | None:
    """Why no event starts at ``pos`` of ``f`` (None: one does, or ``pos`` is the end).

    A dump asked to start inside an event is refused as MariaDB's sender refuses it: after the
    fake ROTATE and the FDE, when reading the event there. Its common header must hold an
    ``event_length`` of at least 19 bytes (else "bogus data"), at most 1 GiB (the
    ``max_allowed_packet`` a dump thread reads with; else "exceeded max_allowed_packet"), ending
    within the file (else "truncated": not refused with ``--follow``, where the writer may still
    be writing it); then, stricter than a server that does not verify checksums, its CRC32 when
    the file has them, and its ``log_pos`` (the end offset every server writes) when not zero.
    Only the header and that one event are read."""
    with open(f.path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if pos >= size:
            return None
        fh.seek(pos)
        head = fh.read(HEADER)
        if len(head) < HEADER:
            return None if follow else read_error(TRUNCATED, f.name, pos, pos)
        _ts, _type, _sid, ln, log_pos, _flags = HEADER_STRUCT.unpack(head)  # the common header (format.md §3)
        if ln < HEADER:
            return read_error(BOGUS, f.name, pos, pos + HEADER)
        if ln > MAX_EVENT_LENGTH:
            return read_error(TOO_LARGE, f.name, pos, pos + HEADER)
        if pos + ln > size:
            return None if follow else read_error(TRUNCATED, f.name, pos, pos + HEADER)
        if f.fmt.footer_size == 4:
            event = head + fh.read(ln - HEADER)
            if crc32(event[:-4]) != int.from_bytes(event[-4:], "little"):
                return read_error(BAD_CRC, f.name, pos, pos + ln)
        if log_pos not in (0, (pos + ln) & 0xFFFFFFFF):
            return read_error(BOGUS, f.name, pos, pos + HEADER)
    return None


class FileSendingMixin:
    """:class:`~binlogwriter.serve.dump.Streamer`'s file-sending methods."""

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
        unpack_from = HEAD.unpack_from
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
                while off + HEADER <= nb:
                    ln = unpack_from(buf, off + LENGTH_AT)[0]
                    if not HEADER <= ln <= MAX_EVENT_LENGTH:
                        raise DecodeError(length_error(ln), file=f.name, offset=pos + off)
                    end = off + ln
                    if end > nb:
                        break
                    if skip_annotate and buf[off + TYPE_AT] == ANNOTATE_ROWS_EVENT:
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
                if off == 0 and nb >= HEADER:  # one event larger than the block: read it whole
                    ln = int.from_bytes(buf[LENGTH_AT:LOG_POS_AT], "little")  # in range: checked above
                    # never more than the file holds: a length read from the file is not trusted
                    block = max(block, min(ln, os.fstat(fh.fileno()).st_size - pos))
        self.io.seq = seq
        self.sent_bytes += pos - start
        self.sent_events += events
        return pos

    def _send_file_general(self, f: BinlogFile, start: int, flt: GtidFilter | None) -> int:
        pos = start
        fmt = f.fmt
        pacer = self.pacer
        skip_annotate = self.skip_annotate
        sendall = self.sock.sendall
        pack = HEAD.pack
        with open(f.path, "rb") as fh:
            for base, buf, bounds in chunks(
                fh, start, name=f.name, block=pacer.block if pacer else (1 << 20)
            ):
                mv = memoryview(buf)
                parts: list = []
                seq = self.io.seq
                nbytes = 0
                ntx = 0
                last = len(bounds) - 1
                for i in range(last):
                    a = bounds[i]
                    b = bounds[i + 1]
                    t = buf[a + TYPE_AT]
                    if flt is not None:
                        if flt.skip(buf[a:b], fmt):
                            continue
                        if not flt.active:
                            flt = None
                    if t == ANNOTATE_ROWS_EVENT and skip_annotate:
                        continue
                    if t in GTID_TYPES:
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
