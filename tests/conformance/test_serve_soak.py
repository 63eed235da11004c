"""Soak: 50 clients, honest, idle and hostile, at one ``binlogwriter serve`` for 20 s (issue #27).

Dumpers (raw COM_BINLOG_DUMP from the start), idle logged-in clients, slow-loris logins, 15 MiB
login packets, exponential LIKE patterns and 120 KB comment queries, dumps inside events and
silent sockets run at once; meanwhile a well-behaved client logs in and reads once a second.
Its login-and-query latency must stay under 3 s and the server's RSS under 300 MB; both are
printed. All traffic goes to 127.0.0.1; every loop ends at the deadline.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from generators.engine import generate
from generators.spec import Spec

from ..serve import rawclient
from .serve_process import PASSWORD, USER, ServeProcess

pytestmark = pytest.mark.conformance
SECONDS = 20.0


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _loop(deadline: float, body) -> None:
    while time.monotonic() < deadline:
        try:
            body()
        except OSError:
            time.sleep(0.05)


def test_soak(tmp_path: Path) -> None:
    out = tmp_path / "run"
    generate(
        Spec.from_dict(
            dict(
                workload="sysbench",
                flavor="mariadb1011",
                tables=2,
                seed=3,
                transactions=400,
                initial_rows=10,
                max_binlog_size=50000,
                database="s",
            )
        ),
        out,
    )
    with ServeProcess([out], "-q", "--connect-timeout", "2") as srv:
        port = srv.port
        deadline = time.monotonic() + SECONDS

        def dumper() -> None:
            with rawclient.login(port, USER, PASSWORD) as s:
                rawclient.query(s, "SET @master_binlog_checksum = @@global.binlog_checksum")
                rawclient.binlog_dump(s, "binlog.000001", 4)
                while rawclient.read_packet(s)[:1] == b"\x00":
                    pass

        def idle() -> None:
            with rawclient.login(port, USER, PASSWORD):
                time.sleep(max(0.0, deadline - time.monotonic()))

        def loris() -> None:
            with rawclient.connect(port) as s:
                rawclient.read_packet(s)
                for byte in rawclient.response(USER, b"x" * 20, "mysql_native_password")[:30]:
                    s.sendall(bytes((byte,)))
                    time.sleep(0.5)

        def huge() -> None:
            with rawclient.connect(port) as s:
                rawclient.read_packet(s)
                s.sendall((0xFFFFFF | 1 << 24).to_bytes(4, "little") + b"\0" * (1 << 20))
                rawclient.read_packet(s)

        def regex() -> None:
            with rawclient.login(port, USER, PASSWORD) as s:
                rawclient.query(s, "SHOW VARIABLES LIKE '" + "%" * 40 + "x'")
                rawclient.query(s, "/* " * 40000)

        def bad_pos() -> None:
            with rawclient.login(port, USER, PASSWORD) as s:
                rawclient.query(s, "SET @master_binlog_checksum = @@global.binlog_checksum")
                rawclient.binlog_dump(s, "binlog.000001", 331)
                for _ in range(4):
                    if rawclient.read_packet(s)[:1] in (b"", b"\xff"):
                        break

        def silent() -> None:
            with rawclient.connect(port):
                time.sleep(3)

        kinds = (
            [dumper] * 10
            + [idle] * 10
            + [loris] * 10
            + [huge] * 5
            + [regex] * 5
            + [bad_pos] * 5
            + [silent] * 5
        )
        threads = [threading.Thread(target=_loop, args=(deadline, k), daemon=True) for k in kinds]
        for t in threads:
            t.start()
        latencies, rss = [], []
        while time.monotonic() < deadline:
            t0 = time.monotonic()
            with rawclient.login(port, USER, PASSWORD, timeout=10) as s:
                assert rawclient.query(s, "SELECT @@version")[0][:1] == b"\x01"
            latencies.append(time.monotonic() - t0)
            rss.append(_rss_mb(srv._proc.pid))
            time.sleep(1.0)
        for t in threads:
            t.join(15)
    print(
        f"soak: {len(latencies)} probes, latency max {max(latencies):.3f} s, "
        f"median {sorted(latencies)[len(latencies) // 2]:.3f} s; server RSS max {max(rss):.0f} MB"
    )
    assert max(latencies) < 3.0
    assert max(rss) < 300
