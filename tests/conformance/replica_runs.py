"""A real MariaDB 10.11 replica with its own schema replicating a run from ``binlogwriter serve``
(the judge of ``truth/replica/``, docs/replica.md).

:func:`replicate` starts a throwaway replica (server id 2, ``slave_type_conversions`` as given),
creates the replica's tables from its DDL, points it at a served run and waits until it has
applied the run's last GTID or its SQL thread stopped with an error. It returns what the replica
holds: every table of the replica schema in canonical form, and the error (errno, message,
the master file/position the SQL thread stopped at) or None.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

from binlogwriter.charsets import default_collation

from .mariadb import BINARY_TYPES, INT_TYPES, MariaDBError, MariaDBServer, quote_ident, quote_str
from .serve_process import ServeProcess


@dataclass
class ReplicaOutcome:
    tables: dict[str, list[tuple]]
    errno: int
    error: str
    file: str | None
    position: int | None


def _status(rep: MariaDBServer) -> dict[str, str]:
    st: dict[str, str] = {}
    for line in rep.execute("SHOW SLAVE STATUS\\G").splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            st[k.strip()] = v.strip()
    return st


def replicate(template: Path, run: Path, replica_ddl: str, database: str, tables: list[str], *,
              conversions: str = "", timeout: float = 60.0, provision: Path | None = None,
              last_gtid: str | None = None, start_gtid: str | None = None) -> ReplicaOutcome:
    """Replicate ``run`` (MariaDB flavor) into a replica whose ``database`` holds ``replica_ddl``
    — or, with ``provision`` (``truth/replica/provision.sql``), the tables and initial rows that
    file loads through the ``mariadb`` client before START SLAVE. A directory without a
    manifest (a catalogue entry) gives its ``last_gtid``; ``start_gtid`` is the replica's
    ``gtid_slave_pos`` before it starts (the transactions up to it are not replicated)."""
    last = last_gtid or json.loads((run / "manifest.json").read_text())["files"][-1]["last_gtid"]
    seq_last = int(last.rsplit("-", 1)[1]) if last else 0
    args = ["--server-id=2", f"--slave-type-conversions={conversions}"]
    with MariaDBServer(template, extra_args=args) as rep, ServeProcess([run]) as srv:
        if provision is not None:
            rep.execute(provision.read_text("utf-8"))
        else:
            rep.execute(f"CREATE DATABASE `{database}`;")
            rep.execute(replica_ddl, database=database)
        if start_gtid:
            rep.execute(f"SET GLOBAL gtid_slave_pos = '{start_gtid}';")
        rep.execute(f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={srv.port}, "
                    f"MASTER_USER='{srv.user}', MASTER_PASSWORD='{srv.password}', "
                    "MASTER_USE_GTID=slave_pos; START SLAVE;")
        deadline = time.monotonic() + timeout
        while True:
            st = _status(rep)
            errno = int(st.get("Last_SQL_Errno") or 0)
            assert st.get("Last_IO_Errno", "0") == "0", st.get("Last_IO_Error")
            pos = rep.query("SELECT @@gtid_slave_pos")[0][0] or ""
            done = pos and int(pos.rsplit("-", 1)[1]) >= seq_last
            if errno or done or seq_last == 0:
                break
            assert time.monotonic() < deadline, f"replica did not catch up: {st}"
            time.sleep(0.1)
        if errno:
            file, position = st.get("Relay_Master_Log_File"), int(st.get("Exec_Master_Log_Pos") or 0)
        else:
            file = position = None
        dumped = {t: dump_table(rep, database, t) for t in tables}
        return ReplicaOutcome(dumped, errno, st.get("Last_SQL_Error", "") if errno else "", file, position)


def load_error(template: Path, script: str) -> tuple[int, str]:
    """(errno, message) of the first error the ``mariadb`` client reports loading ``script``
    into a fresh server: ``ERROR 1054 (42S22) at line 9: Unknown column ...``; (0, '') when it loads."""
    with MariaDBServer(template) as srv:
        try:
            srv.execute(script)
        except MariaDBError as e:
            m = re.search(r"ERROR (\d+) \(\w+\)(?: at line \d+)?: (.*)", str(e))
            assert m, str(e)
            return int(m.group(1)), m.group(2).strip()
    return 0, ""




_TEXT_TYPES = frozenset("char varchar tinytext text mediumtext longtext".split())


def _sort_key(row: tuple) -> tuple:
    return tuple((0, 0) if v is None else (1, v) if isinstance(v, int | float)
                 else (2, v) if isinstance(v, str) else (3, v["hex"]) for v in row)


def dump_table(rep: MariaDBServer, db: str, table: str) -> list[tuple]:
    """``MariaDBServer.dump_table`` (docs/output.md canonical form), except that text columns
    are read as bytes (``HEX()``) and decoded in the column's own charset here: bytes that are
    not valid in it (latin1 bytes in a utf8mb4 column) become ``{"hex": "..."}``
    (docs/replica.md), sorted after every string."""
    info = rep.query(
        "SELECT COLUMN_NAME, DATA_TYPE, CHARACTER_SET_NAME FROM information_schema.COLUMNS "
        f"WHERE TABLE_SCHEMA = {quote_str(db)} AND TABLE_NAME = {quote_str(table)} "
        "ORDER BY ORDINAL_POSITION")
    exprs, kinds = [], []
    for name, dt, cs in info:
        ident = quote_ident(name)
        if dt in _TEXT_TYPES and cs not in (None, "binary"):
            exprs.append(f"HEX({ident})")
            kinds.append(cs)
        elif dt in BINARY_TYPES or cs == "binary":
            exprs.append(f"HEX({ident})")
            kinds.append("hex")
        elif dt == "float":
            exprs.append(f"CAST({ident} AS DOUBLE)")
            kinds.append("float")
        elif dt == "bit":
            exprs.append(f"{ident}+0")
            kinds.append("int")
        else:
            exprs.append(ident)
            kinds.append("float" if dt == "double" else "int" if dt in INT_TYPES else "str")
    rows = []
    for raw in rep.query(f"SELECT {', '.join(exprs)} FROM {quote_ident(db)}.{quote_ident(table)}"):
        row = []
        for v, kind in zip(raw, kinds, strict=True):
            if v is None or kind == "str":
                row.append(v)
            elif kind == "int":
                row.append(int(v))
            elif kind == "float":
                row.append(float(v))
            elif kind == "hex":
                row.append("0x" + v.lower())
            else:
                data = bytes.fromhex(v)
                try:
                    row.append(default_collation(kind, "mariadb1011").decode(data))
                except (UnicodeDecodeError, LookupError):
                    row.append({"hex": data.hex()})
        rows.append(tuple(row))
    rows.sort(key=_sort_key)
    return rows
