"""``binlogwriter serve --generate SPEC``: a generator run streamed without files.

- MariaDB flavor, ``--size``: ``mariadb-binlog --read-from-remote-server --raw`` writes files
  byte-identical to ``binlogwriter generate --spec SPEC --size`` (the same run on disk).
- MySQL flavor: python-mysql-replication reads the same transactions and rows from the
  generated stream as from the disk run served from files, from the start and from a GTID
  start in the middle.
- endless (no ``--size``): a blocking client keeps receiving transactions (more than a disk
  run of the default size would hold) and can leave at any time.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import GtidEvent

from binlogwriter.cli import main as cli_main

from .mariadb import mariadb_binlog
from .serve_process import ServeProcess
from .test_serve_python_mysql_replication import GTIDS, ROWS, read_stream

pytestmark = [pytest.mark.conformance,
              pytest.mark.filterwarnings("ignore:'db' is deprecated:DeprecationWarning")]


def _spec(tmp_path: Path, flavor: str) -> Path:
    p = tmp_path / "spec.yaml"
    p.write_text(f"workload: ecommerce\nflavor: {flavor}\nseed: 21\nmax_binlog_size: 20000\n"
                 f"rows_query: true\ninitial_rows: 20\n" + ("exclude_types: [JSON]\n" if flavor != "mariadb1011" else ""))
    return p


def _disk(tmp_path: Path, spec: Path, size: str) -> Path:
    out = tmp_path / "disk"
    r = CliRunner().invoke(cli_main, ["generate", "--spec", str(spec), "--size", size, "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out


def test_generated_stream_equals_the_disk_run_byte_for_byte(tmp_path: Path) -> None:
    spec = _spec(tmp_path, "mariadb1011")
    disk = _disk(tmp_path, spec, "150KB")
    files = sorted(disk.glob("binlog.0*"))
    assert len(files) >= 3
    copy = tmp_path / "copy"
    copy.mkdir()
    with ServeProcess([], "--generate", str(spec), "--size", "150KB") as srv:
        proc = mariadb_binlog([], "--read-from-remote-server", "--host=127.0.0.1", f"--port={srv.port}",
                              f"--user={srv.user}", f"--password={srv.password}", "--raw", "--to-last-log",
                              f"--result-file={copy}/", "binlog.000001")
        assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in copy.iterdir()) == [f.name for f in files]
    for f in files:
        assert (copy / f.name).read_bytes() == f.read_bytes(), f.name


def test_generated_mysql_stream_reads_like_the_files(tmp_path: Path) -> None:
    spec = _spec(tmp_path, "mysql84")
    disk = _disk(tmp_path, spec, "120KB")

    def read(srv: ServeProcess, **kw) -> list:
        return read_stream(BinLogStreamReader(connection_settings=srv.settings, server_id=31, blocking=False,
                                              only_events=[*ROWS, *GTIDS], **kw))

    with ServeProcess([disk]) as files_srv, ServeProcess([], "--generate", str(spec), "--size", "120KB") as gen:
        want = read(files_srv, log_file="binlog.000001", log_pos=4, resume_stream=True)
        assert len(want) > 10
        assert read(gen, log_file="binlog.000001", log_pos=4, resume_stream=True) == want
        k = len(want) // 2
        uuid, gno = want[k - 1][0].rsplit(":", 1)
        assert read(gen, auto_position=f"{uuid}:1-{gno}") == want[k:]


def test_endless_stream_keeps_going(tmp_path: Path) -> None:
    spec = _spec(tmp_path, "mysql80")
    with ServeProcess([], "--generate", str(spec)) as srv:
        s = BinLogStreamReader(connection_settings=srv.settings, server_id=32, blocking=True,
                               log_file="binlog.000001", log_pos=4, resume_stream=True, only_events=[GtidEvent])
        seen = 0
        for _ev in s:
            seen += 1
            if seen == 2500:  # more than the 2,000 transactions of a default run
                break
        s.close()
        assert seen == 2500
        assert srv.wait_log("connected")


def test_mariadb_replica_from_generated_stream(tmp_path: Path, mariadb_template: Path) -> None:
    """A real MariaDB 10.11 replica (GTID mode) replicates a generated stream (DDL and initial
    rows in the stream, so no snapshot) to the truth/final of the same run made on disk."""
    import time

    from .mariadb import MariaDBServer
    from .test_serve_mariadb_replica import status, truth

    spec = tmp_path / "spec.yaml"
    spec.write_text("workload: ecommerce\nflavor: mariadb1011\nseed: 12\nmax_binlog_size: 30000\n"
                    "ddl_in_binlog: true\ninitial_rows: 15\ndatabase: gen_rep\n")
    disk = _disk(tmp_path, spec, "120KB")
    import json
    last = json.loads((disk / "manifest.json").read_text())["files"][-1]["last_gtid"]
    with MariaDBServer(mariadb_template, extra_args=["--server-id=2"]) as rep, \
            ServeProcess([], "--generate", str(spec), "--size", "120KB") as srv:
        rep.execute(f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={srv.port}, "
                    f"MASTER_USER='{srv.user}', MASTER_PASSWORD='{srv.password}', "
                    f"MASTER_USE_GTID=slave_pos; START SLAVE;")
        deadline = time.monotonic() + 120
        while rep.query("SELECT @@gtid_slave_pos")[0][0] != last:
            st = status(rep)
            assert st.get("Last_SQL_Errno", "0") == "0", st.get("Last_SQL_Error")
            assert st.get("Last_IO_Errno", "0") == "0", st.get("Last_IO_Error")
            assert time.monotonic() < deadline, st
            time.sleep(0.2)
        for (tdb, table), rows in truth(disk).items():
            assert rep.dump_table(tdb, table) == rows, f"{tdb}.{table}"
