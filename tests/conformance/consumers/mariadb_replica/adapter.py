"""A real MariaDB 10.11 replica (tests/conformance/mariadb.py starts a throwaway one per cell)
replicates the served run: ``CHANGE MASTER TO`` the served port, ``MASTER_LOG_FILE=
'binlog.000001', MASTER_LOG_POS=4, MASTER_USE_GTID=no``, ``START SLAVE``; once its SQL thread
has applied everything the IO thread read from the last file (or stopped with an error, which
is raised with the server's message), every table the run defines is read back.

A replica gives no change stream: ``MODE = "final_rows"`` — the comparison is on the rows left
in each table (truth/final of a run, ``WrittenBinlogs.rows`` of a catalogue case), as
multisets. ``decode`` returns one ``{"op": "row", "database", "table", "after": row}`` per
row, values as PyMySQL returns them over the replica's socket (int, Decimal, str, bytes,
datetime, date, timedelta, float; JSON as text, SET as ``'a,b'``). The replica's server id is
2 (the files' is 1), ``binlog_format=ROW`` and the row image of the server's defaults.
MariaDB flavor only.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.conformance.consumers._names import definitions

if TYPE_CHECKING:
    from tests.conformance.consumers.base import ServedEndpoint

NAME = "mariadb-replica"
FLAVORS = ("mariadb1011",)
MODE = "final_rows"
_TEMPLATE: dict[str, Path] = {}


def version() -> str:
    import subprocess

    out = subprocess.run(["mariadbd", "--version"], capture_output=True, text=True).stdout
    return out.split("Ver ")[1].split()[0] if "Ver " in out else "?"


def ensure_built() -> None:
    """An initialised datadir to copy replicas from (mariadb-install-db), made once per process
    and removed when it exits."""
    from tests.conformance.mariadb import MariaDBMissing, make_template

    if "t" in _TEMPLATE:
        return
    base = Path(tempfile.mkdtemp(prefix="matrix-replica-"))
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    try:
        _TEMPLATE["t"] = make_template(base / "data")
    except MariaDBMissing as exc:
        raise AssertionError(f"{exc} (apt-get install mariadb-server mariadb-client)") from None


def _status(rep: Any) -> dict[str, str]:
    st = {}
    for line in rep.execute("SHOW SLAVE STATUS\\G").splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            st[k.strip()] = v.strip()
    return st


def _wait_applied(rep: Any, last_file: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    stable = 0
    while True:
        st = _status(rep)
        if st.get("Last_SQL_Errno", "0") != "0":
            raise RuntimeError(f"replica SQL thread stopped: {st.get('Last_SQL_Error')}")
        if st.get("Last_IO_Errno", "0") != "0":
            raise RuntimeError(f"replica IO thread stopped: {st.get('Last_IO_Error')}")
        done = (st.get("Relay_Master_Log_File") == last_file and st.get("Master_Log_File") == last_file
                and st.get("Read_Master_Log_Pos") == st.get("Exec_Master_Log_Pos")
                and "read all relay log" in st.get("Slave_SQL_Running_State", ""))
        stable = stable + 1 if done else 0
        if stable >= 3:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"replica did not catch up in {timeout:.0f} s: {st}")
        time.sleep(0.2)


def decode(server: ServedEndpoint, *, expected_changes: int, timeout: float = 120.0) -> list[dict]:
    import pymysql

    from tests.conformance.mariadb import MariaDBServer

    ensure_built()
    run = Path(server.run_dir)
    files = [ln.strip()[2:] if ln.strip().startswith("./") else ln.strip()
             for ln in (run / "binlog.index").read_text().splitlines() if ln.strip()]
    out: list[dict] = []
    with MariaDBServer(_TEMPLATE["t"], extra_args=["--server-id=2"]) as rep:
        rep.execute(f"CHANGE MASTER TO MASTER_HOST='{server.host}', MASTER_PORT={server.port}, "
                    f"MASTER_USER='{server.user}', MASTER_PASSWORD='{server.password}', "
                    "MASTER_LOG_FILE='binlog.000001', MASTER_LOG_POS=4, MASTER_USE_GTID=no; START SLAVE;")
        _wait_applied(rep, files[-1], timeout)
        conn = pymysql.connect(unix_socket=str(rep.socket), user="root", charset="utf8mb4")
        try:
            with conn.cursor() as cur:
                cur.execute("SET time_zone = '+00:00'")
                for (db, table) in definitions(run):
                    cur.execute("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema=%s "
                                "AND table_name=%s", (db, table))
                    if not cur.fetchone()[0]:
                        continue
                    cur.execute(f"SELECT * FROM `{db}`.`{table}`")
                    names = [d[0] for d in cur.description]
                    for row in cur.fetchall():
                        out.append({"op": "row", "database": db, "table": table,
                                    "before": None, "after": dict(zip(names, row, strict=True))})
        finally:
            conn.close()
    return out
