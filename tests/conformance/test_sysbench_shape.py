"""Shape conformance (issue #29 §5): REAL sysbench ``oltp_write_only`` on a throwaway
MariaDB 10.11 against ``generate --workload sysbench`` with the same options (tables, table
size, events), both read back with binlogwriter's reader (tests/generators/binlog_shape.py).

Compared: the event sequence of every transaction (a Table_map before each rows event, one
row per event: ``M U1 M U1 M D1 M W1``), which columns each update statement changes (``k``,
then ``c``), every ``k`` update is +1, the DELETE and the INSERT have the same id, zero
UPDATE rows with equal before and after images, the number of transactions (``--events N``
= ``--transactions N``), and the Annotate_rows texts (the same statement forms).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from binlogwriter.reader import BinlogReader
from generators.engine import generate
from generators.spec import Spec

from ..generators.binlog_shape import changed_columns, transactions, unchanged_updates

pytestmark = pytest.mark.conformance

TABLES, SIZE, EVENTS = 2, 40, 60
_TEXT = re.compile(r"UPDATE sbtest\d+ SET k=k\+1 WHERE id=\d+|UPDATE sbtest\d+ SET c='[-0-9]+' WHERE id=\d+|"
                   r"DELETE FROM sbtest\d+ WHERE id=\d+|"
                   r"INSERT INTO sbtest\d+ \(id, k, c, pad\) VALUES \(\d+, \d+, '[-0-9]+', '[-0-9]+'\)")


def _summary(files: list[Path]) -> dict:
    """What the two binlogs are compared on (module docstring), per transaction and overall."""
    txns = transactions(files)
    shapes = {tuple(t.events) for t in txns}
    changed = {tuple(tuple(sorted(changed_columns(c))) for c in t.changes if c.op == "update") for t in txns}
    k_steps = {c.after["k"] - c.before["k"] for t in txns for c in t.changes
               if c.op == "update" and changed_columns(c) == {"k"}}
    same_id = all(t.changes[2].before["id"] == t.changes[3].after["id"] for t in txns)
    texts = [ev.query for ev in BinlogReader(files) if type(ev).__name__ == "AnnotateRowsEvent"]
    return dict(transactions=len(txns), shapes=shapes, changed=changed, k_steps=k_steps, same_id=same_id,
                unchanged=len(unchanged_updates(txns)),
                text_forms=sorted({q.split(" ")[0] + (" k=k+1" if "k=k+1" in q else "") for q in texts}),
                texts_match=all(_TEXT.fullmatch(q) for q in texts), texts=len(texts))


def test_sysbench_oltp_write_only_shape(mariadb_server_factory, tmp_path: Path) -> None:
    sysbench = shutil.which("sysbench")
    assert sysbench, "sysbench is not installed (apt-get install sysbench)"
    server = mariadb_server_factory(row_image="FULL", row_metadata="FULL", annotate=True)
    server.execute("CREATE DATABASE sbtest")
    common = [sysbench, "oltp_write_only", "--db-driver=mysql", f"--mysql-socket={server.socket}",
              "--mysql-user=root", "--mysql-db=sbtest", f"--tables={TABLES}", f"--table-size={SIZE}", "--threads=1"]
    subprocess.run(common + ["prepare"], check=True, capture_output=True, timeout=300)
    before = {p.name for p in server.binlog_files()}  # prepare's CREATE TABLE and rows
    server.flush_logs()  # the run's transactions start a file of their own
    subprocess.run(common + [f"--events={EVENTS}", "--rand-seed=7", "--time=0", "run"], check=True,
                   capture_output=True, timeout=300)
    server.flush_logs()
    real_dir = tmp_path / "real"
    real = [p for p in server.copy_binlogs(real_dir) if p.name.split(".")[-1].isdigit() and p.name not in before]
    real = [p for p in real if p.stat().st_size > 0]

    out = tmp_path / "gen"
    generate(Spec.from_dict(dict(workload="sysbench", flavor="mariadb1011", database="sbtest", tables=TABLES,
                                 initial_rows=SIZE, transactions=EVENTS, rows_query=True, seed=7)), out)
    gen = sorted(out.glob("binlog.[0-9]*"))

    want, got = _summary(real), _summary(gen)
    assert want["transactions"] == EVENTS
    assert want["shapes"] == {("M", "U1", "M", "U1", "M", "D1", "M", "W1")}
    assert want["k_steps"] == {1} and want["unchanged"] == 0 and want["texts_match"]
    assert got == want
