"""Common event header and file magic (format.md §1, §3): the one home of the 19-byte header's
layout (issue 30). :data:`Header` declares it; the readers' fast forms are derived from that
declaration here — :data:`HEADER_STRUCT` (every field, one ``unpack_from``),
:func:`header_struct` (some fields, the others skipped), and each field's offset by name
(``TYPE_AT`` ... ``FLAGS_AT``) for code that reads or patches one field of raw bytes."""

from __future__ import annotations

import struct

import construct as cs

__all__ = ["MAGIC", "HEADER_SIZE", "Header", "FLAG_IN_USE", "FLAG_IGNORABLE", "HEADER_STRUCT", "header_struct",
           "TIMESTAMP_AT", "TYPE_AT", "SERVER_ID_AT", "LENGTH_AT", "LOG_POS_AT", "FLAGS_AT"]

MAGIC = b"\xfebin"
"""offset 0 of every binlog file (BE: BIN_LOG_HEADER_SIZE = 4)."""

HEADER_SIZE = 19
FLAG_IN_USE = 0x0001
FLAG_THREAD_SPECIFIC = 0x0004
FLAG_SUPPRESS_USE = 0x0008
FLAG_ARTIFICIAL = 0x0020
FLAG_RELAY_LOG = 0x0040
FLAG_IGNORABLE = 0x0080

Header = cs.Struct(
    "timestamp" / cs.Int32ul,
    "type_code" / cs.Int8ul,
    "server_id" / cs.Int32ul,
    "event_length" / cs.Int32ul,
    "log_pos" / cs.Int32ul,
    "flags" / cs.Int16ul,
)
"""The 19-byte common header; ``log_pos`` is the offset of the next event (format.md §3)."""


_FIELDS = tuple((sc.name, sc.subcon.fmtstr[-1]) for sc in Header.subcons)  # (name, struct code), in order
_AT = {}
_at = 0
for _name, _code in _FIELDS:
    _AT[_name] = _at
    _at += struct.calcsize("<" + _code)
assert _at == HEADER_SIZE

HEADER_STRUCT = struct.Struct("<" + "".join(code for _, code in _FIELDS))
"""All six fields of :data:`Header` (timestamp, type_code, server_id, event_length, log_pos,
flags) in one ``unpack_from``."""

TIMESTAMP_AT, TYPE_AT, SERVER_ID_AT = _AT["timestamp"], _AT["type_code"], _AT["server_id"]
LENGTH_AT, LOG_POS_AT, FLAGS_AT = _AT["event_length"], _AT["log_pos"], _AT["flags"]
"""Each field's offset in the header (0, 4, 5, 9, 13, 17): a field's bytes run from its
offset to the next one's (``data[LENGTH_AT:LOG_POS_AT]``; the flags end at HEADER_SIZE)."""


def header_struct(*names: str) -> struct.Struct:
    """A Struct reading only the :data:`Header` fields ``names`` (in header order), the others
    skipped as padding: ``header_struct("type_code", "event_length", "log_pos")``."""
    fmt = "<"
    for name, code in _FIELDS:
        fmt += code if name in names else f"{struct.calcsize('<' + code)}x"
    unknown = set(names) - {n for n, _ in _FIELDS}
    if unknown:
        raise ValueError(f"not header fields: {sorted(unknown)}")
    return struct.Struct(fmt)
