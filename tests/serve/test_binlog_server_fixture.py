"""The ``binlog_server`` fixture (binlogwriter/pytest_plugin.py) and ``serving()``
(binlogwriter/serve/api.py): one server per session, pointed at a new binlog set per example.

A client written from the protocol documentation (rawclient.py) dumps what is served,
non-blocking from the first file: every event it receives, except the fake ROTATEs and the
FDEs (whose flags the server changes, docs/serve.md "Dump"), MariaDB's ANNOTATE_ROWS (not
asked for), must be byte for byte the events
of the example's own files, in order — so an example never sees the previous example's files.
The drawn sets cover every flavor, row image, metadata mode, GTID kind, compression and
several files (strategies.binlogs).
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings

from binlogwriter.reader import iter_raw
from binlogwriter.strategies import binlogs

from . import rawclient

FDE, ROTATE, ANNOTATE_ROWS = 15, 4, 160
ARTIFICIAL = 0x20


def _served_events(served, server_id: int) -> list[bytes]:
    s = rawclient.login(served.port, served.user, served.password)
    try:
        rawclient.query(s, "SET @master_binlog_checksum = @@global.binlog_checksum")
        rawclient.binlog_dump(s, "", 4, server_id=server_id)
        out = []
        while True:
            p = rawclient.read_packet(s)
            assert p, "connection closed before the end of the dump"
            if p[:1] == b"\xfe" and len(p) < 9:
                return out
            assert p[:1] == b"\x00", rawclient.err_of(p)
            ev = p[1:]
            flags = int.from_bytes(ev[17:19], "little")
            if ev[4] == FDE or (ev[4] == ROTATE and flags & ARTIFICIAL):
                continue
            out.append(ev)
    finally:
        s.close()


def _file_events(files: list[Path]) -> list[bytes]:
    """The events a dump sends: all but the FDE (sent with its flags changed), ANNOTATE_ROWS
    (only on request)."""
    return [rec.data for f in files for rec in iter_raw(f) if rec.type_code not in (FDE, ANNOTATE_ROWS)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binlogs(max_transactions=3))
def test_each_example_is_served_its_own_files(binlog_server, case) -> None:
    with case:
        served = binlog_server.serve(case)
        assert served.flavor == case.flavor
        assert served.run_dir == case.directory and served.case is case
        assert _served_events(served, served.server_id) == _file_events(case.files)


def test_catalogue_entry_and_generated_run(binlog_server) -> None:
    served = binlog_server.serve("enum_index_zero:mariadb1011")
    assert served.flavor == "mariadb1011"
    assert _served_events(served, served.server_id) == _file_events(served.case.files)
    served = binlog_server.serve(dict(workload="sysbench", flavor="mysql84", seed=3, transactions=5,
                                      initial_rows=2, ddl_in_binlog=True))
    assert served.flavor == "mysql84" and (served.run_dir / "truth").is_dir()
    files = [served.run_dir / ln[2:] for ln in (served.run_dir / "binlog.index").read_text().split()]
    assert _served_events(served, served.server_id) == _file_events(files)


def test_process_mode(tmp_path: Path) -> None:
    from binlogwriter.pytest_plugin import BinlogServer

    server = BinlogServer(tmp_path, "process")
    try:
        served = server.serve("negative_time:mysql80")
        assert served.flavor == "mysql80"
        assert _served_events(served, 7) == _file_events(served.case.files)
        served2 = server.serve("zero_dates:mariadb1011")
        assert served2.flavor == "mariadb1011"
        assert _served_events(served2, 8) == _file_events(served2.case.files)
    finally:
        server.close()
