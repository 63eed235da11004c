"""``verify --roundtrip``: every event decoded and re-encoded must give its bytes back.

:class:`Roundtrip` does what ``encode_event(decode_event(data)) == data`` does, faster and
with the same verdicts:

* an event whose (format, type, body) was already checked is not re-encoded again: encoding
  and decoding are pure functions of those, and the common header's six integer fields
  re-encode to themselves (format.md §3), so the verdict is the same;
* a rows event's row images are re-encoded by the row codecs (``encode_row_image``, what the
  declarative layout calls per row) and the event around them by ``encode_event``;
  compressed and partial-update rows events take the declarative path whole.
"""

from __future__ import annotations

import copy
from typing import Any

from binlogwriter.errors import BinlogError, DecodeError
from binlogwriter.events import encode_event
from binlogwriter.format import PARTIAL_UPDATE_ROWS_EVENT, BinlogFormat
from binlogwriter.layouts.header import HEADER_SIZE, TYPE_AT
from binlogwriter.layouts.rows import COMPRESSED_TYPES, ROWS_TYPES, UPDATE_TYPES
from binlogwriter.read.fastdecode import CACHED_TYPES
from binlogwriter.values.row import row_codec

__all__ = ["Roundtrip", "reencode"]

_ROWS_PLAIN = frozenset(ROWS_TYPES) - {PARTIAL_UPDATE_ROWS_EVENT} - frozenset(COMPRESSED_TYPES)


def _rows_raw(ev: Any) -> bytes:
    """The row images of a decoded rows event, encoded again (format.md §13)."""
    codec = row_codec(ev.columns)
    pads = ev.null_pads or [None] * len(ev.rows)
    dflt = ev.default_null_pad
    out = bytearray()
    if ev.type_code in UPDATE_TYPES:
        for (b, a), pad in zip(ev.rows, pads, strict=True):
            pb, pa = pad if pad is not None else (dflt, dflt)
            out += codec.encode(ev.columns_present, b, pb)
            out += codec.encode(ev.columns_after, a, pa)
    else:
        for row, pad in zip(ev.rows, pads, strict=True):
            out += codec.encode(ev.columns_present, row, dflt if pad is None else pad)
    return bytes(out)


def reencode(ev: Any, fmt: BinlogFormat) -> bytes:
    """``encode_event(ev, fmt)``, with decoded rows events re-encoded through the row codecs."""
    t = ev.type_code
    if (t in _ROWS_PLAIN and ev.rows is not None and ev.rows_raw is None and ev.columns is not None
            and not ev.post_header_extra and not ev.unparsed):
        c = copy.copy(ev)
        c.rows_raw = _rows_raw(ev)
        c.rows = None
        return encode_event(c, fmt)
    return encode_event(ev, fmt)


class Roundtrip:
    """Checks events of one reader; ``check(ev, rec) -> None | re-encoded bytes that differ``."""

    def __init__(self) -> None:
        self._ok: set[tuple] = set()

    def check(self, ev: Any, data: bytes, fmt: BinlogFormat) -> bytes | None:
        t = data[TYPE_AT]
        key = None
        if t in CACHED_TYPES:
            key = (fmt, t, data[HEADER_SIZE:len(data) - fmt.footer_size])
            if key in self._ok:
                return None
        try:
            again = reencode(ev, fmt) if t not in COMPRESSED_TYPES else encode_event(ev, fmt)
        except BinlogError as exc:  # a decoded value that does not encode: say which event
            o = ev.origin
            raise DecodeError(f"decoded {ev.type_name} does not re-encode: {exc}",
                              file=o.file if o else None, offset=o.offset if o else None,
                              event_type=ev.type_name) from None
        if again != data:
            return again
        if key is not None:
            if len(self._ok) > 8192:
                self._ok.clear()
            self._ok.add(key)
        return None
