"""A Node.js CDC client from npm, ZongJi (``@vlasky/zongji``, tests/conformance/node), reads a
MySQL- and a MariaDB-flavor run through ``binlogwriter serve``.

ZongJi logs in (mysql2: caching_sha2_password for MySQL files, mysql_native_password for
MariaDB), asks what it asks (checksum, version, binary logs, GTID variables), dumps blocking
from ``binlog.000001:4`` or resumes from a GTID set / MariaDB GTID position, and decodes rows
with the Table_map's FULL metadata. The row counts per kind and per table, and the number of
XIDs, must equal those our reader decodes from the files (after the GTID resume point for the
GTID case). The npm packages are installed on first use (``npm ci`` from package-lock.json: the
``zongji_node`` fixture, toolchain.py).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from binlogwriter.reader import BinlogReader
from generators.engine import generate
from generators.spec import Spec

from .serve_process import ServeProcess

pytestmark = pytest.mark.conformance

NODE_DIR = Path(__file__).parent / "node"
_KIND = {30: "writerows", 31: "updaterows", 32: "deleterows", 23: "writerows", 24: "updaterows",
         25: "deleterows"}


def _expected(out: Path, skip: int) -> tuple[dict, list[str]]:
    files = [out / line.strip()[2:] for line in (out / "binlog.index").read_text().splitlines()]
    counts: dict = {"writerows": 0, "updaterows": 0, "deleterows": 0, "xid": 0, "tables": {}}
    gtids: list[str] = []
    tables: dict[int, str] = {}
    reader = BinlogReader(files)
    for ev in reader:
        t = ev.type_code
        if t in (33, 42, 162):
            gtids.append(ev.gtid if t != 162 else f"{ev.domain_id}-{ev.server_id}-{ev.seq_no}")
        if len(gtids) <= skip:
            continue
        if t == 19:
            tables[ev.table_id] = f"{ev.schema}.{ev.table}"
        elif t == 16:
            counts["xid"] += 1
        elif t in _KIND:
            counts[_KIND[t]] += len(ev.rows)
            name = tables[ev.table_id]
            counts["tables"][name] = counts["tables"].get(name, 0) + len(ev.rows)
    return counts, gtids


@pytest.mark.parametrize("start,flavor,gtid", [
    ("file_pos", "mysql80", None), ("gtid", "mysql80", None),
    ("file_pos", "mariadb1011", None), ("gtid", "mariadb1011", None),
    # tagged GTIDs (GTID_TAGGED_LOG_EVENT, MySQL 8.3+): ZongJi decodes the serialization message
    ("file_pos", "mysql84", "3e11fa47-71ca-11e1-9e33-c80aa9429562:zongji"),
])
def test_zongji_reads_served_run(tmp_path: Path, flavor: str, start: str, gtid: str | None,
                                 zongji_node: str) -> None:
    node = zongji_node
    out = tmp_path / "run"
    generate(Spec.from_dict(dict(workload="ecommerce", flavor=flavor, seed=4, transactions=80, initial_rows=10,
                                 max_binlog_size=20000, database="zj", exclude_types=["JSON"]
                                 if flavor.startswith("mysql") else [],
                                 **({"gtid": gtid} if gtid else {}))), out)
    skip = 0 if start == "file_pos" else 30
    want, gtids = _expected(out, skip)
    assert want["xid"] > 0 and want["writerows"] > 0
    args = []
    if start == "gtid":
        last = gtids[skip - 1]
        args = [f"{last.rsplit(':', 1)[0]}:1-{last.rsplit(':', 1)[1]}" if ":" in last else last]
    with ServeProcess([out]) as srv:
        proc = subprocess.run([node, str(NODE_DIR / "zongji_count.mjs"), str(srv.port), srv.user, srv.password,
                               str(want["xid"]), *args], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr + "\n".join(srv.log)
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        assert got == want
