"""``serve --generate SPEC``: stream a generator run to each client, nothing on disk.

The run comes from a plugin (entry point ``binlogwriter.streams``, binlogwriter/plugins.py:
the generators package's ``generators/serve.py``): a :class:`StreamSource` for the spec, and
per dump a :class:`StreamRun` that generates everything into the writer given. Every dump
runs its own generation of the spec (deterministic: every client sees the same bytes) into a
:class:`~binlogwriter.write.writer.BinlogWriter` whose sink (:class:`_StreamSink`) hands each
write — a batch of transactions from the generator's batch engine, or one of the writer's own
events — to the dump, which frames and sends the complete events at once as from files (fake
ROTATE and FDE at each new file, the FDE with LOG_EVENT_BINLOG_IN_USE_F cleared). Nothing is
buffered beyond the write in hand: the send blocks while the client is slow, and so does the
generator (back-pressure; the engine's pipeline holds at most two batches). The run is
endless, or stops at ``--size`` bytes (or at the spec's own ``transactions`` / ``size`` when
it names one) by ``generate``'s own rule, ending the last file with STOP as a run on disk
does; then a non-blocking dump ends and a blocking one idles with heartbeats. Starting
positions work as with files: the stream is generated from the beginning and events before
the requested file/position, or the transactions a GTID start excludes, are not sent.

The server's identity (version, server id, checksum, GTID UUID) is the spec's; ``SHOW BINARY
LOGS`` / ``SHOW MASTER STATUS`` report the first file (a generated stream has no end to report).
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from binlogwriter import plugins
from binlogwriter.errors import DecodeError
from binlogwriter.format import ANNOTATE_ROWS_EVENT, FORMAT_DESCRIPTION_EVENT, GTID_TYPES, BinlogFormat
from binlogwriter.gtids import MariadbState, MysqlGtidSet
from binlogwriter.layouts.header import MAGIC, TYPE_AT
from binlogwriter.read.framing import frame_bounds
from binlogwriter.serve.binlogs import BinlogFile
from binlogwriter.serve.dump import DumpError, Streamer, in_use_cleared
from binlogwriter.serve.packets import EventRun, frame_events
from binlogwriter.serve.protocol import MAX_PAYLOAD, eof_packet, frame
from binlogwriter.write.writer import BinlogWriter

__all__ = ["GeneratedBinlogs", "GeneratedStreamer", "StreamRun", "StreamSource"]



class StreamSink:
    """A :class:`~binlogwriter.sinks.Sink` that hands every write to the dump (``feed``: bytes,
    or an :class:`~binlogwriter.serve.packets.EventRun` when the writer's caller knows the
    events' lengths) and counts the bytes of each file as it would be on disk (``closed``:
    the completed files')."""

    def __init__(self, begin: Callable[[str], None], feed: Callable[[Any], None]) -> None:
        self._begin = begin
        self._feed = feed
        self._name = ""
        self._size = 0
        self.closed = 0

    def open(self, name: str, offset: int) -> None:
        self._name = name
        self._size = 0
        self._begin(name)

    def write(self, data: bytes) -> None:
        if not self._size and data == MAGIC:
            self._size = 4
            return
        self._size += len(data)
        self._feed(data)

    def set_final(self, pos: int, data: bytes) -> None:
        pass  # the FDE's IN_USE flag is cleared when sent

    def finish(self) -> Path:
        self.closed += self._size
        return Path(self._name)

    def suspend(self) -> None:
        pass

    def abort(self) -> None:
        pass


class StreamRun(Protocol):
    """One dump's generation: :meth:`writer_args` (BinlogWriter keyword arguments: basename,
    server_id, max_binlog_size, start_time, settings), then :meth:`generate` into the writer
    made with them: everything the run writes (the initial state when it goes into the binlog,
    the transactions and their DDL up to the run's limit, or forever), the writer left open.
    ``written()`` gives the bytes of the files the writer completed (the run's ``--size`` rule
    counts them as files on disk)."""

    def writer_args(self) -> dict[str, Any]: ...

    def generate(self, writer: BinlogWriter, written: Callable[[], int]) -> None: ...


class StreamSource(Protocol):
    """A generated stream's identity and limits; :meth:`new_run` per dump (every client sees
    the same bytes)."""

    fmt: BinlogFormat
    basename: str
    server_id: int
    gtid: str | None
    limit_size: int | None
    limit_transactions: int | None

    def new_run(self) -> StreamRun: ...


@dataclass
class _Virtual:
    """What queries report as the served file of a generated stream."""

    name: str
    size: int = 4
    start_mysql: MysqlGtidSet = field(default_factory=MysqlGtidSet)
    start_mariadb: MariadbState = field(default_factory=MariadbState)


class GeneratedBinlogs:
    """The identity half of :class:`~binlogwriter.serve.binlogs.BinlogSet` for a spec."""

    follow = False

    def __init__(self, spec_path: str | os.PathLike, size: int | None) -> None:
        self.source: StreamSource = plugins.load(plugins.STREAMS, "generate")(spec_path, size)
        self.limit_size = self.source.limit_size
        self.limit_transactions = self.source.limit_transactions
        self.fmt = self.source.fmt
        self.files = [_Virtual(f"{self.source.basename}.000001")]

    def new_run(self) -> StreamRun:
        return self.source.new_run()

    @property
    def first(self) -> _Virtual:
        return self.files[0]

    @property
    def last(self) -> _Virtual:
        return self.files[0]

    @property
    def is_mariadb(self) -> bool:
        return self.fmt.is_mariadb

    @property
    def server_version(self) -> str:
        return self.fmt.server_version

    @property
    def server_id(self) -> int:
        return self.source.server_id

    @property
    def checksum_name(self) -> str:
        return "CRC32" if self.fmt.footer_size else "NONE"

    def find(self, name: str) -> int | None:
        return None

    def end_state(self):
        gtid = self.source.gtid or "anonymous"
        uuid = None if self.is_mariadb or gtid == "anonymous" else gtid.split(":")[0]
        return MysqlGtidSet(), MariadbState(), uuid


class GeneratedStreamer(Streamer):
    """A dump of a generated stream (module docstring).

    Each write the writer's sink hands over (:meth:`_feed`) holds whole events (the writer
    writes events, groups and batches of groups whole; a partial tail would wait for the
    next write). Until the dump's start is reached, and while a GTID start filters or a
    ``--rate`` paces, every event is looked at (:meth:`_send_general`); after that the
    events are framed in one loop per write and sent with one ``sendall``
    (:meth:`_send_fast`, the rule of the files' fast path, dump_files.py).

    Size: the general path (filters, pacing) and the fast path frame the same writes and share
    the dump's state (position, heartbeats, the start point), so both are methods of one class.
    """

    def run(self) -> None:
        gb: GeneratedBinlogs = self.binlogs  # type: ignore[assignment]
        if gb.fmt.footer_size and not self.session.checksum_aware:
            raise DumpError(
                "Slave can not handle replication events with the checksum that master is configured to log"
            )
        run = gb.new_run()
        sink = StreamSink(self._begin_file, self._feed)
        writer = BinlogWriter(Path(os.devnull), gb.fmt, write_index=False, sink=sink, **run.writer_args())
        basename = writer.basename
        self._start_file = self.req.file or f"{basename}.000001"
        self._start_pos = max(4, self.req.pos) if self.req.file else 4
        self._reached = self.filter is not None or not self.req.file
        self._name: str | None = None
        self._offset = 4
        self._carry = b""
        # the plugin's run (generators/serve.py: generate's own steps, the batch engine)
        # writes into the sink, which hands each write to _feed
        run.generate(writer, lambda: sink.closed)
        writer.close()
        if self._carry:
            raise DecodeError("the generated stream ends inside an event", file=self._name, offset=self._offset)
        if not self.req.blocking:
            self.io.write(eof_packet())
            return
        self._idle()

    def _begin_file(self, name: str) -> None:
        self._name = name
        self._offset = 4
        self._reached = self._reached or name == self._start_file
        if self._reached:
            self._fake_rotate(self._pseudo_file(), self._start_pos if name == self._start_file else 4)

    def _fast(self) -> bool:
        """Whether the events from the current offset on go out unfiltered and unpaced."""
        return (self._reached and self._offset > 4 and self.pacer is None
                and (self.filter is None or not self.filter.active)
                and (self._name != self._start_file or self._offset >= self._start_pos))

    def _feed(self, data: Any) -> None:
        """Frame and send the complete events of ``data`` (after any partial tail kept); an
        :class:`EventRun` on the fast path at once (:func:`frame_events`)."""
        if isinstance(data, EventRun):
            if not self._carry and self._fast():
                framed = frame_events(data.data, data.lengths, self.io.seq,
                                      ANNOTATE_ROWS_EVENT if self.skip_annotate else None)
                if framed is not None:
                    out, self.io.seq, events, sent = framed
                    if events:
                        self.sock.sendall(out)
                    self._offset += len(data)
                    self.sent_events += events
                    self.sent_bytes += sent
                    return
            data = bytes(data.data)
        buf = self._carry + data if self._carry else data
        off = self._send_fast(buf) if self._fast() else self._send_general(buf)
        self._carry = buf[off:]

    def _send_fast(self, buf: bytes) -> int:
        """Every complete event of ``buf`` (framed by :func:`~binlogwriter.read.framing.frame_bounds`)
        in packets (``0x00`` + event; an event of 2^24-2 bytes or more over several,
        protocol.py), one ``sendall``; ANNOTATE_ROWS left out unless asked for. Returns the
        bytes consumed. The writes are small (a few events): packets are built in Python here,
        where the array form's set-up would cost more than it saves."""
        bounds = frame_bounds(buf, 0, len(buf), name=self._name, base=self._offset)
        skip = ANNOTATE_ROWS_EVENT if self.skip_annotate else -1
        mv = memoryview(buf)
        seq = self.io.seq
        parts: list = []
        ap = parts.append
        events = sent = 0
        a = 0
        for b in bounds[1:]:
            if buf[a + TYPE_AT] != skip:
                ln = b - a
                if ln + 1 < MAX_PAYLOAD:
                    ap(((ln + 1) | seq << 24).to_bytes(5, "little"))
                    ap(mv[a:b])
                    seq = (seq + 1) & 0xFF
                else:
                    packets, seq = frame(b"\x00" + buf[a:b], seq)
                    ap(packets)
                events += 1
                sent += ln
            a = b
        if parts:
            self.sock.sendall(b"".join(parts))
        self.io.seq = seq
        self._offset += a
        self.sent_events += events
        self.sent_bytes += sent
        return a

    def _send_general(self, buf: bytes) -> int:
        """Event by event: the start position, the FDE (IN_USE cleared), the GTID filter,
        ANNOTATE_ROWS and pacing; the fast path takes over once none of them is left
        (within the same write). Returns the bytes consumed."""
        fmt = self.binlogs.fmt
        pacer = self.pacer
        nb = len(buf)
        off = 0
        parts: list[bytes] = []
        nbytes = ntx = 0
        bounds = frame_bounds(buf, 0, nb, name=self._name, base=self._offset)
        for end in bounds[1:]:
            if self._fast():
                break
            ln = end - off
            ev = bytes(buf[off:end])
            at = self._offset
            self._offset += ln
            off = end
            t = ev[TYPE_AT]
            if t == FORMAT_DESCRIPTION_EVENT:
                ev = bytes(in_use_cleared(ev))
                if self._reached and (self._name != self._start_file or self._start_pos <= 4):
                    parts.append(ev)
                    self.fake_crc = fmt.footer_size == 4
                elif self._reached:
                    self._send_parts(parts)
                    parts = []
                    self._fde(self._pseudo_file(fde=ev), self._start_pos)
                continue
            if not self._reached or (self._name == self._start_file and at < self._start_pos):
                continue
            if self.filter is not None and self.filter.active and self.filter.skip(ev, fmt):
                continue
            if t == ANNOTATE_ROWS_EVENT and self.skip_annotate:
                continue
            if t in GTID_TYPES:
                ntx += 1
            parts.append(ev)
            nbytes += ln
            if pacer is not None and pacer.due(nbytes, ntx):
                self._send_parts(parts)
                parts = []
                pacer.wait(nbytes, ntx)
                nbytes = ntx = 0
        self._send_parts(parts)
        if pacer is not None and (nbytes or ntx):
            pacer.wait(nbytes, ntx)
        if off < nb and self._fast():
            off += self._send_fast(buf[off:])
        return off

    def _send_parts(self, events: list[bytes]) -> None:
        out = []
        seq = self.io.seq
        for ev in events:
            if len(ev) + 1 < MAX_PAYLOAD:
                out.append((len(ev) + 1 | seq << 24).to_bytes(4, "little") + b"\x00")
                out.append(ev)
                seq = (seq + 1) & 0xFF
            else:
                data, seq = frame(b"\x00" + ev, seq)
                out.append(data)
        if out:
            self.sock.sendall(b"".join(out))
        self.io.seq = seq
        self.sent_events += len(events)
        self.sent_bytes += sum(len(e) for e in events)

    def _pseudo_file(self, fde: bytes = b"") -> BinlogFile:
        fmt = self.binlogs.fmt
        return BinlogFile(self._name, Path(self._name), fmt, fde, self.binlogs.server_id)

    def _idle(self) -> None:
        f = self._pseudo_file()
        deadline = time.monotonic() + (self.heartbeat or 3600.0)
        while True:
            r, _, _ = select.select([self.sock], [], [], max(0.0, min(1.0, deadline - time.monotonic())))
            if r:
                try:
                    if not self.sock.recv(65536):
                        return
                except OSError:
                    return
            if time.monotonic() >= deadline:
                if self.heartbeat:
                    self._heartbeat(f, self._offset)
                deadline = time.monotonic() + (self.heartbeat or 3600.0)
