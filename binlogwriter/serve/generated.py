"""``serve --generate SPEC``: stream a generator run to each client, nothing on disk.

The run comes from a plugin (entry point ``binlogwriter.streams``, binlogwriter/plugins.py:
the generators package's ``generators/serve.py``): a :class:`StreamSource` for the spec, and
per dump a :class:`StreamRun` that writes its transactions into the writer given. Every dump
runs its own generation of the spec (deterministic: every client sees the same
bytes) into a :class:`~binlogwriter.writer.BinlogWriter` whose sink keeps the bytes in memory;
after each transaction the new complete events are framed and sent as from files (fake ROTATE
and FDE at each new file, the FDE with LOG_EVENT_BINLOG_IN_USE_F cleared). The run is endless,
or stops at ``--size`` bytes (or at the spec's own ``transactions`` / ``size`` when it names
one), ending the last file with STOP as a run on disk does; then a non-blocking dump ends and a
blocking one idles with heartbeats. Starting positions work as with files: the stream is
generated from the beginning and events before the requested file/position, or the
transactions a GTID start excludes, are not sent.

The server's identity (version, server id, checksum, GTID UUID) is the spec's; ``SHOW BINARY
LOGS`` / ``SHOW MASTER STATUS`` report the first file (a generated stream has no end to report).
"""

from __future__ import annotations

import os
import select
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from binlogwriter import plugins
from binlogwriter.format import BinlogFormat
from binlogwriter.serve.binlogs import BinlogFile
from binlogwriter.serve.dump import DumpError, Streamer
from binlogwriter.serve.gtid import MariadbState, MysqlGtidSet
from binlogwriter.serve.protocol import MAX_PAYLOAD, eof_packet, frame
from binlogwriter.writer import BinlogWriter

__all__ = ["GeneratedBinlogs", "GeneratedStreamer", "StreamRun", "StreamSource"]

_MAGIC = b"\xfebin"


class _MemorySink:
    """A :class:`~binlogwriter.writer.Sink` that keeps the bytes not yet sent, per file:
    ``segments`` = [[name, bytearray]] (every one but the last is complete)."""

    def __init__(self) -> None:
        self.segments: list[list] = []

    def open(self, name: str, offset: int) -> None:
        self.segments.append([name, bytearray()])

    def write(self, data: bytes) -> None:
        seg = self.segments[-1][1]
        if not seg and data == _MAGIC:
            return
        seg += data

    def set_final(self, pos: int, data: bytes) -> None:
        pass  # the FDE's IN_USE flag is cleared when sent

    def finish(self) -> Path:
        return Path(self.segments[-1][0])

    def suspend(self) -> None:
        pass

    def abort(self) -> None:
        self.segments.clear()


class StreamRun(Protocol):
    """One dump's generation: :meth:`writer_args` (BinlogWriter keyword arguments: basename,
    server_id, max_binlog_size, start_time, settings), :meth:`start` once the writer is open
    (the initial state; its DDL and rows when they go into the binlog), then
    :meth:`transaction` ``i`` for i = 0, 1, …"""

    def writer_args(self) -> dict[str, Any]: ...

    def start(self, writer: BinlogWriter) -> None: ...

    def transaction(self, writer: BinlogWriter, i: int) -> None: ...


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
    """A dump of a generated stream (module docstring)."""

    def run(self) -> None:
        gb: GeneratedBinlogs = self.binlogs  # type: ignore[assignment]
        if gb.fmt.footer_size and not self.session.checksum_aware:
            raise DumpError(
                "Slave can not handle replication events with the checksum that master is configured to log"
            )
        run = gb.new_run()
        sink = _MemorySink()
        # the plugin's run (generators/serve.py: the engine's own steps) drives the writer
        # transaction by transaction into an in-memory sink instead of files
        writer = BinlogWriter(Path(os.devnull), gb.fmt, write_index=False, sink=sink, **run.writer_args())
        basename = writer.basename
        self._start_file = self.req.file or f"{basename}.000001"
        self._start_pos = max(4, self.req.pos) if self.req.file else 4
        self._reached = self.filter is not None or not self.req.file
        self._sink = sink
        self._name: str | None = None
        self._file_index = 0
        self._offset = 4
        self._total = 0
        writer.open()
        run.start(writer)
        self._flush()
        i = 0
        while True:
            if gb.limit_transactions is not None and i >= gb.limit_transactions:
                break
            if gb.limit_size is not None and self._total >= gb.limit_size:
                break
            run.transaction(writer, i)
            i += 1
            self._flush()
        writer.close()
        self._flush()
        if not self.req.blocking:
            self.io.write(eof_packet())
            return
        self._idle()

    def _flush(self) -> None:
        """Frame and send the complete events the sink holds, file by file."""
        segments = self._sink.segments
        while segments:
            name, buf = segments[0]
            if name != self._name:
                self._begin_file(name)
            self._flush_segment(buf)
            if len(segments) == 1:
                return
            segments.pop(0)

    def _begin_file(self, name: str) -> None:
        self._name = name
        self._file_index += 1
        self._offset = 4
        self._total += 4  # the magic, as a file's size counts it
        self._reached = self._reached or name == self._start_file
        if self._reached:
            self._fake_rotate(self._pseudo_file(), self._start_pos if name == self._start_file else 4)

    def _flush_segment(self, buf: bytearray) -> None:
        fmt = self.binlogs.fmt
        off = 0
        nb = len(buf)
        parts: list = []
        ntx = 0
        while off + 19 <= nb:
            ln = int.from_bytes(buf[off + 9 : off + 13], "little")
            end = off + ln
            if end > nb:
                break
            ev = bytes(buf[off:end])
            at = self._offset
            self._offset += ln
            off = end
            t = ev[4]
            if t == 15:
                ev = ev[:17] + (int.from_bytes(ev[17:19], "little") & ~1).to_bytes(2, "little") + ev[19:]
                if self._reached and (self._name != self._start_file or self._start_pos <= 4):
                    parts.append(ev)
                    self.fake_crc = fmt.footer_size == 4
                elif self._reached:
                    self._fde(self._pseudo_file(fde=ev), self._start_pos)
                continue
            if not self._reached or (self._name == self._start_file and at < self._start_pos):
                continue
            if self.filter is not None and self.filter.active and self.filter.skip(ev, fmt):
                continue
            if t == 160 and self.skip_annotate:
                continue
            if t in (33, 34, 42, 162):
                ntx += 1
            parts.append(ev)
        del buf[:off]
        self._total += off
        self._send_parts(parts)
        if self.pacer is not None and parts:
            self.pacer.wait(sum(len(p) for p in parts), ntx)

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
