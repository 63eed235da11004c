"""A real MariaDB 10.11 replica replicates generated runs from ``binlogwriter serve``.

For FULL, MINIMAL and NOBLOB images of an ecommerce run (MariaDB flavor; BLOB/TEXT/JSON
columns, several files): a throwaway MariaDB (server id 2) gets ``truth/snapshot.sql``, then
``CHANGE MASTER TO`` the served run, either ``MASTER_USE_GTID=slave_pos`` (starting from an
empty GTID position) or ``MASTER_LOG_FILE='binlog.000001', MASTER_LOG_POS=4``. The dump is
paced (``--rate``) so the replica can be stopped midway (``STOP SLAVE`` with part of the run
applied) and started again; once it has applied the last GTID, without error, every table
equals ``truth/final`` (a lost transaction would show there, a duplicated one would stop the
SQL thread with a duplicate-key error).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from binlogwriter.testing import final_files
from generators.engine import generate
from generators.spec import Spec

from .mariadb import MariaDBServer
from .serve_process import ServeProcess

pytestmark = pytest.mark.conformance
TRANSACTIONS = 60


def truth(out: Path) -> dict[tuple[str, str], list[tuple]]:
    return {key: [tuple(json.loads(line).values()) for line in p.read_text("utf-8").splitlines()]
            for key, p in final_files(out).items()}


def status(rep: MariaDBServer) -> dict[str, str]:
    out = rep.execute("SHOW SLAVE STATUS\\G")
    st = {}
    for line in out.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            st[k.strip()] = v.strip()
    return st


def slave_pos(rep: MariaDBServer) -> str:
    return rep.query("SELECT @@gtid_slave_pos")[0][0] or ""


def wait(rep: MariaDBServer, pred, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        st = status(rep)
        assert st.get("Last_SQL_Errno", "0") == "0", st.get("Last_SQL_Error")
        assert st.get("Last_IO_Errno", "0") == "0", st.get("Last_IO_Error")
        if pred():
            return
        assert time.monotonic() < deadline, f"replica did not catch up: {st}"
        time.sleep(0.2)


@pytest.mark.parametrize("mode", ["gtid", "file_pos"])
@pytest.mark.parametrize("image", ["FULL", "MINIMAL", "NOBLOB"])
def test_replica_replicates_to_truth_final_with_restart(mariadb_template: Path, tmp_path: Path,
                                                       image: str, mode: str) -> None:
    out = tmp_path / "run"
    db = f"rep_{image}_{mode}".lower()
    generate(Spec.from_dict(dict(workload="ecommerce", flavor="mariadb1011", row_image=image, seed=9,
                                 transactions=TRANSACTIONS, initial_rows=10, max_binlog_size=16000,
                                 database=db)), out)
    manifest = json.loads((out / "manifest.json").read_text())
    last_gtid = manifest["files"][-1]["last_gtid"]
    seq_last = int(last_gtid.rsplit("-", 1)[1])
    source = ("MASTER_USE_GTID=slave_pos" if mode == "gtid"
              else "MASTER_LOG_FILE='binlog.000001', MASTER_LOG_POS=4, MASTER_USE_GTID=no")
    with MariaDBServer(mariadb_template, row_image=image, extra_args=["--server-id=2"]) as rep, \
            ServeProcess([out], "--rate", "40tps") as srv:
        rep.execute((out / "truth" / "snapshot.sql").read_text("utf-8"))
        rep.execute(f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={srv.port}, "
                    f"MASTER_USER='{srv.user}', MASTER_PASSWORD='{srv.password}', {source}; START SLAVE;")

        def seq() -> int:
            pos = slave_pos(rep)
            return int(pos.rsplit("-", 1)[1]) if pos else 0

        wait(rep, lambda: seq() >= seq_last // 3)
        rep.execute("STOP SLAVE;")
        midway = seq()
        assert 0 < midway < seq_last, midway
        time.sleep(0.5)
        assert seq() == midway
        rep.execute("START SLAVE;")
        wait(rep, lambda: seq() == seq_last)
        st = status(rep)
        assert st["Slave_SQL_Running"] == "Yes" and st["Slave_IO_Running"] == "Yes"
        if mode == "file_pos":  # at the last file's end (its STOP event is not relayed)
            last = manifest["files"][-1]
            assert st["Relay_Master_Log_File"] == last["name"]
            assert last["bytes"] - 23 == int(st["Exec_Master_Log_Pos"]) == int(st["Read_Master_Log_Pos"])
        for (tdb, table), rows in truth(out).items():
            assert rep.dump_table(tdb, table) == rows, f"{tdb}.{table}"
        assert len(srv.wait_log(r"dump from", 1.0)) >= 2
