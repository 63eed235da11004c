"""What ``binlogwriter serve`` answers before and around a dump, against real references.

- MariaDB flavor: ``SHOW BINLOG EVENTS`` (plain, IN / FROM / LIMIT offset, n) returns exactly
  the rows a real MariaDB 10.11 serving the same files returns; ``SHOW BINARY LOGS`` lists the
  same files and sizes (the real server adds a file of its own after ours); the GTID variables
  equal the real server's (read before anything else is written to it).
- MySQL flavor: ``Executed_Gtid_Set`` / ``@@gtid_executed`` equal the generator's manifest,
  ``SHOW BINARY LOGS`` the file sizes on disk; unknown statements get an error, not a hang.
- heartbeats: a blocking dump of MySQL 8.0 files gets HEARTBEAT_LOG_EVENT_V2 naming the last
  file and its end when idle (``--heartbeat 1`` gives v1).
- ``--follow``: files appended to binlog.index and a file growing event by event (cut inside an
  event) reach a blocking client while it is connected.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import pymysql
import pytest
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import GtidEvent

from binlogwriter.events import decode_event
from binlogwriter.format import BinlogFormat
from generators.engine import generate
from generators.spec import Spec

from .binlog_serving import ServingMariaDBServer
from .serve_process import ServeProcess

pytestmark = [pytest.mark.conformance,
              pytest.mark.filterwarnings("ignore:'db' is deprecated:DeprecationWarning")]


def _run(tmp: Path, flavor: str, **kw) -> Path:
    out = tmp / f"run-{flavor}"
    spec = dict(workload="sysbench", flavor=flavor, tables=2, seed=8, transactions=50, initial_rows=10,
                rows_query=True, max_binlog_size=12000, database="q")
    spec.update(kw)
    generate(Spec.from_dict(spec), out)
    return out


def _files(out: Path) -> list[Path]:
    return [out / line.strip()[2:] for line in (out / "binlog.index").read_text().splitlines()]


def _query(srv_port: int, sql: str, user: str = "repl", password: str = "repl-pw") -> tuple:
    conn = pymysql.connect(host="127.0.0.1", port=srv_port, user=user, password=password)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()
    finally:
        conn.close()


def test_mariadb_answers_equal_a_real_mariadb(tmp_path: Path, mariadb_template: Path) -> None:
    out = _run(tmp_path, "mariadb1011", ddl_every=20)
    files = _files(out)
    with ServingMariaDBServer(mariadb_template) as real, ServeProcess([out]) as srv:
        real.serve_binlogs(files)
        for var in ("gtid_binlog_pos", "gtid_binlog_state", "gtid_current_pos", "binlog_checksum", "server_id"):
            want = real.query(f"SELECT @@global.{var}")[0][0]
            assert str(_query(srv.port, f"SELECT @@global.{var}")[0][0]) == want, var
        real.create_replication_user(srv.user, srv.password)
        for sql in ("SHOW BINLOG EVENTS", "SHOW BINLOG EVENTS LIMIT 7",
                    f"SHOW BINLOG EVENTS IN '{files[1].name}'",
                    f"SHOW BINLOG EVENTS IN '{files[1].name}' FROM 256 LIMIT 3, 25",
                    f"SHOW BINLOG EVENTS IN '{files[-1].name}' LIMIT 2,1000"):
            want = _query(real.port, sql)
            assert _query(srv.port, sql) == want, sql
        real_logs = _query(real.port, "SHOW BINARY LOGS")
        assert _query(srv.port, "SHOW BINARY LOGS") == real_logs[:len(files)]
        assert [n for n, _ in real_logs[:len(files)]] == [f.name for f in files]


def test_mysql_status_and_errors(tmp_path: Path) -> None:
    out = _run(tmp_path, "mysql80")
    manifest = json.loads((out / "manifest.json").read_text())
    with ServeProcess([out]) as srv:
        status = _query(srv.port, "SHOW MASTER STATUS")[0]
        assert status[0] == _files(out)[-1].name and status[1] == _files(out)[-1].stat().st_size
        assert status[4] == manifest["gtid_executed"]
        assert _query(srv.port, "SHOW BINARY LOG STATUS") == (status,)
        assert _query(srv.port, "SELECT @@gtid_executed")[0][0] == manifest["gtid_executed"]
        assert _query(srv.port, "SELECT @@server_uuid")[0][0] == manifest["gtid_executed"].split(":")[0]
        assert [(n, s) for n, s, _e in _query(srv.port, "SHOW BINARY LOGS")] == \
            [(f.name, f.stat().st_size) for f in _files(out)]
        assert _query(srv.port, "SHOW GLOBAL VARIABLES LIKE 'binlog_c%'") == (("binlog_checksum", "CRC32"),)
        assert _query(srv.port, "SHOW VARIABLES WHERE Variable_name = 'gtid_mode'") == (("gtid_mode", "ON"),)
        for bad in ("DELETE FROM t", "SELECT * FROM information_schema.columns", "SELECT @@no_such_var"):
            with pytest.raises(pymysql.err.MySQLError):
                _query(srv.port, bad)


@pytest.mark.parametrize(("version", "type_code"), [("auto", 41), ("1", 27)])
def test_heartbeats_when_idle(tmp_path: Path, version: str, type_code: int) -> None:
    out = _run(tmp_path, "mysql80", transactions=5)
    last = _files(out)[-1]
    with ServeProcess([out], "--heartbeat", version) as srv:
        conn = pymysql.connect(host="127.0.0.1", port=srv.port, user=srv.user, password=srv.password)
        with conn.cursor() as cur:
            cur.execute("SET @master_binlog_checksum = @@global.binlog_checksum")
            cur.execute("SET @master_heartbeat_period = 200000000")
        name = _files(out)[0].name.encode()
        payload = b"\x12" + (4).to_bytes(4, "little") + b"\0\0" + (5).to_bytes(4, "little") + name
        conn._write_bytes(len(payload).to_bytes(3, "little") + b"\0" + payload)
        conn._next_seq_id = 1
        events = []
        t0 = time.monotonic()
        while time.monotonic() - t0 < 30:
            pkt = conn._read_packet().get_all_data()
            assert pkt[0] == 0, pkt
            events.append(pkt[1:])
            if events[-1][4] == type_code:
                break
        conn._sock.close()
    hb = events[-1]
    assert hb[4] == type_code
    assert events[-2][4] == 3  # STOP, the last event of the last file
    ev = decode_event(hb, BinlogFormat.mysql80())
    assert ev.log_filename == last.name
    if type_code == 41:
        assert ev.log_position == last.stat().st_size
    else:
        assert int.from_bytes(hb[13:17], "little") == last.stat().st_size


def test_follow_serves_new_files_and_bytes(tmp_path: Path) -> None:
    src = _run(tmp_path, "mysql80", transactions=60)
    files = _files(src)
    assert len(files) >= 3
    live = tmp_path / "live"
    live.mkdir()
    shutil.copy(files[0], live / files[0].name)
    (live / "binlog.index").write_text(f"./{files[0].name}\n")
    total = sum(json.loads((src / "manifest.json").read_text())["files"][i]["transactions"]
                for i in range(len(files)))
    with ServeProcess([live], "--follow") as srv:
        seen: list[str] = []
        s = BinLogStreamReader(connection_settings=srv.settings, server_id=44, blocking=True,
                               log_file=files[0].name, log_pos=4, resume_stream=True, only_events=[GtidEvent])

        def read() -> None:
            for ev in s:
                seen.append(ev.gtid)
                if len(seen) == total:
                    break

        t = threading.Thread(target=read, daemon=True)
        t.start()
        time.sleep(1.0)
        n_first = len(seen)
        assert 0 < n_first < total
        for f in files[1:-1]:
            shutil.copy(f, live / f.name)
            with open(live / "binlog.index", "a") as idx:
                idx.write(f"./{f.name}\n")
        data = files[-1].read_bytes()
        cut = len(data) // 2 + 7  # most likely inside an event
        (live / files[-1].name).write_bytes(data[:cut])
        with open(live / "binlog.index", "a") as idx:
            idx.write(f"./{files[-1].name}\n")
        time.sleep(1.0)
        with open(live / files[-1].name, "ab") as fh:
            fh.write(data[cut:])
        t.join(30)
        s.close()
    assert len(seen) == total and len(set(seen)) == total


def test_tagged_gtid_set_start(tmp_path: Path) -> None:
    """MySQL 8.4 tagged GTIDs: a COM_BINLOG_DUMP_GTID whose set (tagged format, bytes written
    here as MySQL's Gtid_set::encode lays them out) holds uuid:tag:1-K gets exactly the
    transactions after K."""
    import struct

    from binlogwriter.reader import BinlogReader

    uuid, tag = "3e11fa47-71ca-11e1-9e33-c80aa9429562", "cdc_load"
    out = _run(tmp_path, "mysql84", transactions=30, gtid=f"{uuid}:{tag}")
    gnos = [ev.gno for ev in BinlogReader(_files(out)) if ev.type_code == 42]
    assert gnos == list(range(1, len(gnos) + 1)) and len(gnos) >= 30
    k = 17
    gset = (struct.pack("<Q", (1 << 56) | (1 << 8) | 1) + bytes.fromhex(uuid.replace("-", ""))
            + bytes((len(tag) << 1,)) + tag.encode() + struct.pack("<Q", 1) + struct.pack("<qq", 1, k + 1))
    body = (b"\x1e" + struct.pack("<HII", 0x01 | 0x04, 9, 0) + struct.pack("<Q", 4)
            + struct.pack("<I", len(gset)) + gset)
    with ServeProcess([out]) as srv:
        conn = pymysql.connect(host="127.0.0.1", port=srv.port, user=srv.user, password=srv.password)
        with conn.cursor() as cur:
            cur.execute("SET @master_binlog_checksum = @@global.binlog_checksum")
        conn._write_bytes(len(body).to_bytes(3, "little") + b"\0" + body)
        conn._next_seq_id = 1
        got = []
        while True:
            pkt = conn._read_packet().get_all_data()
            if pkt[0] == 0xFE and len(pkt) < 9:
                break
            assert pkt[0] == 0, pkt
            if pkt[5] == 42:
                got.append(decode_event(pkt[1:], BinlogFormat.mysql84()).gno)
        conn.close()
        assert srv.wait_log(f"dump from GTID {uuid}:{tag}:1-{k}")
    assert got == gnos[k:]
