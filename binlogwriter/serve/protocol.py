"""MySQL client/server protocol packets (docs/serve.md "Protocol").

A packet is a 3-byte little-endian payload length, a 1-byte sequence id, then the payload. A
payload of 2^24-1 bytes or more is split into 2^24-1-byte packets followed by the remainder
(possibly empty), each with the next sequence id; the sequence restarts at 0 with every
command the client sends. Length-encoded integers and strings, OK / ERR / EOF packets and
text result sets (column count, column definitions, EOF, rows as length-encoded strings, EOF)
follow the MySQL protocol documentation ("Protocol::LengthEncodedInteger",
"Protocol::ColumnDefinition41", "Protocol::TextResultset").
"""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Iterable, Sequence

from binlogwriter.layouts.primitives import encode_packed_int

__all__ = [
    "MAX_PAYLOAD",
    "MAX_ALLOWED_PACKET",
    "LOGIN_MAX_PACKET",
    "LoginTimeout",
    "PacketTooLarge",
    "PacketIO",
    "ProtocolError",
    "lenenc_int",
    "lenenc_str",
    "ok_packet",
    "err_packet",
    "eof_packet",
    "result_set",
    "Capability",
    "SERVER_STATUS_AUTOCOMMIT",
]

MAX_PAYLOAD = 0xFFFFFF
SERVER_STATUS_AUTOCOMMIT = 0x0002


class Capability:
    """Capability flags (``CLIENT_*``) this server uses."""

    LONG_PASSWORD = 0x1
    FOUND_ROWS = 0x2
    LONG_FLAG = 0x4
    CONNECT_WITH_DB = 0x8
    NO_SCHEMA = 0x10
    ODBC = 0x40
    LOCAL_FILES = 0x80
    IGNORE_SPACE = 0x100
    PROTOCOL_41 = 0x200
    INTERACTIVE = 0x400
    SSL = 0x800
    TRANSACTIONS = 0x2000
    SECURE_CONNECTION = 0x8000
    MULTI_STATEMENTS = 0x10000
    MULTI_RESULTS = 0x20000
    PS_MULTI_RESULTS = 0x40000
    PLUGIN_AUTH = 0x80000
    CONNECT_ATTRS = 0x100000
    PLUGIN_AUTH_LENENC_DATA = 0x200000
    SESSION_TRACK = 0x800000
    DEPRECATE_EOF = 0x1000000


class ProtocolError(Exception):
    """The peer sent something that is not a well-formed packet or command."""


def lenenc_int(n: int) -> bytes:
    """The protocol's length-encoded integer: the binlog's packed integer (format.md §2)."""
    return encode_packed_int(n)


def lenenc_str(s: bytes | str) -> bytes:
    b = s.encode("utf-8") if isinstance(s, str) else s
    return lenenc_int(len(b)) + b


def read_lenenc_int(data: bytes, pos: int) -> tuple[int, int]:
    """(value, next position) of the length-encoded integer at ``pos``."""
    if pos >= len(data):
        raise ProtocolError("length-encoded integer past the end of the packet")
    first = data[pos]
    if first < 251:
        return first, pos + 1
    size = {0xFC: 2, 0xFD: 3, 0xFE: 8}.get(first)
    if size is None or pos + 1 + size > len(data):
        raise ProtocolError(f"bad length-encoded integer prefix 0x{first:02x}")
    return int.from_bytes(data[pos + 1 : pos + 1 + size], "little"), pos + 1 + size


def ok_packet(
    *, affected: int = 0, insert_id: int = 0, status: int = SERVER_STATUS_AUTOCOMMIT, warnings: int = 0
) -> bytes:
    return b"\x00" + lenenc_int(affected) + lenenc_int(insert_id) + struct.pack("<HH", status, warnings)


def err_packet(code: int, message: str, sql_state: str = "HY000") -> bytes:
    return (
        b"\xff"
        + struct.pack("<H", code)
        + b"#"
        + sql_state.encode("ascii")[:5].ljust(5, b"0")
        + message.encode("utf-8", "replace")
    )


def eof_packet(status: int = SERVER_STATUS_AUTOCOMMIT, warnings: int = 0) -> bytes:
    return b"\xfe" + struct.pack("<HH", warnings, status)


_TYPE_VAR_STRING = 0xFD
_TYPE_LONGLONG = 0x08
_UTF8MB4_GENERAL = 45
_BINARY = 63


def column_definition(name: str, *, numeric: bool = False, table: str = "", schema: str = "",
                      org_name: str | None = None, charset: int | None = None, length: int | None = None,
                      ctype: int | None = None, flags: int | None = None) -> bytes:
    """A ColumnDefinition41 for a text result column (VAR_STRING utf8mb4, or BIGINT); the
    keyword overrides give any other (a prepared statement's parameter: binary_protocol.py)."""
    d_charset, d_ctype, d_length = (
        (_BINARY, _TYPE_LONGLONG, 21) if numeric else (_UTF8MB4_GENERAL, _TYPE_VAR_STRING, 1024)
    )
    return (
        lenenc_str("def")
        + lenenc_str(schema)
        + lenenc_str(table)
        + lenenc_str(table)
        + lenenc_str(name)
        + lenenc_str(name if org_name is None else org_name)
        + b"\x0c"
        + struct.pack("<HIBHB", d_charset if charset is None else charset, d_length if length is None else length,
                      d_ctype if ctype is None else ctype,
                      (0x0001 if numeric else 0) if flags is None else flags, 0)
        + b"\x00\x00"
    )


def result_set(
    columns: Sequence[str], rows: Iterable[Sequence[object]], numeric: Sequence[bool] | None = None
) -> list[bytes]:
    """The payloads of a text result set: count, definitions, EOF, rows, EOF (values are
    rendered as text; None is NULL)."""
    numeric = numeric or [False] * len(columns)
    out = [lenenc_int(len(columns))]
    out += [column_definition(c, numeric=n) for c, n in zip(columns, numeric, strict=True)]
    out.append(eof_packet())
    for row in rows:
        out.append(
            b"".join(b"\xfb" if v is None else lenenc_str(v if isinstance(v, bytes) else str(v)) for v in row)
        )
    out.append(eof_packet())
    return out


def frame(payload: bytes, seq: int) -> tuple[bytes, int]:
    """``payload`` as one or more packets starting at sequence id ``seq``; returns the bytes
    and the next sequence id."""
    n = len(payload)
    if n < MAX_PAYLOAD:
        return struct.pack("<I", n | (seq << 24)) + payload, (seq + 1) & 0xFF
    parts = []
    pos = 0
    while True:
        chunk = payload[pos : pos + MAX_PAYLOAD]
        parts.append(struct.pack("<I", len(chunk) | (seq << 24)))
        parts.append(chunk)
        seq = (seq + 1) & 0xFF
        pos += len(chunk)
        if len(chunk) < MAX_PAYLOAD:
            break
    return b"".join(parts), seq


class PacketTooLarge(ProtocolError):
    """A packet longer than the limit in force (refused before any of it is read)."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"packet of at least {size} bytes, more than the {limit} allowed")
        self.size = size
        self.limit = limit


class LoginTimeout(TimeoutError):
    """The connection phase did not end before its deadline (``connect_timeout``)."""


# MariaDB's default max_allowed_packet (16 MiB): the largest command this server reads after
# login (replication clients send short queries and dump requests), reported as the variable.
MAX_ALLOWED_PACKET = 16 << 20
# The largest login packet a client can send: HandshakeResponse41's 32 fixed bytes, a user
# name, an auth response (at most 255 bytes, or length-encoded), a database and a plugin name
# (64 characters each), and connection attributes, which clients keep under 64 KiB.
LOGIN_MAX_PACKET = 1 << 17
_RECV_MAX = 1 << 20  # one recv() never asks for more than this: memory follows the bytes received


class PacketIO:
    """Packets over a blocking socket. ``seq`` is the next sequence id to send/expect.

    Every length is checked before anything is allocated for it: a packet whose header
    announces more than ``max_packet`` bytes (with the parts already joined) raises
    :class:`PacketTooLarge` without reading its payload, and the receive buffer grows by at most
    1 MiB per ``recv``. While ``deadline`` (a ``time.monotonic()`` value) is set, reads end
    with :class:`LoginTimeout` once it has passed, however slowly the peer trickles bytes.
    """

    def __init__(self, sock: socket.socket, *, max_packet: int = MAX_ALLOWED_PACKET) -> None:
        self.sock = sock
        self.seq = 0
        self.max_packet = max_packet
        self.deadline: float | None = None
        self._buf = bytearray()

    def _recv_exact(self, n: int) -> bytes:
        while len(self._buf) < n:
            if self.deadline is not None:
                left = self.deadline - time.monotonic()
                if left <= 0:
                    raise LoginTimeout("no complete login before the connect timeout")
                self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(min(_RECV_MAX, max(65536, n - len(self._buf))))
            except TimeoutError:
                if self.deadline is not None:
                    raise LoginTimeout("no complete login before the connect timeout") from None
                raise
            if not chunk:
                raise ConnectionResetError("client closed the connection")
            self._buf += chunk
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def read(self) -> bytes:
        """One logical payload (joining split packets); checks the sequence id."""
        payload = bytearray()
        while True:
            head = self._recv_exact(4)
            n = head[0] | head[1] << 8 | head[2] << 16
            if head[3] != self.seq:
                raise ProtocolError(f"packet sequence id {head[3]}, expected {self.seq}")
            self.seq = (self.seq + 1) & 0xFF
            if len(payload) + n > self.max_packet:
                raise PacketTooLarge(len(payload) + n, self.max_packet)
            payload += self._recv_exact(n)
            if n < MAX_PAYLOAD:
                return bytes(payload)

    def write(self, payload: bytes) -> None:
        data, self.seq = frame(payload, self.seq)
        self.sock.sendall(data)

    def write_many(self, payloads: Iterable[bytes]) -> None:
        parts = []
        for p in payloads:
            data, self.seq = frame(p, self.seq)
            parts.append(data)
        self.sock.sendall(b"".join(parts))

    def pending(self) -> int:
        """Bytes already received beyond the last packet read."""
        return len(self._buf)
