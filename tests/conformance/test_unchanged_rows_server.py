"""What a real MariaDB 10.11 logs (binlog_format=ROW) for UPDATEs that change nothing, and
for ``DEFAULT`` / ``ON UPDATE CURRENT_TIMESTAMP`` columns — the server rules generators/noop.py
and the generator follow (issue #29 §1):

* an UPDATE whose rows are matched but none changed (``Rows matched: 1  Changed: 0``) logs no
  rows event; a transaction whose only statement changed nothing is not logged at all (no GTID,
  no BEGIN/COMMIT: the server's binlog transaction cache stays empty);
* a statement that changes some rows and matches others unchanged logs the changed rows only;
* ``ON UPDATE CURRENT_TIMESTAMP`` is set only when the row changes; ``DEFAULT
  CURRENT_TIMESTAMP`` takes the statement's time on INSERT.
"""

from __future__ import annotations

import pytest

from binlogwriter.reader import BinlogReader

pytestmark = pytest.mark.conformance


def _gtids_and_rows(server) -> tuple[int, list]:
    server.flush_logs()
    files = [p for p in server.binlog_files() if p.name.split(".")[-1].isdigit()]
    gtids = sum(1 for ev in BinlogReader(files) if type(ev).__name__ == "MariadbGtidEvent")
    return gtids, list(BinlogReader(files).changes())


def test_unchanged_update_logs_nothing(mariadb_server_factory) -> None:
    server = mariadb_server_factory(row_image="FULL", row_metadata="FULL")
    server.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v INT, "
                   "u TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3), "
                   "c DATETIME DEFAULT CURRENT_TIMESTAMP) ENGINE=InnoDB; "
                   "SET TIMESTAMP=1767225600; INSERT INTO d.t (id, v) VALUES (1, 10), (2, 20)")
    server.flush_logs()
    g0, c0 = _gtids_and_rows(server)
    # a transaction whose only statement changes nothing, then one that changes one of two rows
    server.execute("SET TIMESTAMP=1767225700; BEGIN; UPDATE d.t SET v = 10 WHERE id = 1; COMMIT; "
                   "SET TIMESTAMP=1767225800; BEGIN; UPDATE d.t SET v = 20 WHERE id IN (1, 2); COMMIT; "
                   "SET TIMESTAMP=1767225900; UPDATE d.t SET v = 20 WHERE id = 2")
    g1, c1 = _gtids_and_rows(server)
    assert g1 - g0 == 1  # the no-op transactions are not logged, not even as BEGIN/COMMIT
    new = c1[len(c0):]
    assert [(ch.op, ch.before["id"], ch.before["v"], ch.after["v"]) for ch in new] == [("update", 1, 10, 20)]
    ch = new[0]
    assert ch.before["u"] != ch.after["u"]  # ON UPDATE CURRENT_TIMESTAMP: the statement's time
    assert str(ch.after["u"]).startswith("2026-01-01 00:03:20")
    assert ch.before["c"] == ch.after["c"]  # DEFAULT CURRENT_TIMESTAMP alone: not touched
    ins = [x for x in c1 if x.op == "insert"]
    assert {str(x.after["c"]) for x in ins} == {"2026-01-01 00:00:00"}
