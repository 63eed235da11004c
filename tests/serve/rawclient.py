"""A raw MySQL protocol client for what no well-behaved client sends (tests of ``serve``).

Packets are written by hand from the protocol documentation ("Protocol::HandshakeResponse41",
"COM_BINLOG_DUMP"); scrambles come from PyMySQL's own functions. Every read has a timeout, so
a test never waits on a server that does not answer. Connections go to 127.0.0.1 only.
"""

from __future__ import annotations

import socket
import struct

from pymysql import _auth

HOST = "127.0.0.1"
_SCRAMBLE = {
    "mysql_native_password": _auth.scramble_native_password,
    "caching_sha2_password": _auth.scramble_caching_sha2,
}


def connect(port: int, timeout: float = 10.0) -> socket.socket:
    return socket.create_connection((HOST, port), timeout=timeout)


def read_packet(sock: socket.socket) -> bytes:
    """One packet's payload (b"" when the server closed the connection first)."""
    head = b""
    while len(head) < 4:
        chunk = sock.recv(4 - len(head))
        if not chunk:
            return b""
        head += chunk
    n = int.from_bytes(head[:3], "little")
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


def packet(payload: bytes, seq: int) -> bytes:
    return struct.pack("<I", len(payload) | (seq << 24)) + payload


def nonce(greeting: bytes) -> bytes:
    """The 20-byte scramble of a Handshake v10."""
    end = greeting.index(b"\0", 1)
    p = end + 1 + 4
    part1 = greeting[p : p + 8]
    p += 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10
    return part1 + greeting[p : p + 12]


def plugin_of(greeting: bytes) -> str:
    return greeting.rstrip(b"\0").rsplit(b"\0", 1)[-1].decode()


def response(user: str, auth: bytes, plugin: str) -> bytes:
    """HandshakeResponse41 (PROTOCOL_41, SECURE_CONNECTION, PLUGIN_AUTH, LENENC auth data)."""
    caps = 0x0200 | 0x8000 | 0x80000 | 0x200000
    body = (
        struct.pack("<IIB", caps, 1 << 24, 45)
        + b"\0" * 23
        + user.encode()
        + b"\0"
        + bytes((len(auth),))
        + auth
        + plugin.encode()
        + b"\0"
    )
    return packet(body, 1)


def login(port: int, user: str, password: str, timeout: float = 10.0) -> socket.socket:
    """A logged-in connection (AssertionError if the server refuses it)."""
    s = connect(port, timeout)
    g = read_packet(s)
    plugin = plugin_of(g)
    s.sendall(response(user, _SCRAMBLE[plugin](password.encode(), nonce(g)), plugin))
    reply = read_packet(s)
    if reply == b"\x01\x03":  # caching_sha2_password fast path
        reply = read_packet(s)
    assert reply[:1] == b"\x00", reply
    return s


def query(sock: socket.socket, sql: str) -> list[bytes]:
    """COM_QUERY; the payloads of the answer (up to the result set's final EOF, or one packet)."""
    sock.sendall(packet(b"\x03" + sql.encode(), 0))
    first = read_packet(sock)
    if first[:1] in (b"\x00", b"\xff"):
        return [first]
    out = [first]
    eofs = 0
    while eofs < 2:
        p = read_packet(sock)
        if not p:
            break
        out.append(p)
        if p[:1] == b"\xfe" and len(p) < 9:
            eofs += 1
    return out


def binlog_dump(sock: socket.socket, file: str, pos: int, *, flags: int = 1, server_id: int = 99) -> None:
    """COM_BINLOG_DUMP (flags 1: non-blocking)."""
    sock.sendall(packet(b"\x12" + struct.pack("<IHI", pos, flags, server_id) + file.encode(), 0))


def err_of(payload: bytes) -> tuple[int, str]:
    """(code, message) of an ERR packet."""
    assert payload[:1] == b"\xff", payload[:40]
    return int.from_bytes(payload[1:3], "little"), payload[9:].decode("utf-8", "replace")
