"""Lazy framing: events of a binlog file without decoding their bodies (format.md §1, §3, §4).

A file is the 4-byte magic, then events back to back; each starts with the 19-byte common
header whose ``event_length`` gives the next event's offset and whose ``log_pos`` is that
offset (0 inside relay logs and payloads). The FORMAT_DESCRIPTION_EVENT at offset 4 (and any
later one) sets the checksum algorithm: with CRC32 every event ends with the CRC32 of the
bytes before it. Only the FDE body is decoded here; everything else is length, log_pos and
CRC arithmetic.

CRC check without reading the footer: the CRC-32 of a message followed by its own CRC in
little-endian order is the constant residue ``0x2144DF1C`` (a property of the reflected
CRC-32 polynomial), so one ``zlib.crc32`` over the whole event checks it. An FDE still
flagged ``LOG_EVENT_BINLOG_IN_USE_F`` has its CRC computed with the flag cleared (format.md §3).

The file is memory-mapped, and the pages already read are released every 8 MB: memory
does not grow with file size. An ``event_length`` is checked before anything is read: below
the 19-byte header, beyond the bytes left in the file, or beyond ``max_event_size`` (1 GiB
by default — the servers' ``max_allowed_packet`` ceiling; configurable) is a located error.
"""

from __future__ import annotations

import mmap
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from binlogwriter.errors import ChecksumError, DecodeError, LimitError, TruncatedError, UnreadableFileError
from binlogwriter.format import BinlogFormat, EventType, type_name
from binlogwriter.layouts.header import HEADER_SIZE, MAGIC, TYPE_AT, header_struct

__all__ = ["CRC_RESIDUE", "MAX_EVENT_SIZE", "FileScan", "scan_file", "open_binlog", "iter_frames",
           "fde_format", "frame_bounds", "frame_error", "iter_blocks", "BLOCK", "whole_event"]

MAX_EVENT_SIZE = 1 << 30
"""Largest event_length accepted by default: 1 GiB, the largest ``max_allowed_packet`` (and
so the largest event) a MySQL or MariaDB server allows."""

CRC_RESIDUE = 0x2144DF1C
"""zlib.crc32(data + crc32(data).to_bytes(4, "little")) for any ``data``."""

_HEAD = header_struct("type_code", "event_length", "log_pos")
FDE = EventType.FORMAT_DESCRIPTION_EVENT
_BOOTSTRAP = BinlogFormat.mysql80()


_RELEASE = 8 << 20
"""Bytes read between two releases of the mapped pages already read."""


def _release(buf, start: int, upto: int) -> int:
    """Drop the pages of ``buf[start:upto]`` from this process (they stay in the page cache):
    the resident size of a scan stays flat however large the file is."""
    upto -= upto % mmap.PAGESIZE
    if upto > start and hasattr(buf, "madvise"):
        try:
            buf.madvise(mmap.MADV_DONTNEED, start, upto - start)
        except (OSError, ValueError, AttributeError):
            return upto
    return upto


class _Empty:
    """Stands in for the mapping of an empty file."""

    def __len__(self) -> int:
        return 0

    def __getitem__(self, k):  # noqa: ANN001
        return b""[k]

    def close(self) -> None:
        pass


def open_binlog(path: str | os.PathLike):
    """A read-only mapping of the file (an empty stand-in for an empty file).

    A path that cannot be opened raises :class:`UnreadableFileError` naming it."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size == 0:
                return _Empty()
            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise UnreadableFileError(f"cannot read binlog file: {exc.strerror or exc}",
                                  file=os.fspath(path), offset=0) from None


_FORMATS: dict[tuple[bytes, bool], BinlogFormat] = {}


def fde_format(data: bytes, name: str, offset: int, verify_checksum: bool = True) -> BinlogFormat:
    """The format declared by the FDE bytes ``data`` (decoded declaratively; CRC checked).
    A pure function of the bytes: the formats of FDEs already seen are remembered (the
    servers write the same FDE at the start of every file)."""
    from binlogwriter.events import FormatDescriptionEvent, decode_event

    key = (bytes(data), verify_checksum)
    fmt = _FORMATS.get(key)
    if fmt is not None:
        return fmt
    fde = decode_event(data, _BOOTSTRAP, file=name, offset=offset, verify_checksum=verify_checksum)
    if not isinstance(fde, FormatDescriptionEvent):
        raise DecodeError("FORMAT_DESCRIPTION_EVENT does not decode", file=name, offset=offset,
                          event_type="FORMAT_DESCRIPTION_EVENT")
    fmt = fde.to_format()
    if len(_FORMATS) >= 64:
        _FORMATS.clear()
    _FORMATS[key] = fmt
    return fmt


def _check_magic(buf, name: str) -> None:
    magic = bytes(buf[0:4])
    if len(magic) < 4:
        raise TruncatedError(f"file of {len(magic)} bytes has no binlog magic", file=name, offset=0)
    if magic != MAGIC:
        raise DecodeError(f"not a binlog file: magic {magic.hex()} (expected fe62696e)", file=name, offset=0)


def no_events_error(name: str) -> TruncatedError:
    """A file holding the magic alone. A server writes the FDE right after the magic
    (docs/format.md §4), so this is a cut file, not an empty log: ``verify`` fails it and
    ``inspect`` stops on it with the same located error (mariadb-binlog lists nothing and
    exits 0, which hides the cut)."""
    return TruncatedError("file holds no events: FORMAT_DESCRIPTION_EVENT missing after the magic",
                          file=name, offset=4)


def _bad_frame(buf, name: str, pos: int, n: int, max_event_size: int = MAX_EVENT_SIZE) -> DecodeError | None:
    """The framing error at ``pos`` (header cut, length below the header or above the limit,
    event cut), if any."""
    if pos + HEADER_SIZE > n:
        return TruncatedError(f"file ends inside an event header ({n - pos} of {HEADER_SIZE} bytes)",
                              file=name, offset=pos)
    tcode, length, _ = _HEAD.unpack_from(buf, pos)
    if length < HEADER_SIZE:
        return DecodeError(f"event_length {length} is shorter than the {HEADER_SIZE}-byte header",
                           file=name, offset=pos, event_type=type_name(tcode))
    if length > max_event_size:
        return LimitError(f"event_length {length} is beyond the {max_event_size}-byte maximum event size",
                          file=name, offset=pos, event_type=type_name(tcode))
    if pos + length > n:
        return TruncatedError(f"file ends inside an event: event_length {length}, {n - pos} bytes left",
                              file=name, offset=pos, event_type=type_name(tcode))
    return None


def _crc_error(buf, name: str, pos: int, end: int) -> ChecksumError | DecodeError:
    tcode = buf[pos + TYPE_AT]
    if end - pos < HEADER_SIZE + 4:
        return TruncatedError("event too short for its checksum", file=name, offset=pos,
                              event_type=type_name(tcode))
    stored = int.from_bytes(buf[end - 4:end], "little")
    actual = zlib.crc32(buf[pos:end - 4])
    return ChecksumError(f"CRC32 mismatch: stored 0x{stored:08x}, computed 0x{actual:08x}",
                         file=name, offset=pos, event_type=type_name(tcode))


@dataclass
class FileScan:
    """What :func:`scan_file` found: events framed, and every failure (``file:offset``)."""

    file: str
    events: int = 0
    bytes: int = 0
    failures: list[str] | None = None


def scan_file(path: str | os.PathLike, *, verify_checksum: bool = True, max_failures: int = 100,
              max_event_size: int = MAX_EVENT_SIZE) -> FileScan:
    """Check one file's framing, log_pos chain and every CRC32 without decoding bodies.

    Stops at the first framing error (the rest of the file cannot be located); log_pos and
    CRC failures are collected (up to ``max_failures``) and the scan goes on.
    """
    name = os.fspath(path)
    res = FileScan(name, failures=[])
    fails = res.failures
    assert fails is not None
    buf = open_binlog(path)
    try:
        n = len(buf)
        res.bytes = n
        try:
            _check_magic(buf, name)
        except DecodeError as exc:
            fails.append(str(exc))
            return res
        mv = memoryview(buf) if n else b""
        unpack = _HEAD.unpack_from
        crc32 = zlib.crc32
        residue = CRC_RESIDUE
        pos = 4
        released = 0
        events = 0
        crc = False
        limit = n - HEADER_SIZE
        try:
            while pos <= limit:
                tcode, length, log_pos = unpack(buf, pos)
                end = pos + length
                if length < HEADER_SIZE or end > n or length > max_event_size:
                    break
                if tcode == FDE or events == 0:
                    if tcode != FDE:
                        fails.append(str(DecodeError(f"first event is {type_name(tcode)}, expected "
                                                     "FORMAT_DESCRIPTION_EVENT", file=name, offset=pos,
                                                     event_type=type_name(tcode))))
                        return res
                    try:
                        fmt = fde_format(bytes(buf[pos:end]), name, pos, verify_checksum)
                    except DecodeError as exc:
                        fails.append(str(exc))
                        return res
                    crc = verify_checksum and fmt.footer_size == 4
                elif crc and crc32(mv[pos:end]) != residue:
                    fails.append(str(_crc_error(buf, name, pos, end)))
                if log_pos != end and log_pos != 0:
                    fails.append(f"log_pos {log_pos} != offset + event_length {end} - at {name}:{pos}")
                events += 1
                pos = end
                if pos >= released + _RELEASE:
                    released = _release(buf, released, pos)
                if len(fails) >= max_failures:
                    break
            if pos < n and len(fails) < max_failures:
                err = _bad_frame(buf, name, pos, n, max_event_size)
                if err is not None:
                    fails.append(str(err))
            elif events == 0:
                fails.append(str(no_events_error(name)))
        finally:
            res.events = events
            del mv
    finally:
        buf.close()
    return res


def iter_frames(path: str | os.PathLike, *, verify_checksum: bool = True, check_crc: bool = True,
                max_event_size: int = MAX_EVENT_SIZE,
                skip: frozenset[int] = frozenset()) -> Iterator[tuple[int, bytes, BinlogFormat]]:
    """(offset, event bytes, format) of every event, raising a located DecodeError at the first
    framing (or, with ``check_crc``, checksum) error. Bodies are not decoded (except FDEs).
    Events of a type in ``skip`` (never the FDE) are framed and checked the same, but not
    yielded: a reader that ignores them does not pay for their bytes (the export, issue 30)."""
    name = os.fspath(path)
    buf = open_binlog(path)
    try:
        n = len(buf)
        _check_magic(buf, name)
        mv = memoryview(buf) if n else b""
        unpack = _HEAD.unpack_from
        crc32 = zlib.crc32
        residue = CRC_RESIDUE
        pos = 4
        released, release_at = 0, _RELEASE
        fmt: BinlogFormat | None = None
        crc = False
        header, last = HEADER_SIZE, n - HEADER_SIZE  # module constants as locals: read once per event
        try:
            while pos < n:
                if pos > last:
                    raise _bad_frame(buf, name, pos, n)  # type: ignore[misc]
                tcode, length, _ = unpack(buf, pos)
                end = pos + length
                if length < header or end > n or length > max_event_size:
                    raise _bad_frame(buf, name, pos, n, max_event_size)  # type: ignore[misc]
                if tcode in skip and fmt is not None:  # checked, not yielded
                    if crc and crc32(mv[pos:end]) != residue:
                        raise _crc_error(buf, name, pos, end)
                else:
                    data = buf[pos:end]
                    if fmt is None or tcode == FDE:
                        if tcode != FDE:
                            raise DecodeError(f"first event is {type_name(tcode)}, expected FORMAT_DESCRIPTION_EVENT",
                                              file=name, offset=pos, event_type=type_name(tcode))
                        fmt = fde_format(data, name, pos, verify_checksum)
                        crc = check_crc and verify_checksum and fmt.footer_size == 4
                    elif crc and crc32(data) != residue:  # the bytes copied already, not another view
                        raise _crc_error(buf, name, pos, end)
                    yield pos, data, fmt
                pos = end
                if pos >= release_at:
                    released = _release(buf, released, pos)
                    release_at = released + _RELEASE
        finally:
            del mv
    finally:
        buf.close()


# --------------------------------------------------------------------------- buffers and growing files

_LENGTH = header_struct("event_length")
BLOCK = 1 << 20
"""Bytes :func:`iter_blocks` reads at a time."""


def frame_error(buf, name: str, pos: int, n: int, base: int = 0,
                max_event_size: int = MAX_EVENT_SIZE) -> DecodeError | None:
    """The framing error of the event at ``buf[pos:n]`` (header cut, event_length below the
    header or above ``max_event_size``, event cut) located at file offset ``base + pos``, or
    None: the rule :func:`iter_frames` applies, for a buffer that holds part of a file."""
    err = _bad_frame(buf, name, pos, n, max_event_size)
    if err is None or not base:
        return err
    return type(err)(err.reason, file=name, offset=base + pos, event_type=err.event_type)


def frame_bounds(buf, pos: int, n: int, *, name: str = "?", base: int = 0,
                 max_event_size: int = MAX_EVENT_SIZE) -> list[int]:
    """``[pos, end of event 1, end of event 2, …]``: the complete events of ``buf[pos:n]``,
    each ``event_length`` giving where the next one starts (format.md §3).

    An event (or header) cut at ``n`` ends the list without an error: the caller holds part
    of a file — a block, a file still being written — and reads on from the last bound. An
    event_length below the header or above ``max_event_size`` is the located error of
    :func:`frame_error` (file offset ``base`` + position in ``buf``)."""
    unpack = _LENGTH.unpack_from
    bounds = [pos]
    add = bounds.append
    last = n - HEADER_SIZE
    while pos <= last:
        end = pos + unpack(buf, pos)[0]
        if end - pos < HEADER_SIZE or end - pos > max_event_size:
            raise frame_error(buf, name, pos, n, base, max_event_size)  # type: ignore[misc]
        if end > n:
            break
        add(end)
        pos = end
    return bounds


def iter_blocks(fh: BinaryIO, start: int, *, name: str = "?", end: int | None = None, block: int = BLOCK,
                max_event_size: int = MAX_EVENT_SIZE) -> Iterator[tuple[int, bytes, list[int]]]:
    """``(base, buf, bounds)`` for the events of the open file ``fh`` from the event boundary
    ``start``, read about ``block`` bytes at a time: ``buf`` holds the file from offset ``base``
    and event i is ``buf[bounds[i]:bounds[i+1]]`` (:func:`frame_bounds`; ``len(bounds) >= 2``).

    Stops at ``end`` (an event boundary) or where the data present ends: a file still being
    written may end inside an event, which is left unread (read it again from the last
    ``base + bounds[-1]``). An event larger than ``block`` is read whole, never more than the
    file holds (a length read from the file is not trusted). tests/serve/test_framing.py
    proves the blocks frame a file as :func:`iter_frames` does."""
    pos = start
    fh.seek(pos)
    carry = b""
    while end is None or pos < end:
        want = block if end is None else min(block, end - pos - len(carry))
        data = fh.read(want) if want > 0 else b""
        if not data and not carry:
            return
        buf = carry + data if carry else data
        n = len(buf)
        bounds = frame_bounds(buf, 0, n, name=name, base=pos, max_event_size=max_event_size)
        if len(bounds) == 1:
            if not data:  # the data present ends inside an event
                return
            if n < HEADER_SIZE:
                carry = buf
                continue
            ln = _LENGTH.unpack_from(buf, 0)[0]  # one event larger than the block: the rest at once
            buf += fh.read(min(ln - n, max(0, os.fstat(fh.fileno()).st_size - fh.tell())))
            if len(buf) < ln:
                return
            bounds.append(ln)
        yield pos, buf, bounds
        pos += bounds[-1]
        carry = buf[bounds[-1]:]


def whole_event(data) -> bool:
    """Whether ``data`` is one event by its own header: at least the 19-byte header, and
    its ``event_length`` is ``len(data)`` (what :func:`iter_frames` yields always is)."""
    return len(data) >= HEADER_SIZE and _LENGTH.unpack_from(data)[0] == len(data)

