"""spark_gen's partition functions and driver scans, without Spark.

:func:`emulate` chains them the way spark_gen/job.py does, with ``sorted`` in place of the
shuffles and plain loops in place of tasks; its output must equal the single-process
engine's byte for byte for any number of partitions.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.batch.unique import lexsort_ints
from generators.api import FileInfo, Run, build_manifest, file_entry, generate, planned_for
from generators.keys import KeyCursor, resolve_ops, step
from generators.plan import plan_transaction
from generators.spec import Spec, resolve
from spark_gen import partition as part
from spark_gen import plan
from spark_gen.commit import concat_binlog
from spark_gen.writer import WriterStart, file_name, header_size, rotate_size
from tests.generators.edge_schemas import EVERY_FAMILY_DDL, JSON_DDL

from .conftest import tree_digest


def _spec(**kw) -> Spec:
    return resolve(Spec.from_dict({"transactions": 120, "initial_rows": 20, "seed": 5, **kw}))


def emulate(spec: Spec, parts: int, out: Path) -> None:
    """spark_gen/job.py without Spark (binlogs, index, truth/final JSONL, snapshot, manifest)."""
    run0 = Run(spec, out)
    infos, nt = run0.infos, len(run0.infos)
    n = planned_for(spec, spec.transactions)  # --transactions N: N written (generators/run_count.py)
    ranges = plan.split(n, parts)
    counts = [part.count_new(spec, infos, a, b) for a, b in ranges]
    new = plan.prefix_new([c[0] for c in counts], nt)
    adv = plan.prefix_sum([c[1] for c in counts])
    hwm = plan.prefix_hwm([part.max_hwm(spec, infos, new[p], a, b) for p, (a, b) in enumerate(ranges)], infos)
    curs = plan.cursors(new, hwm)
    # the two shuffles: blocks routed by their key (bucket, then transaction range)
    # (the blocks of both go through files, as in the job: save_blocks / load_blocks)
    bdir = out / ".chunks" / "blocks"
    blocks = [x for p, (a, b) in enumerate(ranges)
              for x in part.save_blocks(part.key_op_blocks(spec, infos, curs[p], a, b, parts), str(bdir / f"o{p}"))]
    for t, inf in enumerate(infos):
        blocks.extend(part.save_blocks(part.init_blocks(part.make_run(spec), t, 0, inf.first_fresh, parts),
                                       str(bdir / f"i{t}")))
    ends = [b for _, b in ranges]
    # resolve, shuffle back by range, merge + pass 1, the blocks saved to files (as the job does)
    back = [r for q in range(parts)
            for r in part.resolve_task(q, part.load_blocks(x for x in blocks if x[0] == q), str(bdir / f"h{q}"),
                                       ends)]
    sums = [part.merge_task(spec, p, a, b, (r for r in back if r[0] == p), str(bdir / f"t{p}"))
            for p, (a, b) in enumerate(ranges)]
    hist = [part.load_block(s.hist) for s in sums]
    chunks = [[part.load_block(s.block)] for s in sums]
    fmt, st = run0.fmt, run0.session_settings()

    def hs(idx, g):
        return header_size(fmt, basename=spec.basename, server_id=spec.server_id, settings=st, file_index=idx,
                           groups_before=g)

    w = plan.walk(sums, ranges, max_size=spec.max_binlog_size, size_limit=None, header_size=hs,
                  rotate_size=lambda i: rotate_size(fmt, basename=spec.basename, server_id=spec.server_id,
                                                    next_index=i))
    tables = plan.number_tables([s.uses for s in sums], st.first_table_id)
    seq_starts = plan.prefix_sum([s.txns for s in sums])  # truth/changes seq: transactions with changes
    # MySQL WRITESET: the tracker's state at each range's start, replayed as the job's driver does
    clocks = part.clock_states(spec, (c[0] for c in chunks), ranges, sums[0].prologue if sums else 0)
    files: dict[str, list[str]] = {}
    results = []
    for p, (a, b) in enumerate(ranges):
        pos = w.starts[p]
        start = WriterStart(pos.file_index, pos.offset, pos.seq_in_file, pos.groups, spec.start_time + adv[p],
                            tables[p][0], tables[p][1], fresh=p == 0)
        r = part.write_chunks(spec, p, a, b, iter(chunks[p]), start, str(out / ".chunks" / f"p{p}"),
                              last=p == parts - 1, stop=n, seq_start=seq_starts[p], clock_state=clocks[p])
        results.append(r)
        for name, path, _ in r["pieces"]:
            files.setdefault(name, []).append(path)
    chunk_scans: dict[str, list] = {}
    from spark_gen.commit import scan_chunk

    for p, r in enumerate(results):  # the scans that skip the batch path's spans equal a walk of every header
        for k, ((_, path, _), sc) in enumerate(zip(r["pieces"], r["scans"], strict=True)):
            assert sc == scan_chunk(path, 4 if k or p == 0 or not w.starts[p].offset else 0)
    for r in results:
        for (name, _, _), sc in zip(r["pieces"], r["scans"], strict=True):
            chunk_scans.setdefault(name, []).append(sc)
    # the files' scans from the chunks' (as spark_gen/job.py commits them)
    scans = {nm: concat_binlog(c, str(out / nm), fmt, chunk_scans[nm]) for nm, c in files.items()}
    (out / f"{spec.basename}.index").write_text("".join(f"./{nm}\n" for nm in files))
    final = part.make_run(spec, n)
    (out / "truth" / "final").mkdir(parents=True)
    states = list(part.final_states(iter(hist), n))
    names = [f"{rt.table.database}.{rt.table.name}" for rt in final.rows]
    # truth/final as spark_gen.job._final writes it: sorted runs per history block, one merge per table
    from spark_gen.final import merge_runs, sorted_runs

    got = [x for q, h in enumerate(hist)
           for x in sorted_runs(spec, n, [h], str(out / ".chunks" / "runs" / f"q{q}"), len(names), False)]
    for t, nm in enumerate(names):
        merge_runs([v[1] for kind, v in got if kind == "run" and v[0] == t],
                   str(out / "truth" / "final" / f"{nm}.jsonl"), None, final.rows[t].table, spec.flavor)
    assert [sum(c) for c in zip(*(v for kind, v in got if kind == "counts"), strict=True)] == \
        [sum(1 for s in states if s[0] == t) for t in range(len(names))]
    run0.write_snapshot(out / "truth" / "snapshot.sql")
    info: dict[str, FileInfo] = {}
    cnt = {k: dict(v) for k, v in run0.counts.items()}
    for r in results:
        for nm, (tx, first, last) in r["file_info"].items():
            fi = info.setdefault(nm, FileInfo())
            fi.transactions += tx
            fi.first_gtid = fi.first_gtid or first
            fi.last_gtid = last or fi.last_gtid
        for tn, kinds in r["counts"].items():
            for k, v in kinds.items():
                cnt[tn][k] += v
    live = [sum(c) for c in zip(*(part.live_counts([h], n, len(names)) for h in hist), strict=True)]
    assert live == [sum(1 for s in states if s[0] == t) for t in range(len(names))]
    m = build_manifest(spec, fmt, [file_entry(nm, scans[nm], info.get(nm, FileInfo())) for nm in files], results[-1]["groups"],
                       results[-1]["last_gtid"], n, cnt, [(rt.table, live[t]) for t, rt in enumerate(final.rows)])
    (out / "manifest.json").write_text(json.dumps(m, indent=2, ensure_ascii=False) + "\n")
    # truth/changes as spark_gen.job._changes merges it: each table's chunks in partition order
    from generators.changes_truth import concat_text, merge_table, table_file

    cdir = out / "truth" / "changes"
    cdir.mkdir()
    for t, rt in enumerate(final.rows):
        merge_table([c for r in results for t2, c in r["changes"]["chunks"] if t2 == t], cdir / table_file(rt.table),
                    rt.table, spec.flavor)
    concat_text([r["changes"]["jsonl"] for r in results], cdir / "changes.jsonl")
    from generators.schema_history import HISTORY_FILE, initial_definitions, write_history

    write_history(out / "truth" / HISTORY_FILE, initial_definitions(run0.rows),
                  [d for r in results for d in r["changes"]["definitions"]])
    import shutil

    shutil.rmtree(out / ".chunks")


CASES = {
    "sysbench": dict(workload="sysbench", tables=2, key_dist="zipf:1.1"),
    "sysbench-uniform-ddl": dict(workload="sysbench", tables=3, ddl_every=9, max_binlog_size="8K"),
    "ecommerce-mariadb-rotation-ddl": dict(workload="ecommerce", flavor="mariadb1011", max_binlog_size="8K",
                                           ddl_every=7, key_dist="latest"),
    "alltypes-ddl-in-binlog": dict(workload="alltypes", transactions=40, initial_rows=4, ddl_in_binlog=True,
                                   ddl_every=5, max_binlog_size="16K", rows_query=True, flavor="mysql84"),
    "mix-anonymous-hotspot": dict(workload="sysbench", mix="insert=0.5,update=0.3,delete=0.2",
                                  rows_per_txn="1-12", key_dist="hotspot:0.05:0.9", gtid="anonymous",
                                  checksum="NONE", max_binlog_size="4K"),
    "every-family-edge-values": dict(workload=None, schema_sql=EVERY_FAMILY_DDL + JSON_DDL, schema_file="e.sql",
                                     flavor="mariadb1011", edge_values=0.3, max_binlog_size="16K", ddl_every=11),
}


@pytest.mark.parametrize("parts", [1, 3, 7])
@pytest.mark.parametrize("case", list(CASES))
def test_emulated_pipeline_equals_single_process(tmp_path: Path, case: str, parts: int) -> None:
    spec = _spec(**CASES[case])
    generate(spec, tmp_path / "local")
    emulate(spec, parts, tmp_path / "emu")
    assert tree_digest(tmp_path / "emu") == tree_digest(tmp_path / "local")


def test_split_covers_the_range_in_order() -> None:
    for n, p in ((0, 3), (5, 7), (100, 7), (7, 1)):
        r = plan.split(n, p)
        assert len(r) == p and r[0][0] == 0 and r[-1][1] == n
        assert all(a <= b for a, b in r) and all(r[i][1] == r[i + 1][0] for i in range(p - 1))


def test_cursor_prefix_scans_equal_a_sequential_cursor() -> None:
    spec = _spec(workload="ecommerce")
    infos = Run(spec, None).infos  # type: ignore[arg-type]
    seq = KeyCursor.start(infos)
    at = {}
    for i in range(300):
        if i in (0, 37, 38, 200):
            at[i] = seq.copy()
        resolve_ops(spec, infos, seq, plan_transaction(spec, 4, i))
    ranges = [(0, 37), (37, 38), (38, 200), (200, 300)]
    new = plan.prefix_new([part.count_new(spec, infos, a, b)[0] for a, b in ranges], 4)
    hwm = plan.prefix_hwm([part.max_hwm(spec, infos, new[p], a, b) for p, (a, b) in enumerate(ranges)], infos)
    for p, (a, _) in enumerate(ranges):
        assert (new[p], hwm[p]) == (at[a].new, at[a].hwm)


def test_key_histories_equal_the_engine_key_state() -> None:
    """Resolving each key's ops alone (after a sort by key) ends where the engine's arrays do."""
    spec = _spec(workload="sysbench", mix="insert=0.3,update=0.3,delete=0.4", rows_per_txn="1-6")
    run = Run(spec, None)  # type: ignore[arg-type]
    for rt in run.rows:
        rt.load_initial(run.initial_keys(rt))
    for i in range(400):
        run._apply(plan_transaction(spec, 1, i))
    blocks = part.key_op_blocks(spec, run.infos, KeyCursor.start(run.infos), 0, 400, 3)
    blocks += part.init_blocks(run, 0, 0, run.infos[0].first_fresh, 3)
    hist = [part.resolve_blocks(x for x in blocks if x[0] == q) for q in range(3)]
    states = {(t, k): (v, b) for t, k, v, b in part.final_states(iter(hist), 400)}
    rt = run.rows[0]
    assert states == {(0, k): (int(rt.ver[k]), int(rt.born[k])) for k in rt.live_keys()}


def _loop_ops(spec: Spec, infos, cur: KeyCursor, a: int, b: int) -> list[tuple]:
    cur = cur.copy()
    return [(op.table, op.key, i, op.seq, part.KINDS.index(op.kind), op.epoch) for i in range(a, b)
            for op in resolve_ops(spec, infos, cur, plan_transaction(spec, len(infos), i))]


@pytest.mark.parametrize("hwm", [0, 1, 2, 50, 10 ** 6])
def test_write_only_ops_as_arrays_equal_resolve_ops(hwm: int) -> None:
    """The array planning of oltp_write_only / uniform: the same ops as plan_transaction +
    resolve_ops, transaction by transaction (hwm 0 and 1: picks that find nothing / key 0)."""
    spec = _spec(workload="sysbench", tables=3, ddl_every=11)
    infos = Run(spec, None).infos  # type: ignore[arg-type]
    cur = KeyCursor([0] * 3, [hwm, hwm + 3, max(0, hwm - 1)])
    blk = part.ops_arrays(spec, infos, cur, 40, 260)
    got = list(zip(*(blk[f].tolist() for f in ("t", "k", "i", "seq", "kind", "epoch")), strict=True))
    assert got == _loop_ops(spec, infos, cur, 40, 260)
    assert part.count_new(spec, infos, 40, 260) == ([0] * 3, sum(plan_transaction(spec, 3, i).advance
                                                                  for i in range(40, 260)))


def test_advances_are_the_plans_clock_steps() -> None:
    from generators.api import advances

    for wl in ("sysbench", "ecommerce"):
        spec = _spec(workload=wl, seed=77)
        ntab = len(Run(spec, None).infos)  # type: ignore[arg-type]
        assert advances(spec, 5, 300).tolist() == [plan_transaction(spec, ntab, i).advance for i in range(5, 300)]


_op = st.tuples(st.integers(0, 1), st.integers(0, 3), st.sampled_from(["insert", "update", "delete"]),
                st.integers(0, 3))


@settings(max_examples=60, deadline=None)
@given(ops=st.lists(_op, max_size=400), initial=st.sets(st.tuples(st.integers(0, 1), st.integers(0, 3))),
       buckets=st.integers(1, 4))
def test_resolved_histories_equal_keys_step_in_order(ops, initial, buckets) -> None:
    """Vectorised histories (rounds of the r-th op of every key, hot keys past the round
    limit one by one) equal keys.step applied op by op in (i, seq) order."""
    n = len(ops)
    # what each UPDATE adds (keys.update_inc: 1, or a counted table's second statement 1 << 16)
    incs = [1 << 16 if i % 3 == 1 else 1 for i in range(n)]
    cols = {"t": [o[0] for o in ops], "k": [o[1] for o in ops], "i": list(range(n)), "seq": [0] * n,
            "kind": [part.KINDS.index(o[2]) for o in ops], "epoch": [o[3] for o in ops], "inc": incs}
    blk = {f: np.asarray(v, dtype=np.int64) for f, v in cols.items()}
    init = sorted(initial)
    iblk = {"t": np.array([t for t, _ in init], dtype=np.int64), "k": np.array([k for _, k in init], dtype=np.int64),
            "i": np.full(len(init), -1), "seq": np.zeros(len(init), dtype=np.int64),
            "kind": np.full(len(init), part.INIT), "epoch": np.zeros(len(init), dtype=np.int64),
            "inc": np.ones(len(init), dtype=np.int64)}
    blocks = part.split(blk, part.bucket_of(blk["t"], blk["k"], buckets)) + \
        part.split(iblk, part.bucket_of(iblk["t"], iblk["k"], buckets))
    hist = [part.resolve_blocks(x for x in blocks if x[0] == q) for q in range(buckets)]
    got = sorted((int(t), int(k), int(i), int(kd), int(vb), int(va), int(bo)) for h in hist
                 for t, k, i, kd, vb, va, bo in zip(h["t"], h["k"], h["i"], h["kind"], h["vb"], h["va"], h["born"],
                                                    strict=True) if kd != part.INIT)
    state = {key: ((True, 0, 0) if key in initial else (False, 0, -1)) for key in {(o[0], o[1]) for o in ops}}
    want = []
    for i, (t, k, kind, epoch) in enumerate(ops):
        res = step(state[(t, k)], kind, epoch, incs[i])
        if res is not None:
            state[(t, k)], vb, va = res
            want.append((t, k, i, part.KINDS.index(kind), vb, va, state[(t, k)][2]))
    assert got == sorted(want)
    live = {(t, k): (v, b) for t, k, v, b in part.final_states(iter(hist), n)}
    final = {key: (s[1], s[2]) for key, s in state.items() if s[0]}
    final.update({key: (0, 0) for key in initial if key not in state})
    assert live == final


_rows = st.lists(st.tuples(st.integers(0, 3), st.integers(-2, 6), st.integers(-1, 9), st.integers(0, 3)), max_size=300)


@settings(max_examples=200, deadline=None)
@given(rows=_rows, presort=st.booleans(), wide=st.sampled_from([0, 1 << 47, 1 << 16]))
def test_fast_sort_orders_equal_lexsort(rows, presort, wide) -> None:
    """key_order and lexsort_ints (the sorts of resolve_blocks and merge_txn_blocks) give
    exactly np.lexsort's permutation: inputs in (i, seq) order or not, duplicates, keys
    or tables too wide for the one-key sort, negative keys and transactions."""
    if presort:
        rows = sorted(rows, key=lambda r: (r[2], r[3]))
    t, k, i, seq = (np.asarray([r[j] for r in rows], dtype=np.int64) for j in range(4))
    if wide == 1 << 16:
        t = t + wide
    else:
        k = k + wide
    assert part.key_order(t, k, i, seq).tolist() == np.lexsort((seq, i, k, t)).tolist()
    assert lexsort_ints((seq, i + wide)).tolist() == np.lexsort((seq, i + wide)).tolist()
    assert lexsort_ints((seq, i)).tolist() == np.lexsort((seq, i)).tolist()


def test_step_is_the_key_state_machine() -> None:
    st = (False, 0, -1)
    assert step(st, "update", 0) is None and step(st, "delete", 0) is None
    st, vb, va = step(st, "insert", 3)
    assert st == (True, 0, 3) and (vb, va) == (0, 0)
    st, _, va = step(st, "update", 9)
    assert st == (True, 1, 3)
    assert step(st, "insert", 0) is None
    st, _, _ = step(st, "delete", 0)
    st, _, va = step(st, "insert", 4)
    assert va == 1 << 32 and st == (True, 1 << 32, 4)


def test_walk_places_partitions_where_the_writer_would() -> None:
    """Rotation rule: a file ends after the group that reaches max_binlog_size."""
    sizes = np.array([100, 200, 3000, 50, 4000, 10, 10], dtype=np.int64)
    s = plan.Summary(sizes, np.arange(len(sizes) + 1))
    w = plan.walk([s], [(0, 7)], max_size=4096, size_limit=None, header_size=lambda i, g: 100,
                  rotate_size=lambda i: 40)
    # 100 + 100 + 200 + 3000 + 50 = 3450; + 4000 = 7450 >= 4096 -> rotate; then 100 + 10 + 10
    assert (w.end.file_index, w.end.offset, w.end.seq_in_file, w.end.groups) == (2, 120, 2, 7)
    assert w.end.closed == 7450 + 40
    w2 = plan.walk([plan.Summary(sizes[:3], np.arange(4)), plan.Summary(sizes[3:], np.arange(5))],
                   [(0, 3), (3, 7)], max_size=4096, size_limit=None, header_size=lambda i, g: 100,
                   rotate_size=lambda i: 40)
    assert w2.starts[1] == plan.Position(1, 3400, 3, 3, 0) and w2.end == w.end


def test_walk_finds_the_size_stop() -> None:
    sizes = np.full(10, 1000, dtype=np.int64)
    s = plan.Summary(sizes, np.arange(11))
    w = plan.walk([s], [(0, 10)], max_size=1 << 20, size_limit=3500, header_size=lambda i, g: 100,
                  rotate_size=lambda i: 40)
    assert w.stop == 4  # bytes before txn t: 100 + 1000 t; the first >= 3500 is t = 4


def test_table_ids_follow_definition_changes() -> None:
    a, a2, b = ("d", "a"), ("d", "a"), ("d", "b")
    uses = [[(a, "A0"), (b, "B0")], [(a2, "A0"), (a, "A1")], [(b, "B0"), (a, "A0")]]
    st = plan.number_tables(uses, 100)
    assert st[0] == ((), 100)
    assert dict((k, (t, i)) for k, t, i in st[1][0]) == {a: ("A0", 100), b: ("B0", 101)} and st[1][1] == 102
    assert dict((k, (t, i)) for k, t, i in st[2][0]) == {a: ("A1", 102), b: ("B0", 101)} and st[2][1] == 103


def test_file_names_and_fixed_sizes() -> None:
    spec = _spec(workload="sysbench")
    run = Run(spec, None)  # type: ignore[arg-type]
    assert file_name("binlog", 7) == "binlog.000007"
    h1 = header_size(run.fmt, basename="binlog", server_id=1, settings=run.session_settings(), file_index=1, groups_before=0)
    h2 = header_size(run.fmt, basename="binlog", server_id=1, settings=run.session_settings(), file_index=2, groups_before=5)
    h3 = header_size(run.fmt, basename="binlog", server_id=1, settings=run.session_settings(), file_index=3,
                     groups_before=10 ** 6)
    assert h1 < h2 == h3  # PREVIOUS_GTIDS: empty in file 1, one interval later whatever its end


def test_injected_failure_only_on_first_attempt() -> None:
    part.maybe_fail(("write", 1), "write", 0, 0)
    part.maybe_fail(("write", 1), "write", 1, 1)
    with pytest.raises(part.InjectedFailure):
        part.maybe_fail(("write", 1), "write", 1, 0)


def test_chunk_scans_add_up_to_the_file_scan(tmp_path: Path) -> None:
    """Scanning a binlog file in pieces cut at event boundaries (the first with the magic)
    gives the event count and timestamps of generators.api.scan_file on the whole file."""
    from generators.api import scan_file
    from spark_gen.commit import scan_chunk

    spec = _spec(**CASES["mix-anonymous-hotspot"])
    generate(spec, tmp_path / "local")
    path = tmp_path / "local" / "binlog.000001"
    data = path.read_bytes()
    cuts, p = [], 4
    while p + 19 <= len(data):
        cuts.append(p)
        p += int.from_bytes(data[p + 9:p + 13], "little")
    pieces = [0, *cuts[1::3], len(data)]
    scans = []
    for k, (a, b) in enumerate(zip(pieces[:-1], pieces[1:], strict=True)):
        chunk = tmp_path / f"c{k}"
        chunk.write_bytes(data[a:b])
        scans.append(scan_chunk(str(chunk), 4 if k == 0 else 0))
    want = scan_file(path, Run(spec, None).fmt)
    got = concat_binlog([str(tmp_path / f"c{k}") for k in range(len(scans))], str(tmp_path / "joined"),
                        Run(spec, None).fmt, scans)
    assert got == want
    assert (tmp_path / "joined").read_bytes() == data


@pytest.mark.parametrize("case", ["ecommerce-mariadb-rotation-ddl", "sysbench-uniform-ddl"])
def test_ipc_changes_chunks_merge_to_the_parquet_bytes(tmp_path: Path, monkeypatch, case: str) -> None:
    """truth/changes chunks written as Arrow IPC streams (spark_gen's pass 2) merge into the
    bytes the single-process engine writes, with row group boundaries inside the chunks
    (small ``ROW_GROUP``), several tables and table definitions."""
    import pyarrow.parquet as pq

    import generators.changes_truth as ct
    monkeypatch.setattr(ct, "ROW_GROUP", 97)
    spec = _spec(**CASES[case])
    generate(spec, tmp_path / "local")
    emulate(spec, 3, tmp_path / "emu")
    want = {k: v for k, v in tree_digest(tmp_path / "local").items() if k.startswith("truth/changes/")}
    assert any(k.endswith(".parquet") for k in want)
    assert want == {k: v for k, v in tree_digest(tmp_path / "emu").items() if k.startswith("truth/changes/")}
    # row group boundaries fell inside the partitions' chunks
    assert max(pq.read_metadata(p).num_row_groups for p in (tmp_path / "local" / "truth" / "changes").glob("*.parquet")) > 1
