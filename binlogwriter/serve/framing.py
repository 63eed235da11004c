"""Raw events of a binlog file in large chunks: the serving fast path (format.md §1, §18.1).

Every event starts with the 19-byte common header whose ``event_length`` (bytes 9..12) gives
where the next one starts; nothing else is decoded. :func:`chunks` reads a file from an event
boundary in blocks of about ``block`` bytes and yields each block with the offsets of the
complete events in it, so a sender touches each event once with a few integer operations.
A file still being written (``--follow``) may end inside an event: the partial tail is not
yielded and is read again on the next call. The declarative path is
:func:`binlogwriter.reader.iter_raw`; tests/serve/test_framing.py proves both frame a file
identically.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import BinaryIO

from binlogwriter.errors import DecodeError
from binlogwriter.format import type_name
from binlogwriter.layouts.header import HEADER_SIZE, LENGTH_AT, LOG_POS_AT, TYPE_AT

__all__ = ["chunks", "BLOCK", "MAX_EVENT_LENGTH", "length_error"]

BLOCK = 1 << 20
# The longest event a server's dump thread reads (MAX_MAX_ALLOWED_PACKET, 1 GiB): a longer
# event_length is an error, never an allocation.
MAX_EVENT_LENGTH = 1 << 30


def chunks(
    fh: BinaryIO, start: int, *, name: str = "?", end: int | None = None, block: int = BLOCK
) -> Iterator[tuple[int, bytes, list[int]]]:
    """Yield ``(base, buf, bounds)``: ``buf`` holds the file bytes from offset ``base``;
    event i is ``buf[bounds[i]:bounds[i+1]]`` (``len(bounds) >= 2``). Stops at ``end`` (an event
    boundary) or at the end of the data present, leaving a partial event unread."""
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
        bounds = [0]
        off = 0
        while off + HEADER_SIZE <= n:
            ln = int.from_bytes(buf[off + LENGTH_AT : off + LOG_POS_AT], "little")
            if not HEADER_SIZE <= ln <= MAX_EVENT_LENGTH:
                raise DecodeError(
                    length_error(ln),
                    file=name,
                    offset=pos + off,
                    event_type=type_name(buf[off + TYPE_AT]),
                )
            if off + ln > n:
                break
            off += ln
            bounds.append(off)
        if off == 0:
            if not data:  # the data present ends inside an event
                return
            if n >= HEADER_SIZE:  # one event larger than the block: read the rest of it at once
                ln = int.from_bytes(buf[LENGTH_AT:LOG_POS_AT], "little")  # in range: checked above
                # never more than the file holds: a length read from the file is not trusted
                rest = fh.read(min(ln - n, _left(fh)))
                buf += rest
                if len(buf) < ln:
                    return
                bounds.append(ln)
                off = ln
            else:
                carry = buf
                continue
        yield pos, buf, bounds
        pos += off
        carry = buf[off:]


def length_error(ln: int) -> str:
    """Why ``ln`` cannot be an event_length (shorter than the header, or over the limit)."""
    if ln < HEADER_SIZE:
        return f"event_length {ln} is shorter than the {HEADER_SIZE}-byte header"
    return f"event_length {ln} is over the {MAX_EVENT_LENGTH}-byte limit"


def _left(fh: BinaryIO) -> int:
    """Bytes from the current position to the end of ``fh``."""
    here = fh.tell()
    end = fh.seek(0, io.SEEK_END)
    fh.seek(here)
    return max(0, end - here)
