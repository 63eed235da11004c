"""MySQL 8 compressed transactions: TRANSACTION_PAYLOAD_EVENT (40), format.md §15.

The payload is a zstd stream (standard frame, streaming: no content size) of the
transaction's events after its GTID — ``QUERY BEGIN · TABLE_MAP … · ROWS … · XID`` —
encoded without CRC footers and with ``log_pos`` 0. Header fields are written in the
servers' order: COMPRESSION_TYPE (2), UNCOMPRESSED_SIZE (3), PAYLOAD_SIZE (1), END (0).
Re-compressing never reproduces a server's bytes (the vector note in format.md §15), so a
decoded payload event keeps its compressed bytes; :func:`inner_events` decodes them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import zstandard

from binlogwriter.errors import DecodeError, LimitError
from binlogwriter.events import Event, TransactionPayloadEvent, decode_event
from binlogwriter.format import BinlogFormat
from binlogwriter.read.framing import frame_bounds, frame_error
from binlogwriter.read.state import ReadState

__all__ = ["compress_transaction", "inner_events", "inner_event_bytes", "PAYLOAD_SIZE",
           "COMPRESSION_TYPE", "UNCOMPRESSED_SIZE", "ZSTD", "NONE"]

PAYLOAD_SIZE = 1
COMPRESSION_TYPE = 2
UNCOMPRESSED_SIZE = 3
ZSTD = 0
NONE = 255
MAX_UNCOMPRESSED = 1 << 30
"""Largest decompressed payload accepted (1 GiB, the servers' largest event)."""
_CHUNK = 1 << 20


def compress_transaction(events: list[Event], fmt: BinlogFormat, *, level: int = 3,
                         timestamp: int | None = None, server_id: int | None = None) -> TransactionPayloadEvent:
    """One TRANSACTION_PAYLOAD event holding ``events`` (everything after the GTID)."""
    from binlogwriter.batch import encode_events

    raw = encode_events(events, fmt, timestamp=timestamp or 0, footer=False, log_pos_zero=True)
    comp = zstandard.ZstdCompressor(level=level, write_content_size=False,
                                    write_checksum=False).compress(raw)
    kw: dict[str, Any] = {}
    if server_id is not None:
        kw["server_id"] = server_id
    return TransactionPayloadEvent(
        header_fields=[(COMPRESSION_TYPE, ZSTD), (UNCOMPRESSED_SIZE, len(raw)), (PAYLOAD_SIZE, len(comp))],
        payload=comp, **kw)


def inner_event_bytes(event: TransactionPayloadEvent, *, max_size: int = MAX_UNCOMPRESSED) -> bytes:
    """The decompressed payload: inner events back to back.

    The header's UNCOMPRESSED_SIZE is checked against ``max_size`` before anything is
    decompressed, and decompression is streamed in 1 MiB chunks up to that declared size
    (plus one byte to notice a stream that holds more): the declared size is never trusted
    for an allocation, and a zstd bomb costs at most what it declares. Errors are located
    at the payload event (file:offset)."""
    fields = dict(event.header_fields)
    ctype = fields.get(COMPRESSION_TYPE, ZSTD)
    if ctype == NONE:
        return bytes(event.payload)
    if ctype != ZSTD:
        raise _located(DecodeError(f"unknown compression type {ctype}"), event)
    size = fields.get(UNCOMPRESSED_SIZE)
    if size is not None and size > max_size:
        raise _located(LimitError(f"payload declares {size} uncompressed bytes, more than the "
                                  f"{max_size}-byte limit"), event)
    want = (max_size if size is None else size) + 1
    out = bytearray()
    try:
        dctx = zstandard.ZstdDecompressor()
        with dctx.stream_reader(event.payload) as reader:
            while len(out) < want:
                chunk = reader.read(min(_CHUNK, want - len(out)))
                if not chunk:
                    break
                out += chunk
    except zstandard.ZstdError as exc:
        raise _located(DecodeError(f"corrupt zstd payload: {exc}"), event) from None
    if size is None and len(out) > max_size:
        raise _located(LimitError(f"payload decompresses to more than the {max_size}-byte limit"), event)
    if size is not None and len(out) != size:
        more = " or more" if len(out) > size else ""
        raise _located(DecodeError(f"payload decompressed to {len(out)}{more} bytes, header says {size}"),
                       event)
    return bytes(out)


def _located(exc: DecodeError, event: Event) -> DecodeError:
    where = event.origin
    return exc.located(file=where and where.file, offset=where and where.offset,
                       event_type="TRANSACTION_PAYLOAD_EVENT")


def inner_events(event: TransactionPayloadEvent, fmt: BinlogFormat, *,
                 state: ReadState | None = None) -> Iterator[tuple[int, bytes, Event]]:
    """Yield (offset in payload, bytes, event) for each inner event (no footer, log_pos 0).

    The payload holds a whole transaction, its Table_maps included: they are remembered in
    ``state`` (a fresh :class:`ReadState` by default) so the rows events after them decode."""
    state = ReadState() if state is None else state
    data = inner_event_bytes(event)
    where = event.origin
    file = where and where.file
    offset = where and where.offset
    try:  # the one framing rule (read/framing.py), located in the payload
        bounds = frame_bounds(data, 0, len(data), name=file or "?")
        if bounds[-1] != len(data):
            raise frame_error(data, file or "?", bounds[-1], len(data))  # type: ignore[misc]
    except DecodeError as exc:
        raise type(exc)(exc.reason.replace("file ends", "payload ends"), file=file, offset=offset,
                        event_type="TRANSACTION_PAYLOAD_EVENT", path=f"payload byte {exc.offset}") from None
    for pos, end in zip(bounds, bounds[1:]):  # noqa: B905 (one shorter)
        chunk = data[pos:end]
        try:
            ev = decode_event(chunk, fmt, footer=False, columns_for=state.columns_for, file=file,
                              offset=offset)
        except DecodeError as exc:
            path = f"payload byte {pos}" + (f" -> {exc.path}" if exc.path else "")
            raise type(exc)(exc.reason, file=file, offset=offset,
                            event_type=f"{exc.event_type or '?'} in TRANSACTION_PAYLOAD_EVENT",
                            path=path) from None
        state.observe(ev)
        yield pos, chunk, ev
