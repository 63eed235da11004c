"""A file's events sent to a replica (part of binlogwriter/serve/dump.py), a block at a time
framed by :func:`binlogwriter.read.framing.iter_blocks`: unfiltered and unpaced, a block's
packets are built with array operations (:func:`~binlogwriter.serve.packets.frame_events`);
with a GTID filter, skipped ANNOTATE_ROWS or pacing, event by event."""

from __future__ import annotations

import os
import zlib

import numpy as np

from binlogwriter.errors import DecodeError, LimitError
from binlogwriter.format import ANNOTATE_ROWS_EVENT, GTID_TYPES
from binlogwriter.layouts.header import FLAGS_AT, HEADER_SIZE, LOG_POS_AT, TYPE_AT
from binlogwriter.read.framing import CRC_RESIDUE, iter_blocks
from binlogwriter.serve.binlogs import BinlogFile
from binlogwriter.serve.dump_request import HEAD, GtidFilter
from binlogwriter.serve.packets import frame_events
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
    Only that one event is read (framed by :func:`~binlogwriter.read.framing.iter_blocks`)."""
    with open(f.path, "rb") as fh:
        try:
            got = next(iter_blocks(fh, pos, name=f.name, block=HEADER_SIZE), None)
        except LimitError:
            return read_error(TOO_LARGE, f.name, pos, pos + HEADER_SIZE)
        except DecodeError:
            return read_error(BOGUS, f.name, pos, pos + HEADER_SIZE)
        if got is None:  # the file ends at pos, or inside the event there
            left = os.fstat(fh.fileno()).st_size - pos
            if left <= 0 or follow:
                return None
            return read_error(TRUNCATED, f.name, pos, pos if left < HEADER_SIZE else pos + HEADER_SIZE)
    _base, buf, bounds = got
    end = pos + bounds[1]
    if f.fmt.footer_size == 4 and zlib.crc32(buf[:bounds[1]]) != CRC_RESIDUE:
        return read_error(BAD_CRC, f.name, pos, end)
    if int.from_bytes(buf[LOG_POS_AT:FLAGS_AT], "little") not in (0, end & 0xFFFFFFFF):
        return read_error(BOGUS, f.name, pos, pos + HEADER_SIZE)
    return None


class FileSendingMixin:
    """:class:`~binlogwriter.serve.dump.Streamer`'s file-sending methods."""

    def _send_file(self, f: BinlogFile, start: int) -> int:
        """Send the complete events of ``f`` from ``start``; returns the position reached.
        One ``sendall`` per block (unless the pacer waits inside it). tests/serve/test_framing.py
        proves the array-built packets are the bytes the event-by-event path sends."""
        flt = self.filter if self.filter is not None and self.filter.active else None
        pacer = self.pacer
        skip = ANNOTATE_ROWS_EVENT if self.skip_annotate else None
        pos = start
        with open(f.path, "rb") as fh:
            for base, buf, bounds in iter_blocks(fh, start, name=f.name, block=pacer.block if pacer else self.fast_block):
                got = None
                if flt is None and pacer is None:  # None when an event needs several packets
                    got = frame_events(memoryview(buf)[:bounds[-1]], np.diff(bounds), self.io.seq, skip)
                if got is not None:
                    packets, self.io.seq, events, _n = got
                    self.sock.sendall(packets)
                    self.sent_events += events
                else:
                    flt = self._send_events(f, buf, bounds, flt)
                self.sent_bytes += bounds[-1]
                pos = base + bounds[-1]
        if flt is None and self.filter is not None and not self.filter.active:
            self.filter = None
        return pos

    def _send_events(self, f: BinlogFile, buf: bytes, bounds: list[int], flt: GtidFilter | None) -> GtidFilter | None:
        """Send the events of one block one by one (GTID filter, pacing); returns the filter
        still active."""
        fmt = f.fmt
        pacer = self.pacer
        skip_annotate = self.skip_annotate
        sendall = self.sock.sendall
        pack = HEAD.pack
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
        self.sent_events += last
        return flt
