"""MariaDB ``--parallel-groups`` (generators/group_commit.py): the commit ids of generated
runs read back from the GTID events (``FL_GROUP_COMMIT_ID``) equal an independent model of
the group-commit rule written here from the run's truth alone, and a group never holds two
transactions changing the same key.

The model: the GTID groups in binlog order; a DDL group carries no commit id and closes the
open group; a row transaction's keys are the (table, key name, key values) of every PRIMARY
/ UNIQUE key of every row image it changes (truth/changes); it joins the open group when
the group has fewer than N members, was not closed by a transaction alone, and shares none
of its keys; a transaction changing a table without keys is alone; a group's commit id is
its first transaction's seq_no — and a group of ONE transaction carries no commit id (MariaDB
10.11 sql/log.cc ``trx_group_commit_leader``: ``commit_id = (last_in_queue == leader ? 0 :
…)``, 0 writing no ``FL_GROUP_COMMIT_ID``; seen on a real 10.11 in
tests/conformance/test_parallel_groups_replica.py). Rotation: the server rotates once the
whole group is written (``rotate()`` after the queue), so a file ends at the first group
commit end at or past ``max_binlog_size`` and no commit id spans two files.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.reader import BinlogReader
from generators.engine import generate
from generators.group_commit import GroupCommits
from generators.spec import Spec, SpecError, validate
from tests.generators.test_writeset_runs import FK_DDL, FK_REFS, SCHEMAS, ddl_keys

GROUP_SCHEMAS = dict(SCHEMAS)
GROUP_SCHEMAS["multibyte"] = ("CREATE TABLE m (code VARCHAR(24) CHARACTER SET utf8mb4 NOT NULL PRIMARY KEY, "
                              "t TEXT CHARACTER SET utf8mb4, s VARCHAR(40) CHARACTER SET utf8mb4);")
GROUP_SCHEMAS["wide"] = ("CREATE TABLE w (id INT NOT NULL PRIMARY KEY, "
                         + ", ".join(f"c{i} {'VARCHAR(8)' if i % 3 else 'INT'}" for i in range(120)) + ");")


def _changes(out: Path) -> dict[tuple[str, int], list[dict]]:
    rows: dict[tuple[str, int], list[dict]] = {}
    for line in (out / "truth" / "changes" / "changes.jsonl").read_text(encoding="utf-8").split("\n"):
        if line:
            ch = json.loads(line)
            rows.setdefault((ch["file"], ch["transaction_position"]), []).append(ch)
    return rows


def _gtids(out: Path) -> list[tuple[str, object]]:
    files = [f["name"] for f in json.loads((out / "manifest.json").read_text())["files"]]
    return [(name, ev) for name in files for ev in BinlogReader([out / name]) if ev.type_code == 162]


def _key_set(changes: list[dict], keys: dict, refs: dict | None = None) -> tuple[set, bool]:
    """The transaction's keys and whether it changes a table without any key."""
    ws: set = set()
    lone = False
    for c in changes:
        if not keys[c["table"]]:
            lone = True
        for img in (c.get("before_row"), c.get("after_row")):  # full rows (MINIMAL images may lack the key)
            if img is None:
                continue
            for kname, cols in keys[c["table"]]:
                ws.add((c["table"], kname, json.dumps([img[k] for k in cols])))
            for cols, parent, kname in (refs or {}).get(c["table"], []):
                ws.add((parent, kname, json.dumps([img[k] for k in cols])))
    return ws, lone


def model_commit_ids(out: Path, keys: dict, n: int) -> list[int | None]:
    rows = _changes(out)
    want: list[int | None] = []
    start, size, closed, group = 0, 0, True, set()
    for name, ev in _gtids(out):
        changes = rows.get((name, ev.origin.offset), [])
        if ev.flags2 & 0x20:  # DDL: alone, no commit id
            want.append(None)
            closed = True
            continue
        ws, lone = _key_set(changes, keys)
        if closed or lone or size >= n or ws & group:
            start, size, group = ev.seq_no, 0, set()
        group |= ws
        size += 1
        closed = lone
        want.append(start)
    members: dict[int, int] = {}
    for c in want:
        if c is not None:
            members[c] = members.get(c, 0) + 1
    return [None if c is None or members[c] == 1 else c for c in want]


def rotation_faults(out: Path, max_size: int) -> list[str]:
    """Where a file does not end at its first group-commit end at or past ``max_size`` (a
    group continuing into the next file included)."""
    files = [f["name"] for f in json.loads((out / "manifest.json").read_text())["files"]]
    txns = []  # (file index, end offset, commit id) of every transaction, in binlog order
    for k, name in enumerate(files):
        evs = list(BinlogReader([out / name]))
        starts = [j for j, ev in enumerate(evs) if ev.type_code == 162]
        for a, b in zip(starts, [*starts[1:], len(evs)], strict=False):
            txns.append((k, max(ev.log_pos for ev in evs[a:b] if ev.type_code != 4), evs[a].commit_id))
    faults = []
    for x, (k, end, cid) in enumerate(txns):
        nxt = txns[x + 1] if x + 1 < len(txns) else None
        group_ends = nxt is None or cid is None or nxt[2] != cid
        if nxt is not None and nxt[0] != k and not group_ends:
            faults.append(f"{files[k]}: group commit {cid} continues in {files[nxt[0]]}")
        if nxt is not None and nxt[0] == k and group_ends and end >= max_size:
            faults.append(f"{files[k]}: a group commit ends at {end} >= {max_size}, the file goes on")
        if nxt is not None and nxt[0] != k and end < max_size:
            faults.append(f"{files[k]}: rotated at {end} < {max_size}")
    return faults


def _spec(**kw) -> Spec:
    return Spec.from_dict({"flavor": "mariadb1011", "template": "mix", "mix": "insert=0.3,update=0.5,delete=0.2",
                           "key_dist": "zipf:1.1", **kw})


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(tables=st.lists(st.sampled_from(sorted(GROUP_SCHEMAS)), min_size=1, max_size=3, unique=True),
       n=st.sampled_from([2, 3, 8, 1000]), image=st.sampled_from(["FULL", "MINIMAL", "NOBLOB"]),
       rotate=st.sampled_from([8192, 30_000, 1 << 30]), ddl_every=st.sampled_from([0, 7, 40]),
       seed=st.integers(1, 1000), initial=st.sampled_from([3, 20, 200]), rows=st.sampled_from(["1", "1-6"]),
       rows_query=st.booleans(), size=st.sampled_from([None, 40_000, 90_000]))
def test_generated_commit_ids_equal_the_group_commit_rule(tables, n, image, rotate, ddl_every, seed, initial, rows,
                                                          rows_query, size, tmp_path_factory) -> None:
    ddl = "\n".join(GROUP_SCHEMAS[t] for t in tables)
    out = tmp_path_factory.mktemp("gc") / "run"
    count = {"transactions": 150} if size is None else {"size": size}
    generate(_spec(workload=None, schema_sql=ddl, schema_file="s.sql", parallel_groups=n, row_image=image,
                   max_binlog_size=rotate, ddl_every=ddl_every, seed=seed, initial_rows=initial,
                   rows_per_txn=rows, rows_query=rows_query, **count), out)
    gtids = _gtids(out)
    got = [ev.commit_id for _, ev in gtids]
    want = model_commit_ids(out, ddl_keys(ddl), n)
    assert len(got) == len(want) > 0
    assert got == want
    assert all((ev.commit_id is None) == (not ev.flags2 & 0x02) for _, ev in gtids)
    sizes = np.unique([c for c in got if c is not None], return_counts=True)[1]
    if len(sizes):
        assert sizes.min() >= 2, "a group of one carries no commit id"
        assert sizes.max() <= n
    if "keyless" not in tables and len(got) > 20:
        assert len(sizes) and sizes.max() >= 2, "some transactions group-committed"
    assert rotation_faults(out, rotate) == []


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(1, 10_000), initial=st.sampled_from([2, 5, 40]), n=st.sampled_from([4, 1000]))
def test_foreign_key_groups_never_share_a_key_or_a_referenced_parent(seed, initial, n, tmp_path_factory) -> None:
    """FOREIGN KEY parents (ord, cust, prod) are alone; a child row (line) also holds the
    parent key it references: no group has two transactions with a key (or a referenced
    parent key) in common."""
    out = tmp_path_factory.mktemp("fk") / "run"
    generate(_spec(workload=None, schema_sql=FK_DDL, schema_file="fk.sql", database="fk", seed=seed,
                   initial_rows=initial, transactions=200, rows_per_txn="1-2", parallel_groups=n,
                   mix="insert=0.2,update=0.7,delete=0.1"), out)
    keys, rows = ddl_keys(FK_DDL), _changes(out)
    groups: dict[int, list[tuple[set, set]]] = {}
    for name, ev in _gtids(out):
        if ev.commit_id is None:
            continue
        changes = rows.get((name, ev.origin.offset), [])
        ws, _ = _key_set(changes, keys, FK_REFS)
        groups.setdefault(ev.commit_id, []).append((ws, {c["table"] for c in changes}))
    assert max(len(g) for g in groups.values()) >= 2
    for members in groups.values():
        assert len(members) <= n
        seen: set = set()
        for ws, tables in members:
            assert not ws & seen
            seen |= ws
            if tables & {"ord", "cust", "prod"}:
                assert len(members) == 1, "a FOREIGN KEY parent's transaction is alone"


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), m=st.integers(1, 60), n=st.integers(2, 9), tables=st.integers(1, 3), keys=st.integers(1, 12))
def test_batches_cut_anywhere_give_the_same_groups(data, m, n, tables, keys) -> None:
    """The open group is carried from batch to batch (and Spark partition to partition) by
    the state: groups planned in pieces equal groups planned at once; no group holds a key
    twice, none exceeds ``n``, a transaction on a keyless / barrier table is alone."""
    keyless = np.array(data.draw(st.lists(st.booleans(), min_size=tables, max_size=tables)))
    barrier = np.array(data.draw(st.lists(st.booleans(), min_size=tables, max_size=tables))) & ~keyless
    ops = data.draw(st.lists(st.tuples(st.integers(0, m - 1), st.integers(0, tables - 1), st.integers(0, keys - 1)),
                             min_size=1, max_size=4 * m))
    ops.sort(key=lambda o: o[0])
    ot, otab, ok = (np.array(x, dtype=np.int64) for x in zip(*ops, strict=True))
    whole = GroupCommits(keyless, barrier, n)
    pos, after = whole.plan_batch(m, ot, otab, ok)
    cuts = sorted(set(data.draw(st.lists(st.integers(1, m - 1), max_size=4)) if m > 1 else []))
    pieces = GroupCommits(keyless, barrier, n)
    got = []
    for lo, hi in zip([0, *cuts], [*cuts, m], strict=True):
        sel = (ot >= lo) & (ot < hi)
        p, st_after = pieces.plan_batch(hi - lo, ot[sel] - lo, otab[sel], ok[sel])
        pieces.commit(st_after(hi - lo))
        got.append(p)
    assert np.concatenate(got).tolist() == pos.tolist()
    # invariants over the transactions that write a group
    wrote = np.unique(ot)
    gid = np.cumsum(pos[wrote] == 0)
    for g in np.unique(gid):
        members = wrote[gid == g]
        assert len(members) <= n
        seen: set = set()
        for t in members:
            mine = {(a, b) for a, b in zip(otab[ot == t].tolist(), ok[ot == t].tolist(), strict=True)}
            assert not mine & seen
            seen |= mine
            if (keyless | barrier)[otab[ot == t]].any():
                assert len(members) == 1


def test_default_and_one_write_no_commit_id(tmp_path: Path) -> None:
    """Off by default (and at 1): the earlier bytes, no FL_GROUP_COMMIT_ID."""
    digests = []
    for n in (None, 0, 1):
        out = tmp_path / f"r{n}"
        generate(Spec.from_dict(dict(workload="sysbench", flavor="mariadb1011", transactions=30, initial_rows=20,
                                     parallel_groups=n)), out)
        assert all(ev.commit_id is None and not ev.flags2 & 2 for _, ev in _gtids(out))
        digests.append((out / "binlog.000001").read_bytes())
    assert digests[0] == digests[1] == digests[2]


def test_mysql_refuses_parallel_groups() -> None:
    with pytest.raises(SpecError, match="parallel-groups"):
        validate(Spec.from_dict(dict(workload="sysbench", flavor="mysql80", parallel_groups=4)))
