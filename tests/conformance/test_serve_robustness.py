"""``binlogwriter serve`` under bad clients, many clients, both auth plugins, big events.

Clients are PyMySQL / python-mysql-replication (third-party) and raw sockets for what no
well-behaved client sends. After every incident the server must keep serving (a normal client
then reads the whole run) and its log must hold exactly one WARNING line for it.
"""

from __future__ import annotations

import socket
import struct
import threading
from pathlib import Path

import pymysql
import pytest
from pymysql import _auth
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import GtidEvent, QueryEvent
from pymysqlreplication.row_event import WriteRowsEvent

from binlogwriter.format import BinlogFormat
from binlogwriter.schema import Table
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter
from generators.engine import generate
from generators.spec import Spec

from ..serve import rawclient
from .serve_process import ServeProcess

pytestmark = [pytest.mark.conformance,
              pytest.mark.filterwarnings("ignore:'db' is deprecated:DeprecationWarning")]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("robust") / "run"
    generate(Spec.from_dict(dict(workload="sysbench", flavor="mysql80", tables=2, seed=2, transactions=300,
                                 initial_rows=10, max_binlog_size=20000, database="rb")), out)
    return out


def _gtids(out: Path) -> int:
    import json
    return sum(f["transactions"] for f in json.loads((out / "manifest.json").read_text())["files"])


def _read_all(srv: ServeProcess, log_file: str = "binlog.000001", server_id: int = 50) -> int:
    """GTID events of a non-blocking dump from ``log_file``:4 to the end."""
    s = BinLogStreamReader(connection_settings=srv.settings, server_id=server_id, log_file=log_file,
                           log_pos=4, resume_stream=True, blocking=False, only_events=[GtidEvent])
    try:
        return sum(1 for _ in s)
    finally:
        s.close()


def _warnings(srv: ServeProcess) -> list[str]:
    return [line for line in srv.log if " WARNING " in line]


def test_wrong_password_and_unknown_user_are_refused(run: Path) -> None:
    with ServeProcess([run]) as srv:
        for user, pw in (("repl", "wrong"), ("nobody", "repl-pw")):
            with pytest.raises(pymysql.err.OperationalError) as e:
                pymysql.connect(host="127.0.0.1", port=srv.port, user=user, password=pw)
            assert e.value.args[0] == 1045
        assert len(srv.wait_log("unknown user")) == 1
        assert len(srv.wait_log("wrong password")) == 1
        assert len(_warnings(srv)) == 2
        assert _read_all(srv) == _gtids(run)


def test_malformed_packets_end_only_that_connection(run: Path) -> None:
    with ServeProcess([run]) as srv:
        bad = [
            b"\x05\x00\x00\x01hello",                    # a handshake response of 5 bytes
            b"\x10\x00\x00\x07" + b"\0" * 16,            # wrong sequence id
        ]
        for garbage in bad:
            with socket.create_connection(("127.0.0.1", srv.port)) as s:
                rawclient.read_packet(s)
                s.sendall(garbage)
                reply = rawclient.read_packet(s)
                assert reply[:1] == b"\xff"
        # garbage after a good login: an unknown command and a truncated dump request
        conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="repl", password="repl-pw")
        with conn.cursor() as cur:
            with pytest.raises(pymysql.err.ProgrammingError):
                cur.execute("SELECT * FROM mysql.user")
            with pytest.raises(pymysql.err.ProgrammingError):
                cur.execute("DROP TABLE t")
        conn._write_bytes(b"\x01\x00\x00\x00\x77")  # command 0x77
        assert rawclient.read_packet(conn._sock)[:1] == b"\xff"
        conn._write_bytes(b"\x03\x00\x00\x00\x12\x04\x00")  # COM_BINLOG_DUMP of 3 bytes
        assert rawclient.read_packet(conn._sock)[:1] == b"\xff"
        conn._sock.close()
        assert len(srv.wait_log("malformed packet:")) == 2
        assert len(srv.wait_log("unknown command 0x77")) == 1
        assert len(srv.wait_log("dump refused")) == 1
        assert _read_all(srv) == _gtids(run)
        assert len(_warnings(srv)) == 4


def test_client_closing_mid_dump(run: Path) -> None:
    with ServeProcess([run], "--rate", "200tps") as srv:
        s = BinLogStreamReader(connection_settings=srv.settings, server_id=60, log_file="binlog.000001",
                               log_pos=4, resume_stream=True, blocking=True, only_events=[GtidEvent])
        for i, _ev in enumerate(s):
            if i == 20:
                break
        s._stream_connection._sock.close()
        s.close()
        assert len(srv.wait_log("connection closed by the client")) == 1
        assert _read_all(srv) == _gtids(run)


def test_eight_clients_at_once_each_with_its_own_position(run: Path) -> None:
    files = [line.strip()[2:] for line in (run / "binlog.index").read_text().splitlines()]
    import json
    per_file = [f["transactions"] for f in json.loads((run / "manifest.json").read_text())["files"]]
    results: dict[int, int | BaseException] = {}

    def client(i: int) -> None:
        try:
            results[i] = _read_all(srv, files[i % len(files)], server_id=100 + i)
        except BaseException as exc:  # pragma: no cover - reported below
            results[i] = exc

    with ServeProcess([run], "--rate", "2MB/s") as srv:
        threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
        # a misbehaving client at the same time: garbage instead of a handshake response
        with socket.create_connection(("127.0.0.1", srv.port)) as bad:
            for t in threads:
                t.start()
            rawclient.read_packet(bad)
            bad.sendall(b"\xff" * 64)
            for t in threads:
                t.join(120)
        for i in range(8):
            assert results[i] == sum(per_file[i % len(files):]), (i, results[i])
        assert len(srv.wait_log(r"dump ended")) == 8
        assert len(_warnings(srv)) == 1


@pytest.mark.parametrize("server_plugin", ["caching_sha2_password", "mysql_native_password"])
def test_auth_plugins_and_auth_switch(run: Path, server_plugin: str) -> None:
    """The client first answers with the other plugin (scrambles computed by PyMySQL's own
    functions): the server asks it to switch, then accepts; a PyMySQL login works too."""
    scramble = {"mysql_native_password": _auth.scramble_native_password,
                "caching_sha2_password": _auth.scramble_caching_sha2}
    other = "mysql_native_password" if server_plugin == "caching_sha2_password" else "caching_sha2_password"
    with ServeProcess([run], "--auth-plugin", server_plugin) as srv:
        with socket.create_connection(("127.0.0.1", srv.port)) as s:
            g = rawclient.read_packet(s)
            assert server_plugin.encode() in g
            s.sendall(rawclient.response("repl", scramble[other](b"repl-pw", rawclient.nonce(g)), other))
            switch = rawclient.read_packet(s)
            assert switch[:1] == b"\xfe" and switch[1:].startswith(server_plugin.encode() + b"\0")
            nonce = switch[2 + len(server_plugin):-1]
            auth = scramble[server_plugin](b"repl-pw", nonce)
            s.sendall(struct.pack("<I", len(auth) | (3 << 24)) + auth)
            reply = rawclient.read_packet(s)
            if server_plugin == "caching_sha2_password":
                assert reply == b"\x01\x03"  # fast path
                reply = rawclient.read_packet(s)
            assert reply[:1] == b"\x00"
        conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="repl", password="repl-pw")
        with conn.cursor() as cur:
            cur.execute("SELECT @@version, @@server_id, @@global.binlog_checksum")
            assert cur.fetchone() == ("8.0.36", 1, "CRC32")
        conn.close()
        assert _warnings(srv) == []


def test_event_larger_than_16mb_spans_packets(tmp_path: Path) -> None:
    """A 17 MB rows event (one LONGBLOB row) goes out as two packets; the client reassembles
    and decodes it."""
    fmt = BinlogFormat.mysql80()
    table = Table.from_sql("CREATE TABLE big (id INT PRIMARY KEY, b LONGBLOB)", database="db", flavor="mysql80")
    blob = b"0123456789abcdef" * (17 << 16)  # ASCII: the library decodes a BLOB without charset metadata as UTF-8
    with BinlogWriter(tmp_path, fmt, settings=SessionSettings(row_metadata="FULL")) as w:
        w.ddl("CREATE TABLE big (id INT PRIMARY KEY, b LONGBLOB)", "db")
        with w.transaction() as tx:
            tx.insert(table, [(1, blob)])
        with w.transaction() as tx:
            tx.insert(table, [(2, b"small")])
    with ServeProcess([tmp_path]) as srv:
        s = BinLogStreamReader(connection_settings=srv.settings, server_id=70, log_file="binlog.000001",
                               log_pos=4, resume_stream=True, blocking=False,
                               only_events=[WriteRowsEvent, QueryEvent])
        rows = []
        try:
            for ev in s:
                if isinstance(ev, WriteRowsEvent):
                    rows += [r["values"] for r in ev.rows]
        finally:
            s.close()
    assert [r["id"] for r in rows] == [1, 2]
    assert rows[0]["b"] in (blob, blob.decode()) and rows[1]["b"] in (b"small", "small")
