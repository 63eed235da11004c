"""BinlogReader: binlog files -> events with file name and offset (format.md §1, §3, §4).

A file is the magic, a FORMAT_DESCRIPTION_EVENT at offset 4 that sets the format of every
later event (checksum, post-header lengths), then events back to back. The reader verifies
each event's framing and CRC32 as it goes and raises a located :class:`DecodeError`
(``file:offset (TYPE)``) for a wrong magic, a truncated file, a too-short event or a bad
checksum. Files are streamed: memory does not grow with file size.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from binlogwriter.events import Event
from binlogwriter.format import BinlogFormat
from binlogwriter.layouts.header import FLAGS_AT, LOG_POS_AT, TYPE_AT
from binlogwriter.read.fastdecode import EventDecoder
from binlogwriter.read.framing import MAX_EVENT_SIZE, iter_frames
from binlogwriter.read.state import ReadState

if TYPE_CHECKING:
    from binlogwriter.read.changes import Change

__all__ = ["BinlogReader", "RawRecord", "iter_raw"]

@dataclass(frozen=True, slots=True)
class RawRecord:
    """One event's bytes as stored, with where it was and the format governing it."""

    file: str
    offset: int
    data: bytes
    fmt: BinlogFormat

    @property
    def type_code(self) -> int:
        return self.data[TYPE_AT]

    @property
    def log_pos(self) -> int:
        return int.from_bytes(self.data[LOG_POS_AT:FLAGS_AT], "little")


def iter_raw(path: str | os.PathLike, *, verify_checksum: bool = True,
             max_event_size: int = MAX_EVENT_SIZE) -> Iterator[RawRecord]:
    """Frame the events of one file (checking magic, lengths and the FDE) without decoding
    bodies other than the FDE's (:func:`binlogwriter.read.framing.iter_frames`). Checksums
    are checked by :func:`decode_event`. An event_length above ``max_event_size`` is a
    :class:`~binlogwriter.errors.LimitError` raised before the event is read."""
    name = os.fspath(path)
    for offset, data, fmt in iter_frames(path, verify_checksum=verify_checksum, check_crc=False,
                                         max_event_size=max_event_size):
        yield RawRecord(name, offset, data, fmt)


class BinlogReader:
    """Iterate the events of one or more binlog files, in order.

    >>> for ev in BinlogReader(["binlog.000001"]):           # doctest: +SKIP
    ...     print(ev.origin.offset, ev.type_name)

    ``schemas``: table definitions for what the Table_maps leave out (names, ENUM/SET
    members, MariaDB old temporal fsp): a ``{"db.table": Table}`` dict, ``Table`` objects,
    or a CREATE TABLE file. :meth:`changes` gives rows as named changes.

    ``start_position`` / ``stop_position`` select events whose offset is ≥ start and < stop
    (in every file, as mysqlbinlog does for a single file). ``verify_checksum`` checks each
    CRC32 footer. ``max_event_size`` (default 1 GiB, like the servers' largest
    ``max_allowed_packet``) bounds the event length the reader accepts: a longer one is a
    :class:`~binlogwriter.errors.LimitError` naming file:offset, raised before it is read.
    """

    def __init__(self, paths: Iterable[str | os.PathLike] | str | os.PathLike, *,
                 verify_checksum: bool = True, start_position: int | None = None,
                 stop_position: int | None = None, schemas: Any = None,
                 max_event_size: int = MAX_EVENT_SIZE) -> None:
        if isinstance(paths, str | os.PathLike):
            paths = [paths]
        self.paths = [Path(p) for p in paths]
        self.verify_checksum = verify_checksum
        self.start_position = start_position
        self.stop_position = stop_position
        self.fmt: BinlogFormat | None = None
        self.schemas = schemas
        self.max_event_size = max_event_size
        self.state = ReadState(schemas)
        self._decoder = EventDecoder()

    def records(self) -> Iterator[RawRecord]:
        """The records in the selected range (the format still follows every FDE, read or not)."""
        for p in self.paths:
            self.state = ReadState(self.schemas)
            for rec in iter_raw(p, verify_checksum=self.verify_checksum, max_event_size=self.max_event_size):
                self.fmt = rec.fmt
                if self.start_position is not None and rec.offset < self.start_position:
                    continue
                if self.stop_position is not None and rec.offset >= self.stop_position:
                    break
                yield rec

    def decode(self, rec: RawRecord) -> Event:
        """Decode one record; Table_maps are remembered so later rows events decode.

        Decoding goes through :class:`binlogwriter.read.fastdecode.EventDecoder`: the same
        events as :func:`decode_event`, with repeated bodies decoded once and rows read by
        the compiled row decoders."""
        ev = self._decoder.decode(rec.data, rec.fmt, file=rec.file, offset=rec.offset,
                                  verify_checksum=self.verify_checksum, columns_for=self.state.columns_for)
        self.state.observe(ev)
        return ev

    def changes(self) -> Iterator[Change]:
        """One :class:`~binlogwriter.read.changes.Change` per row change, in order: operation,
        database, table, ``before`` / ``after`` dicts keyed by column name (image columns
        only), GTID, XID, file, position, timestamp. Column names come from FULL metadata or
        ``schemas`` (``Table`` objects, a ``{"db.table": Table}`` dict, or a CREATE TABLE
        file); ColumnNamesError when neither has them."""
        from binlogwriter.read.changes import iter_changes

        return iter_changes(self.paths, schemas=self.schemas, verify_checksum=self.verify_checksum,
                            start_position=self.start_position, stop_position=self.stop_position,
                            max_event_size=self.max_event_size)

    def __iter__(self) -> Iterator[Event]:
        for rec in self.records():
            yield self.decode(rec)
