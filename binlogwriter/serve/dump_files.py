"""A file's events sent to a replica (part of binlogwriter/serve/dump.py): the fast path
that frames whole runs of events straight from the file's bytes, and the general one (GTID
filter, skipped ANNOTATE_ROWS, pacing) event by event."""

from __future__ import annotations

from binlogwriter.errors import DecodeError
from binlogwriter.serve.binlogs import BinlogFile
from binlogwriter.serve.dump_request import _HEAD, _TXN_TYPES, _GtidFilter
from binlogwriter.serve.framing import chunks
from binlogwriter.serve.protocol import MAX_PAYLOAD, frame


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
                        raise DecodeError(
                            f"event_length {ln} is shorter than the 19-byte header",
                            file=f.name,
                            offset=pos + off,
                        )
                    if ln < 19:
                        raise DecodeError(
                            f"event_length {ln} is shorter than the 19-byte header",
                            file=f.name,
                            offset=pos + off,
                        )
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
