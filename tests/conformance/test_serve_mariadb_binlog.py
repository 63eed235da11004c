"""``mariadb-binlog --read-from-remote-server`` against ``binlogwriter serve`` (MariaDB flavor).

For FULL, MINIMAL and NOBLOB images of generated runs (ecommerce: many column types, BLOB/TEXT
columns for NOBLOB, ANNOTATE_ROWS events, DDL every few transactions, several files):

- ``--raw --to-last-log`` copies every served file byte for byte (the served stream is the
  files: FDE with IN_USE cleared, fake ROTATE and ANNOTATE_ROWS handled as a server does);
- ``-R -vv FILE`` prints exactly what ``mariadb-binlog -vv FILE`` prints for the local file, for
  every file; from a start position inside a file (``--start-position``) it prints what it
  prints against a real MariaDB 10.11 serving the same files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from generators.engine import generate
from generators.spec import Spec

from .binlog_serving import ServingMariaDBServer
from .mariadb import mariadb_binlog
from .serve_process import ServeProcess

pytestmark = pytest.mark.conformance


@pytest.fixture(scope="module", params=["FULL", "MINIMAL", "NOBLOB"])
def served(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(f"mdb-{request.param}") / "run"
    generate(Spec.from_dict(dict(workload="ecommerce", flavor="mariadb1011", row_image=request.param,
                                 rows_query=True, seed=5, transactions=40, initial_rows=8, ddl_every=15,
                                 max_binlog_size=24000, database="shop")), out)
    files = [out / line.strip()[2:] for line in (out / "binlog.index").read_text().splitlines()]
    assert len(files) >= 2
    with ServeProcess([out]) as srv:
        yield files, srv


def _remote(srv: ServeProcess, *args: str):
    return mariadb_binlog([], "--read-from-remote-server", "--host=127.0.0.1", f"--port={srv.port}",
                          f"--user={srv.user}", f"--password={srv.password}", *args)


def test_raw_copy_is_byte_identical(served, tmp_path: Path) -> None:
    files, srv = served
    proc = _remote(srv, "--raw", "--to-last-log", f"--result-file={tmp_path}/", files[0].name)
    assert proc.returncode == 0, proc.stderr
    for f in files:
        copy = tmp_path / f.name
        assert copy.is_file(), f"{f.name} not copied"
        assert copy.read_bytes() == f.read_bytes(), f.name
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f.name for f in files)


def test_remote_verbose_output_equals_local(served) -> None:
    files, srv = served
    for f in files:
        local = mariadb_binlog([f], "-vv")
        remote = _remote(srv, "-vv", f.name)
        assert local.returncode == 0 and remote.returncode == 0, remote.stderr
        assert remote.stdout == local.stdout, f.name
        assert "###" in local.stdout or f == files[-1]


def test_remote_start_position_equals_real_server(served, mariadb_template: Path) -> None:
    """From a position inside a file a primary sends the FDE with log_pos 0 and no creation time
    (so the output cannot equal the local file's): the output must equal what a real MariaDB
    10.11 serving the same files makes mariadb-binlog print."""
    files, srv = served
    f = files[1]
    offsets = [int(line.split()[2]) for line in mariadb_binlog([f], "-vv").stdout.splitlines()
               if line.startswith("# at ")]
    positions = [offsets[1], offsets[len(offsets) // 2], offsets[-1]]
    with ServingMariaDBServer(mariadb_template) as real:
        real.serve_binlogs(files)
        real.create_replication_user(srv.user, srv.password)
        for pos in positions:
            want = mariadb_binlog([], "--read-from-remote-server", "--host=127.0.0.1", f"--port={real.port}",
                                  f"--user={srv.user}", f"--password={srv.password}", "-vv",
                                  f"--start-position={pos}", f.name)
            got = _remote(srv, "-vv", f"--start-position={pos}", f.name)
            assert want.returncode == 0, want.stderr
            assert got.returncode == 0, got.stderr
            assert got.stdout == want.stdout, pos
