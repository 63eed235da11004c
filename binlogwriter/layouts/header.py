"""Common event header and file magic (format.md §1, §3)."""

from __future__ import annotations

import construct as cs

__all__ = ["MAGIC", "HEADER_SIZE", "Header", "FLAG_IN_USE", "FLAG_IGNORABLE"]

MAGIC = b"\xfebin"
"""offset 0 of every binlog file (BE: BIN_LOG_HEADER_SIZE = 4)."""

HEADER_SIZE = 19
FLAG_IN_USE = 0x0001
FLAG_THREAD_SPECIFIC = 0x0004
FLAG_SUPPRESS_USE = 0x0008
FLAG_ARTIFICIAL = 0x0020
FLAG_RELAY_LOG = 0x0040
FLAG_IGNORABLE = 0x0080

Magic = cs.Const(MAGIC)

Header = cs.Struct(
    "timestamp" / cs.Int32ul,
    "type_code" / cs.Int8ul,
    "server_id" / cs.Int32ul,
    "event_length" / cs.Int32ul,
    "log_pos" / cs.Int32ul,
    "flags" / cs.Int16ul,
)
"""The 19-byte common header; ``log_pos`` is the offset of the next event (format.md §3)."""

Footer = cs.Int32ul
"""CRC32 footer: zlib.crc32 of the event without these 4 bytes (format.md §3)."""
