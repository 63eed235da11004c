"""Positions inside events, against a real MariaDB 10.11 serving the same files (issues #27, #31).

A real ``mariadbd`` is restarted on a generated MariaDB run (binlog_serving.py) and ``binlogwriter
serve`` serves the same files. For offsets where an event starts and offsets inside events:

- COM_BINLOG_DUMP: where an event starts both stream events; inside an event ours refuses the dump
  with ERR 1236 after the fake ROTATE and the FDE (it used to read a 3.9 GB event_length and
  fail with ERR 1105 "internal error"), and wherever the real server refuses, the message is
  the real server's, byte for byte;
- ``SELECT binlog_gtid_pos(file, offset)``, which a MariaDB replica sends: the same answer
  (NULL inside an event, past the end, for an unknown file).
"""

from __future__ import annotations

from pathlib import Path

import pymysql
import pytest

from binlogwriter.reader import iter_raw
from generators.engine import generate
from generators.spec import Spec

from ..serve import rawclient
from .binlog_serving import ServingMariaDBServer
from .serve_process import ServeProcess
from .test_generate_replay import run_files

pytestmark = pytest.mark.conformance

USER, PASSWORD = "repl", "repl-pw"


def _outcome(port: int, file: str, pos: int) -> list[str]:
    """The first packets a non-blocking dump from ``file``:``pos`` gets: ``"event N"`` (type
    code) for events, ``"err CODE MESSAGE"``, or ``"eof"``; at most four."""
    with rawclient.login(port, USER, PASSWORD) as s:
        rawclient.query(s, "SET @master_binlog_checksum = @@global.binlog_checksum")
        rawclient.binlog_dump(s, file, pos)
        out: list[str] = []
        for _ in range(4):
            p = rawclient.read_packet(s)
            if p[:1] == b"\xff":
                code, message = rawclient.err_of(p)
                out.append(f"err {code} {message}")
                break
            if not p or (p[:1] == b"\xfe" and len(p) < 9):
                out.append("eof")
                break
            out.append(f"event {p[5]}")
        return out


def _gtid_pos(port: int, file: str, pos: int) -> str | None:
    conn = pymysql.connect(host="127.0.0.1", port=port, user=USER, password=PASSWORD)
    try:
        with conn.cursor() as cur:
            cur.execute(f"SELECT binlog_gtid_pos('{file}', {pos})")
            return cur.fetchone()[0]
    finally:
        conn.close()


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> list[Path]:
    out = tmp_path_factory.mktemp("positions") / "run"
    spec = dict(
        workload="sysbench",
        flavor="mariadb1011",
        tables=2,
        seed=8,
        transactions=50,
        initial_rows=10,
        max_binlog_size=12000,
        database="q",
    )
    generate(Spec.from_dict(spec), out)
    return run_files(out)


def test_positions_inside_events_as_mariadb(run: list[Path], mariadb_template: Path) -> None:
    first = run[0]
    size = first.stat().st_size
    starts = [r.offset for r in iter_raw(first)] + [size]
    inside = sorted({a + d for a in starts[:-1] for d in (1, 7, 9, 19, 23)} - set(starts))
    inside += [size - 3, size + 10, 2**32 - 1]
    with ServingMariaDBServer(mariadb_template) as real, ServeProcess([run[0].parent], user=USER) as srv:
        real.serve_binlogs(run)
        real.create_replication_user(USER, PASSWORD)
        compared = 0
        for pos in starts[1:12] + [size]:
            ours = _outcome(srv.port, first.name, pos)
            assert not ours[-1].startswith("err"), (pos, ours)
            assert not _outcome(real.port, first.name, pos)[-1].startswith("err"), pos
        for pos in inside:
            ours, theirs = _outcome(srv.port, first.name, pos), _outcome(real.port, first.name, pos)
            assert ours[-1].startswith("err 1236 "), (pos, ours)
            # the real server refuses when it reads the event there; not verifying checksums, it may
            # also stream what it read and fail further on (compared only when it refused there)
            if theirs[:2] == ["event 4", "event 15"] and len(theirs) == 3 and theirs[2].startswith("err"):
                assert ours == theirs, pos
                compared += 1
        assert compared >= len(inside) * 3 // 4, (compared, len(inside))
        for f in run[:2]:
            size = f.stat().st_size
            offsets = [r.offset for r in iter_raw(f)] + [size, 5, size + 1, 4 + 1000, 3, 0]
            for pos in offsets:
                assert _gtid_pos(srv.port, f.name, pos) == _gtid_pos(real.port, f.name, pos), (f.name, pos)
        assert _gtid_pos(srv.port, "nothere.000001", 4) is _gtid_pos(real.port, "nothere.000001", 4) is None
    assert len(srv.wait_log("dump refused")) >= len(inside)
