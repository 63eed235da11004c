"""``serve`` against clients that hold resources without logging in (issue #27).

A server runs in this process on 127.0.0.1 (a free port) over a sample run; clients are raw
sockets (tests/serve/rawclient.py) and PyMySQL. Each test is one finding of the issue: silent
sockets must not hold slots past the login deadline nor all of them, a login packet cannot
announce megabytes, and the default number of clients takes 50 python-mysql-replication readers.
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pymysql
import pytest

from binlogwriter.serve.auth import NATIVE, Credentials
from binlogwriter.serve.binlogs import BinlogSet
from binlogwriter.serve.queries import Identity
from binlogwriter.serve.server import ServeConfig, Server

from . import rawclient

RUN = Path(__file__).resolve().parents[2] / "samples" / "mysql80-full-full-ecommerce"
USER, PASSWORD = "repl", "pw"


@pytest.fixture(scope="module")
def binlogs() -> BinlogSet:
    return BinlogSet([RUN])


@pytest.fixture
def serve(binlogs: BinlogSet) -> Iterator[Callable[..., Server]]:
    servers: list[Server] = []

    def start(**options) -> Server:
        cfg = ServeConfig(
            binlogs=binlogs,
            credentials=Credentials({USER: PASSWORD}, NATIVE),
            identity=Identity("3e11fa47-71ca-11e1-9e33-c80aa9429562"),
            port=0,
            **options,
        )
        servers.append(Server(cfg).start())
        return servers[-1]

    yield start
    for s in servers:
        s.stop()


def _closed_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed ``sock`` (reading and dropping what it sends), None if
    it is still open after ``seconds``."""
    t0 = time.monotonic()
    sock.settimeout(0.2)
    while time.monotonic() - t0 < seconds:
        try:
            if not sock.recv(65536):
                return time.monotonic() - t0
        except TimeoutError:
            continue
        except OSError:
            return time.monotonic() - t0
    return None


def _pymysql(port: int) -> pymysql.Connection:
    return pymysql.connect(host="127.0.0.1", port=port, user=USER, password=PASSWORD, connect_timeout=5)


def test_login_deadline_closes_silent_and_trickling_clients(serve, caplog) -> None:
    srv = serve(connect_timeout=0.6)
    caplog.set_level(logging.WARNING, "binlogwriter.serve")
    silent = rawclient.connect(srv.port)
    trickle = rawclient.connect(srv.port)
    rawclient.read_packet(trickle)
    # slow-loris: a byte of a login packet every 0.2 s, each within any per-read timeout
    t0 = time.monotonic()
    body = rawclient.response(USER, b"x" * 20, NATIVE)
    for i in range(6):
        try:
            trickle.sendall(body[i : i + 1])
        except OSError:
            break
        time.sleep(0.2)
    assert _closed_within(trickle, 3.0) is not None
    assert time.monotonic() - t0 < 3.0
    assert _closed_within(silent, 3.0) is not None
    assert sum("no login within 0.6 s (--connect-timeout)" in r.getMessage() for r in caplog.records) == 2
    conn = _pymysql(srv.port)  # and the server still serves
    conn.close()


def test_a_login_packet_cannot_announce_megabytes(serve, caplog) -> None:
    srv = serve()
    caplog.set_level(logging.WARNING, "binlogwriter.serve")
    with rawclient.connect(srv.port, timeout=5) as s:
        rawclient.read_packet(s)
        # 48 MiB goes out as 16 MiB - 1 packets: the first one's header only
        s.sendall((0xFFFFFF | 1 << 24).to_bytes(4, "little"))
        code, message = rawclient.err_of(rawclient.read_packet(s))
        assert code == 1153 and "max_allowed_packet" in message
        assert _closed_within(s, 3.0) is not None
    assert any("packet too large" in r.getMessage() for r in caplog.records)
    # after login the limit is max_allowed_packet (16 MiB), which the server reports
    conn = _pymysql(srv.port)
    with conn.cursor() as cur:
        cur.execute("SELECT @@max_allowed_packet")
        assert cur.fetchone() == (16 << 20,)
    conn.close()


def test_silent_sockets_of_one_address_do_not_hold_every_slot(serve, caplog) -> None:
    """64 silent sockets from 127.0.0.1 against 8 slots (issue #27: they held all of them for
    the 3,600 s idle timeout): after the 1 s grace an honest client gets in."""
    srv = serve(max_clients=8, max_logins_per_ip=4)
    caplog.set_level(logging.WARNING, "binlogwriter.serve")
    silent = [rawclient.connect(srv.port) for _ in range(64)]
    time.sleep(1.3)
    conn = _pymysql(srv.port)
    with conn.cursor() as cur:
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)
    assert len(srv.admission) <= 8
    conn.close()
    dropped = [r for r in caplog.records if "closed before its login ended" in r.getMessage()]
    assert dropped
    for s in silent:
        s.close()


def test_default_slots_take_fifty_replication_readers(binlogs: BinlogSet, serve) -> None:
    """python-mysql-replication opens two connections per reader: 100 connections at once fit
    the default (151, the servers' max_connections; it was 64)."""
    srv = serve()
    conns = [rawclient.login(srv.port, USER, PASSWORD) for _ in range(100)]
    try:
        conn = _pymysql(srv.port)
        with conn.cursor() as cur:
            cur.execute("SELECT @@max_connections")
            assert cur.fetchone() == (151,)
        conn.close()
    finally:
        for c in conns:
            c.close()
