"""The ``last_committed`` of generated MySQL runs (``--dependency-tracking writeset``, the
default) equals an independent implementation of the server's WRITESET rule written here
from the run's truth alone: per binlog file, the groups in order, each one's writeset the
(table, key name, key values) of every PRIMARY / UNIQUE key of every row image it changes
(truth/changes before and after), DDL groups (no row change) clearing the history, rows of
tables without any key keeping the commit order, FOREIGN KEY parents clearing the history,
the history restarting at each file with start 1 (sql/rpl_trx_tracking.cc, binlog.cc
``open_binlog`` → ``rotate()``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.reader import BinlogReader
from generators.engine import generate
from generators.spec import Spec

UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
GTID_TYPES = (33, 34, 42)

SCHEMAS = {
    "plain": "CREATE TABLE a (id INT NOT NULL PRIMARY KEY, v VARCHAR(20), n INT);",
    "composite": "CREATE TABLE c (x INT NOT NULL, y VARCHAR(12) NOT NULL, v INT, PRIMARY KEY (x, y));",
    "unique": "CREATE TABLE u (id BIGINT NOT NULL PRIMARY KEY, code VARCHAR(30) NOT NULL, v INT, UNIQUE KEY uc (code));",
    "keyless": "CREATE TABLE k (v INT, w VARCHAR(10));",
    "wide": "CREATE TABLE w (id INT NOT NULL PRIMARY KEY, "
            + ", ".join(f"c{i} INT" for i in range(70)) + ");",
}


def ddl_keys(create: str) -> dict[str, list[tuple[str, list[str]]]]:
    """table -> [(key name, columns)] of its PRIMARY and UNIQUE keys, read from the DDL."""
    out: dict[str, list[tuple[str, list[str]]]] = {}
    for stmt in create.split(";"):
        m = re.search(r"CREATE TABLE\s+`?(\w+)`?\s*\((.*)\)\s*$", stmt.strip(), re.S)
        if not m:
            continue
        name, body = m.group(1), m.group(2)
        keys = []
        for km in re.finditer(r"PRIMARY KEY\s*\(([^)]*)\)", body):
            keys.append(("PRIMARY", [c.strip(" `") for c in km.group(1).split(",")]))
        for col in re.finditer(r"(\w+)\s+\w+(?:\([^)]*\))?[^,]*PRIMARY KEY", body):
            if not keys:
                keys.append(("PRIMARY", [col.group(1)]))
        for km in re.finditer(r"UNIQUE KEY\s+`?(\w+)`?\s*\(([^)]*)\)", body):
            keys.append((km.group(1), [c.strip(" `") for c in km.group(2).split(",")]))
        out[name] = keys
    return out


def model_last_committed(out: Path, keys: dict, fk_parents: set[str] = frozenset(), cap: int = 25000,
                         refs: dict | None = None) -> list[int]:
    """The server's last_committed for every GTID group of the run at ``out``, file by file;
    ``refs``: per child table its FOREIGN KEYs (columns, parent, referenced key name)."""
    rows: dict[tuple[str, int], list[dict]] = {}
    for line in (out / "truth" / "changes" / "changes.jsonl").read_text(encoding="utf-8").split("\n"):
        if not line:
            continue
        ch = json.loads(line)
        rows.setdefault((ch["file"], ch["transaction_position"]), []).append(ch)
    want = []
    for f in json.loads((out / "manifest.json").read_text())["files"]:
        name = f["name"]
        history: dict = {}
        start = 1
        seq = 0
        for ev in BinlogReader([out / name]):
            if ev.type_code not in GTID_TYPES:
                continue
            seq += 1
            changes = rows.get((name, ev.origin.offset), [])
            commit_parent = seq - 1
            if not changes or any(c["table"] in fk_parents for c in changes):
                want.append(commit_parent)
                history.clear()
                start = seq
                continue
            ws = set()
            missing = False
            for c in changes:
                for img in (c.get("before_row"), c.get("after_row")):  # full rows: a MINIMAL image may lack the key
                    if img is None:
                        continue
                    added = False
                    for kname, cols in keys[c["table"]]:
                        vals = tuple(img[k] for k in cols)
                        if any(v is None for v in vals):
                            continue
                        ws.add((c["database"], c["table"], kname, json.dumps(vals)))
                        added = True
                    for cols, parent, kname in (refs or {}).get(c["table"], []):
                        vals = tuple(img[k] for k in cols)
                        if all(v is not None for v in vals):
                            ws.add((c["database"], parent, kname, json.dumps(vals)))
                            added = True
                    missing |= not added
            exceeds = len(history) + len(ws) > cap
            parent = start
            for h in ws:
                if h in history:
                    parent = max(parent, history[h])
                    history[h] = seq
                elif not exceeds:
                    history[h] = seq
            want.append(commit_parent if missing else min(parent, commit_parent))
            if exceeds:
                history.clear()
                start = seq
    return want


def written_last_committed(out: Path) -> list[int]:
    got = []
    for f in json.loads((out / "manifest.json").read_text())["files"]:
        got += [ev.last_committed for ev in BinlogReader([out / f["name"]]) if ev.type_code in GTID_TYPES]
    return got


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(tables=st.lists(st.sampled_from(sorted(SCHEMAS)), min_size=1, max_size=3, unique=True),
       flavor=st.sampled_from(["mysql80", "mysql84"]), gtid=st.sampled_from(["anonymous", UUID, f"{UUID}:t1"]),
       image=st.sampled_from(["FULL", "MINIMAL", "NOBLOB"]), rotate=st.sampled_from([8192, 30_000, 1 << 30]),
       ddl_every=st.sampled_from([0, 7, 40]), compress=st.booleans(), seed=st.integers(1, 1000),
       initial=st.sampled_from([3, 20, 200]), rows=st.sampled_from(["1", "1-6"]))
def test_generated_last_committed_equals_the_writeset_rule(tables, flavor, gtid, image, rotate, ddl_every, compress,
                                                           seed, initial, rows, tmp_path_factory) -> None:
    if gtid.endswith(":t1") and flavor != "mysql84":
        gtid = UUID
    ddl = "\n".join(SCHEMAS[t] for t in tables)
    out = tmp_path_factory.mktemp("ws") / "run"
    generate(Spec.from_dict(dict(workload=None, schema_sql=ddl, schema_file="s.sql", flavor=flavor, gtid=gtid,
                                 row_image=image, max_binlog_size=rotate, ddl_every=ddl_every,
                                 transaction_compression=compress, seed=seed, initial_rows=initial,
                                 transactions=150, template="mix", rows_per_txn=rows,
                                 mix="insert=0.3,update=0.5,delete=0.2", key_dist="zipf:1.1")), out)
    got = written_last_committed(out)
    want = model_last_committed(out, ddl_keys(ddl))
    assert len(got) == len(want) > 0
    assert got == want
    if "keyless" not in tables or len(tables) > 1:  # some parallelism was found: not all commit order
        seqs = []
        for f in json.loads((out / "manifest.json").read_text())["files"]:
            seqs += [ev.sequence_number for ev in BinlogReader([out / f["name"]]) if ev.type_code in GTID_TYPES]
        assert any(lc < s - 1 for lc, s in zip(got, seqs, strict=True))


def test_commit_order_keeps_the_serial_clock(tmp_path: Path) -> None:
    generate(Spec.from_dict(dict(workload="sysbench", transactions=80, initial_rows=50, dependency_tracking="commit_order",
                                 gtid=UUID)), tmp_path / "r")
    got = written_last_committed(tmp_path / "r")
    assert got == list(range(len(got)))


FK_DDL = """
CREATE TABLE line (o BIGINT UNSIGNED NOT NULL, n SMALLINT NOT NULL, p CHAR(8) NOT NULL, q INT,
  PRIMARY KEY (o, n), FOREIGN KEY (o) REFERENCES ord (id), FOREIGN KEY (p) REFERENCES prod (code));
CREATE TABLE ord (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, who VARCHAR(60) NOT NULL,
  note VARCHAR(20), CONSTRAINT fk_who FOREIGN KEY (who) REFERENCES cust (email));
CREATE TABLE cust (id INT NOT NULL PRIMARY KEY, email VARCHAR(60) NOT NULL, UNIQUE KEY uk_email (email));
CREATE TABLE prod (code CHAR(8) NOT NULL, price DECIMAL(6,2), PRIMARY KEY (code));
CREATE TABLE solo (id INT NOT NULL PRIMARY KEY, v INT);
"""
# line's FOREIGN KEYs: (columns, parent, referenced key name of the parent)
FK_REFS = {"line": [(["o"], "ord", "PRIMARY"), (["p"], "prod", "PRIMARY")], "ord": [(["who"], "cust", "uk_email")]}


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(1, 10_000), initial=st.sampled_from([2, 5, 40]), rotate=st.sampled_from([8192, 1 << 30]))
def test_foreign_keys_parents_are_barriers_children_hash_the_parent(seed, initial, rotate, tmp_path_factory) -> None:
    """A custom schema with FOREIGN KEYs: a group changing a referenced table (ord, cust,
    prod) keeps the commit order and clears the history; a child row (line) also hashes the
    parent key its FOREIGN KEY values name, so two groups changing lines of one order
    depend on each other."""
    out = tmp_path_factory.mktemp("fk") / "run"
    generate(Spec.from_dict(dict(workload=None, schema_sql=FK_DDL, schema_file="fk.sql", database="fk", seed=seed,
                                 initial_rows=initial, transactions=200, max_binlog_size=rotate, template="mix",
                                 rows_per_txn="1-2", mix="insert=0.2,update=0.7,delete=0.1")), out)
    keys = ddl_keys(FK_DDL)
    got = written_last_committed(out)
    want = model_last_committed(out, keys, {"ord", "cust", "prod"}, refs=FK_REFS)
    assert got == want
