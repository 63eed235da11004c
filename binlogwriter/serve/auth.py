"""Connection phase: Handshake v10, HandshakeResponse41, password plugins (docs/serve.md "Auth").

``mysql_native_password``: the client sends SHA1(pw) XOR SHA1(scramble + SHA1(SHA1(pw))).
``caching_sha2_password``: the client sends SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + scramble).
The server knows the password in clear text, so it can always check the caching_sha2 scramble
itself: every successful login takes the *fast path* (AuthMoreData 0x03, then OK), and full
authentication (which over plain TCP needs an RSA key exchange) is never requested. A client
that nonetheless sends a public-key request (0x02) instead of its scramble fails as a wrong
password (this server has no RSA key pair: see docs/serve.md).

A client answering with the other plugin than the one the user is configured with gets an
AuthSwitchRequest, as a real server does; wrong credentials get ERR 1045 (28000).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import struct
from dataclasses import dataclass, field

from binlogwriter.serve.protocol import (
    SERVER_STATUS_AUTOCOMMIT,
    Capability,
    PacketIO,
    ProtocolError,
    err_packet,
    ok_packet,
    read_lenenc_int,
)

__all__ = [
    "NATIVE",
    "CACHING_SHA2",
    "SERVER_CAPABILITIES",
    "ClientHello",
    "Credentials",
    "authenticate",
    "native_scramble",
    "sha2_scramble",
]

NATIVE = "mysql_native_password"
CACHING_SHA2 = "caching_sha2_password"
PLUGINS = (NATIVE, CACHING_SHA2)

ER_ACCESS_DENIED = 1045
ER_HANDSHAKE = 1043
ER_NOT_SUPPORTED_AUTH_MODE = 1251

SERVER_CAPABILITIES = (
    Capability.LONG_PASSWORD
    | Capability.FOUND_ROWS
    | Capability.LONG_FLAG
    | Capability.CONNECT_WITH_DB
    | Capability.NO_SCHEMA
    | Capability.ODBC
    | Capability.IGNORE_SPACE
    | Capability.PROTOCOL_41
    | Capability.INTERACTIVE
    | Capability.TRANSACTIONS
    | Capability.SECURE_CONNECTION
    | Capability.MULTI_RESULTS
    | Capability.PS_MULTI_RESULTS
    | Capability.PLUGIN_AUTH
    | Capability.CONNECT_ATTRS
    | Capability.PLUGIN_AUTH_LENENC_DATA
)


def native_scramble(password: str, nonce: bytes) -> bytes:
    """What a mysql_native_password client sends for ``password`` (empty password: nothing)."""
    if not password:
        return b""
    h1 = hashlib.sha1(password.encode("utf-8")).digest()
    h2 = hashlib.sha1(h1).digest()
    h3 = hashlib.sha1(nonce + h2).digest()
    return bytes(a ^ b for a, b in zip(h1, h3, strict=True))


def sha2_scramble(password: str, nonce: bytes) -> bytes:
    """What a caching_sha2_password client sends for ``password`` (empty password: nothing)."""
    if not password:
        return b""
    h1 = hashlib.sha256(password.encode("utf-8")).digest()
    h2 = hashlib.sha256(hashlib.sha256(h1).digest() + nonce).digest()
    return bytes(a ^ b for a, b in zip(h1, h2, strict=True))


def _expected(plugin: str, password: str, nonce: bytes) -> bytes:
    return native_scramble(password, nonce) if plugin == NATIVE else sha2_scramble(password, nonce)


@dataclass
class Credentials:
    """The accounts this server accepts: user -> password, and the plugin users have."""

    users: dict[str, str]
    plugin: str = NATIVE

    def __post_init__(self) -> None:
        if self.plugin not in PLUGINS:
            raise ValueError(f"auth plugin {self.plugin!r}: expected one of {', '.join(PLUGINS)}")


@dataclass
class ClientHello:
    capabilities: int
    max_packet: int
    charset: int
    user: str
    auth_response: bytes
    database: str | None
    plugin: str | None
    attributes: dict[str, str] = field(default_factory=dict)


def handshake_packet(server_version: str, connection_id: int, nonce: bytes, plugin: str) -> bytes:
    caps = SERVER_CAPABILITIES
    return (
        b"\x0a"
        + server_version.encode("ascii", "replace")
        + b"\x00"
        + struct.pack("<I", connection_id)
        + nonce[:8]
        + b"\x00"
        + struct.pack("<HBHHB", caps & 0xFFFF, 45, SERVER_STATUS_AUTOCOMMIT, caps >> 16, len(nonce) + 1)
        + b"\x00" * 10
        + nonce[8:]
        + b"\x00"
        + plugin.encode("ascii")
        + b"\x00"
    )


def _cstr(data: bytes, pos: int, what: str) -> tuple[bytes, int]:
    end = data.find(b"\x00", pos)
    if end < 0:
        raise ProtocolError(f"handshake response: {what} is not NUL-terminated")
    return data[pos:end], end + 1


def parse_handshake_response(data: bytes) -> ClientHello:
    """HandshakeResponse41 (only protocol 4.1 clients are accepted)."""
    if len(data) < 32:
        raise ProtocolError(f"handshake response of {len(data)} bytes (at least 32 expected)")
    caps, max_packet, charset = struct.unpack_from("<IIB", data, 0)
    if not caps & Capability.PROTOCOL_41:
        raise ProtocolError("client does not speak protocol 4.1")
    if caps & Capability.SSL and len(data) == 32:
        raise ProtocolError("client asks for TLS, which this server does not offer")
    pos = 32
    user, pos = _cstr(data, pos, "user name")
    if caps & Capability.PLUGIN_AUTH_LENENC_DATA:
        n, pos = read_lenenc_int(data, pos)
        auth = data[pos : pos + n]
        pos += n
        if len(auth) != n:
            raise ProtocolError("handshake response: auth response truncated")
    elif caps & Capability.SECURE_CONNECTION:
        if pos >= len(data):
            raise ProtocolError("handshake response ends before the auth response")
        n = data[pos]
        auth = data[pos + 1 : pos + 1 + n]
        pos += 1 + n
        if len(auth) != n:
            raise ProtocolError("handshake response: auth response truncated")
    else:
        auth, pos = _cstr(data, pos, "auth response")
    db = None
    if caps & Capability.CONNECT_WITH_DB and pos < len(data):
        raw, pos = _cstr(data, pos, "database")
        db = raw.decode("utf-8", "replace")
    plugin = None
    if caps & Capability.PLUGIN_AUTH and pos < len(data):
        raw, pos = _cstr(data, pos, "auth plugin name")
        plugin = raw.decode("ascii", "replace")
    attrs: dict[str, str] = {}
    if caps & Capability.CONNECT_ATTRS and pos < len(data):
        total, pos = read_lenenc_int(data, pos)
        end = min(len(data), pos + total)
        while pos < end:
            kl, pos = read_lenenc_int(data, pos)
            k = data[pos : pos + kl]
            pos += kl
            vl, pos = read_lenenc_int(data, pos)
            v = data[pos : pos + vl]
            pos += vl
            attrs[k.decode("utf-8", "replace")] = v.decode("utf-8", "replace")
    return ClientHello(caps, max_packet, charset, user.decode("utf-8", "replace"), auth, db, plugin, attrs)


class AuthFailed(Exception):
    """Login refused (the error packet was sent); the message is for the log."""


def authenticate(
    io: PacketIO, creds: Credentials, server_version: str, connection_id: int, peer: str
) -> ClientHello:
    """Run the connection phase; returns the client's hello after sending OK, or raises
    :class:`AuthFailed` / :class:`ProtocolError` after sending an error packet."""
    nonce = _nonce()
    io.seq = 0
    io.write(handshake_packet(server_version, connection_id, nonce, creds.plugin))
    hello = parse_handshake_response(io.read())
    plugin = hello.plugin if hello.plugin in PLUGINS else (NATIVE if hello.plugin is None else None)
    response = hello.auth_response
    if plugin != creds.plugin:
        # the user's plugin differs from the one the client used: AuthSwitchRequest
        nonce = _nonce()
        io.write(b"\xfe" + creds.plugin.encode("ascii") + b"\x00" + nonce + b"\x00")
        response = io.read()
        plugin = creds.plugin
    password = creds.users.get(hello.user)
    using = "YES" if response else "NO"
    if password is None or not hmac.compare_digest(response, _expected(plugin, password, nonce)):
        io.write(
            err_packet(
                ER_ACCESS_DENIED,
                f"Access denied for user '{hello.user}'@'{peer}' (using password: {using})",
                "28000",
            )
        )
        why = "unknown user" if password is None else "wrong password"
        raise AuthFailed(f"access denied for user {hello.user!r} ({why}, {plugin})")
    if plugin == CACHING_SHA2 and password:
        io.write(b"\x01\x03")  # fast_auth_success
    io.write(ok_packet())
    return hello


def _nonce() -> bytes:
    # 20 printable, non-NUL bytes as servers send them
    return bytes(33 + b % 94 for b in os.urandom(20))
