"""What a real MariaDB 10.11 writes for binlog group commits — the two rules
generators/group_commit.py follows (issue #29, ``--parallel-groups``), seen on the server:

* a transaction committed alone carries no commit id (GTID flags2 without
  ``FL_GROUP_COMMIT_ID``); transactions committed in one group (concurrent clients queued by
  ``binlog_commit_wait_count``) each carry the same commit id;
* the server rotates only after a whole group: a group whose first member already takes the
  file past ``max_binlog_size`` is written whole into that file, and the next file starts
  with the next group.

Expected values come from the server's own binlog, read back with our reader and checked
against ``mariadb-binlog``'s ``cid=`` text.
"""

from __future__ import annotations

import subprocess

import pytest

from binlogwriter.reader import BinlogReader
from tests.conformance.mariadb import mariadb_binlog

pytestmark = pytest.mark.conformance

_PAD = "x" * 1500  # each transaction ~1.6 KB: the group's first member crosses 4096 bytes


def _gtids(server) -> list[tuple[str, int, int | None, int]]:
    """(file, seq_no, commit id, flags2) of every GTID of the server's binlogs."""
    server.flush_logs()
    out = []
    for f in server.binlog_files():
        for ev in BinlogReader([f]):
            if ev.type_code == 162:
                out.append((f.name, ev.seq_no, ev.commit_id, ev.flags2))
    return out


def _concurrent(server, statements: list[str]) -> None:
    """Each statement from its own client at once (they queue for one group commit)."""
    procs = [subprocess.Popen(server.client_args("d"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in statements]
    for p, sql in zip(procs, statements, strict=True):
        p.stdin.write(sql)
        p.stdin.close()
    for p in procs:
        assert p.wait(timeout=120) == 0, p.stderr.read()


def test_lone_transactions_carry_no_commit_id_and_groups_rotate_whole(mariadb_server_factory) -> None:
    server = mariadb_server_factory()
    server.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, pad TEXT) ENGINE=InnoDB;")
    server.execute("SET GLOBAL max_binlog_size = 4096; FLUSH BINARY LOGS;")
    before = {seq for _, seq, _, _ in _gtids(server)}
    server.execute(f"INSERT INTO d.t VALUES (1, '{_PAD}');", database="d")  # alone
    server.execute("SET GLOBAL binlog_commit_wait_count = 3; SET GLOBAL binlog_commit_wait_usec = 20000000;")
    try:
        _concurrent(server, [f"INSERT INTO t VALUES ({i}, '{_PAD}');" for i in (10, 11, 12)])
    finally:
        server.execute("SET GLOBAL binlog_commit_wait_count = 0;")
    server.execute(f"INSERT INTO d.t VALUES (2, '{_PAD}');", database="d")  # alone again
    got = [g for g in _gtids(server) if g[1] not in before]
    assert len(got) == 5
    lone1, g1, g2, g3, lone2 = got
    for lone in (lone1, lone2):
        assert lone[2] is None and not lone[3] & 0x02, f"a transaction committed alone: {lone}"
    cids = {g[2] for g in (g1, g2, g3)}
    assert len(cids) == 1 and None not in cids, f"one group commit, one commit id: {(g1, g2, g3)}"
    assert all(g[3] & 0x02 for g in (g1, g2, g3))
    # rotation: a member of the group ends past 4096 and the next member is still written into
    # that file; the ROTATE comes after the group's last member
    files = [g[0] for g in got]
    assert files[1] == files[2] == files[3], f"a group commit spans files: {files}"
    assert files[4] != files[3], "the server rotated after the group"
    group_file = next(f for f in server.binlog_files() if f.name == files[1])
    assert group_file.stat().st_size > 4096
    ends = [ev.log_pos for ev in BinlogReader([group_file]) if ev.type_code == 16]  # XIDs
    assert sum(e >= 4096 for e in ends) >= 2, f"members written after the file passed 4096: {ends}"
    # mariadb-binlog prints the same commit ids (cid=) for the group, none for the others
    text = mariadb_binlog(server.binlog_files()).stdout
    cid = cids.pop()
    assert text.count(f"cid={cid}") == 3
    for lone in (lone1, lone2):
        assert f"GTID 0-1-{lone[1]} trans" in text
