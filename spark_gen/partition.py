"""Partition functions: pure, plain Python iterators in and out, testable without Spark.

The job (spark_gen/job.py) chains them; each works on one partition's transaction range
``[a, b)`` or on one partition of a shuffle, and uses the very functions of the
single-process engine through its public API (generators/api.py: a Run in the DDL state of
any transaction, the batch functions ``rows_batch`` / ``write_batch``; generators/keys.py,
generators/plan.py; the codec's writer and its batch planner ``BinlogWriter.plan_rows``).

Records cross the shuffles as *blocks*: dicts of numpy arrays, one per (source partition,
destination partition) — a few blocks per task, never a Python object per row:

1. :func:`count_new` / :func:`max_hwm` — per-table fresh-key counts, clock advances and
   highest INSERT keys of a range (a key cursor at every partition start follows by prefix
   sums / maxima on the driver);
2. :func:`key_op_blocks` — the range's resolved key operations as arrays (``t``, ``k``,
   ``i``, ``seq``, ``kind``, ``epoch``), cut into one block per key bucket;
   :func:`init_blocks` — one ``init`` record per initial row, the same way;
3. :func:`resolve_blocks` — after the shuffle by key bucket: every key's history through
   the key state machine (:func:`generators.keys.step`, vectorised over the r-th op of
   every key at once), what each op did, with versions (a *history block*);
4. :func:`txn_blocks` / :func:`merge_txn_blocks` — the applied changes shuffled back by
   transaction range, sorted by ``(i, seq)``;
5. :func:`sizes` (pass 1) and :func:`write_chunks` (pass 2) — the range in the batches of
   the one-process batch loop: :func:`applied_batch` makes each batch's
   ``AppliedBatch`` from the arrays; pass 1 takes the image lengths only
   (``rows_sizes``: no image assembled) and the writer's batch planner the group sizes by
   arithmetic (nothing encoded); pass 2 makes the row images (``rows_batch``) and
   writes the groups into the partition's chunks of the real files (``write_batch``);
6. :func:`final_states` / :func:`truth_rows` / :func:`write_truth_chunks` — ``truth/final``.

The batch planner lays out every writer a spec makes
(``binlogwriter.batch.columnar.columnar_supported``); a writer it did not (a format with
longer declared post-headers, which no preset has) would take the per-transaction path
(``Run.transaction``). No environment variable chooses a path.

Size: every stage's partition function in one module, in stage order: each is small, pure and
tested alone (tests/spark_gen/test_partition_functions.py), and they share the block helpers
(``_block``, ``_take``, ``_concat``, ``_split``) that define the shuffle record format.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterable, Iterator
from itertools import groupby
from pathlib import Path
from typing import Any

import numpy as np

from binlogwriter.batch.columnar import columnar_supported
from binlogwriter.batch.unique import lexsort_ints
from generators.api import (
    AppliedBatch,
    Run,
    advances,
    batch_bounds,
    ddl_after,
    do_ddl,
    make_run,
    partition_batch,
    rows_batch,
    rows_sizes,
    write_batch,
)
from generators.hashing import draw_array, hash64_array, salt, unit_array
from generators.keys import COUNT_SHIFT, Applied, KeyCursor, TableInfo
from generators.noop import changed_ops
from generators.plan import plan_transaction
from generators.plan_batch import resolve_chunks
from generators.run_batched import release_rotation
from generators.spec import Spec
from generators.truth import canonical_key, canonical_renderer, dumps_line
from spark_gen.plan import Summary
from spark_gen.writer import ChunkWriter, SinkWriter, WriterStart

__all__ = ["make_run", "counters_are_arrays", "count_new", "max_hwm", "ops_arrays", "key_op_blocks", "init_blocks", "bucket_of",
           "key_order", "resolve_blocks", "txn_blocks", "merge_txn_blocks", "save_block", "load_block", "save_blocks",
           "load_blocks", "BlockRef", "resolve_task", "merge_task", "applied_batch", "sizes", "write_chunks",
           "final_states", "live_counts", "truth_rows", "write_truth_chunks", "snapshot_piece", "InjectedFailure", "maybe_fail",
           "INIT", "KINDS"]

KINDS = ("insert", "update", "delete")
INIT = 3  # kind code of an ``init`` record (an initial row: live at version 0, born 0)
_OPS = ("t", "k", "i", "seq", "kind", "epoch", "inc")  # inc: what an UPDATE adds to the version (keys.update_inc)
_HIST = ("t", "k", "i", "seq", "kind", "vb", "va", "born")
_STAMPS = ("ti", "tub", "tua")  # runs with ON UPDATE / DEFAULT CURRENT_TIMESTAMP columns (add_stamps)
_DT = {"t": np.int32, "k": np.int64, "i": np.int64, "seq": np.int32, "kind": np.int8, "epoch": np.int64, "inc": np.int32,
       "vb": np.int64, "va": np.int64, "born": np.int64, "ti": np.int64, "tub": np.int64, "tua": np.int64}
TRUTH_BLOCK = 4096  # final rows computed at once per table (truth_rows)
BlockRef = tuple[str, int]  # (file, offset) of a block :func:`save_blocks` wrote
_ROUNDS = 64  # ops of a key past this rank are stepped one by one (a few hot keys)


class InjectedFailure(RuntimeError):
    """Raised by :func:`maybe_fail` (tests: a task dies in the middle of writing)."""


def maybe_fail(fail: tuple[str, int] | None, stage: str, p: int, attempt: int) -> None:
    """``fail = (stage, partition)``: fail that task's first attempt; ``(stage + "!", p)``:
    every attempt (the job fails)."""
    if fail is None or fail[1] != p:
        return
    if fail[0] == stage + "!" or (fail[0] == stage and attempt == 0):
        raise InjectedFailure(f"injected failure: {stage} partition {p}, attempt {attempt}")


def _block(fields: tuple[str, ...], cols: dict[str, Any]) -> dict[str, np.ndarray]:
    return {f: np.asarray(cols[f], dtype=_DT[f]) for f in fields}


def _empty(fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    return {f: np.zeros(0, dtype=_DT[f]) for f in fields}


def _take(blk: dict[str, np.ndarray], idx: Any) -> dict[str, np.ndarray]:
    return {f: v[idx] for f, v in blk.items()}


def _concat(blocks: list[dict[str, np.ndarray]], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    if not blocks:
        return _empty(fields)
    if len(blocks) == 1:
        return blocks[0]
    return {f: np.concatenate([b[f] for b in blocks]) for f in fields}


# -- 1: counters ------------------------------------------------------------------------------
def _uniform_write_only(spec: Spec) -> bool:
    """The ``oltp_write_only`` template under uniform picks: never moves the counters
    (its INSERT re-inserts the key it deleted, below ``hwm``), planned as arrays."""
    return spec.template == "oltp_write_only" and spec.key_dist == "uniform"


def counters_are_arrays(spec: Spec) -> bool:
    """Whether :func:`count_new` and :func:`max_hwm` are array arithmetic for ``spec``
    (``oltp_write_only`` under uniform picks): the driver then runs them itself."""
    return _uniform_write_only(spec)


def count_new(spec: Spec, infos: list[TableInfo], a: int, b: int) -> tuple[list[int], int]:
    """(fresh-key INSERTs per table, clock seconds) of transactions ``[a, b)``."""
    n = len(infos)
    if _uniform_write_only(spec):
        return [0] * n, int(advances(spec, a, b).sum())
    end = KeyCursor([0] * n, [0] * n)
    adv = 0
    for ops, after in resolve_chunks(spec, infos, end, a, b):
        adv += int(ops.advance.sum())
        end = after
    return end.new, adv


def max_hwm(spec: Spec, infos: list[TableInfo], new_start: list[int], a: int, b: int) -> list[int]:
    """One past the highest INSERT key of ``[a, b)`` per table (0: none). Picks are
    resolved against hwm 0 here, which changes no INSERT key above the true hwm."""
    n = len(infos)
    if _uniform_write_only(spec):
        return [0] * n  # with hwm 0 every pick finds nothing: no INSERT
    end = KeyCursor(list(new_start), [0] * n)
    for _, after in resolve_chunks(spec, infos, end, a, b):
        end = after
    return end.hwm


# -- 2: key operations as arrays ------------------------------------------------------------
def _write_only_ops(spec: Spec, infos: list[TableInfo], cur: KeyCursor, a: int, b: int) -> dict[str, np.ndarray]:
    """:func:`ops_arrays` of ``oltp_write_only`` / uniform: the draws of plan.plan_transaction
    (``Stream(hash64(salt(seed, "txn"), i))``: advance, table, three picks) and the rules of
    keys.resolve_ops (UPDATE, UPDATE, DELETE of picked keys, INSERT of the deleted key),
    for every transaction at once."""
    ntab = len(infos)
    i = np.arange(a, b, dtype=np.int64)
    base = hash64_array(salt(spec.seed, "txn"), i)
    tab = (draw_array(base, 2) % np.uint64(max(1, ntab))).astype(np.int64)
    hwm = np.asarray(cur.hwm, dtype=np.int64)[tab]
    picks = []
    for j in (3, 4, 5):
        u = unit_array(draw_array(base, j))
        picks.append(np.where(hwm > 1, np.minimum(hwm - 1, (u * hwm).astype(np.int64)), 0))
    valid = hwm > 0
    mutable = np.array([x.mutable for x in infos], dtype=bool)[tab]
    cap = np.array([x.capacity for x in infos], dtype=np.int64)[tab]
    keep = np.array([x.keep_initial for x in infos], dtype=bool)[tab]
    fresh = np.array([x.first_fresh for x in infos], dtype=np.int64)[tab]
    keys = np.stack([picks[0], picks[1], picks[2], picks[2]], axis=1)
    ok = np.stack([valid & mutable, valid & mutable, valid & ~(keep & (picks[2] < fresh)),
                   valid & (picks[2] < cap)], axis=1)
    seq = np.cumsum(ok, axis=1) - 1
    kinds = np.broadcast_to(np.array([1, 1, 2, 0], dtype=np.int8), keys.shape)
    m = ok.ravel()
    ii = np.repeat(i, 4)[m]
    counted = np.array([x.counted for x in infos], dtype=bool)[tab]
    inc = np.where((kinds == 1) & (seq == 1) & counted[:, None], 1 << COUNT_SHIFT, 1)
    return _block(_OPS, {"t": np.repeat(tab, 4)[m], "k": keys.ravel()[m], "i": ii, "seq": seq.ravel()[m],
                         "kind": kinds.ravel()[m], "epoch": ii // spec.ddl_every if spec.ddl_every else 0 * ii,
                         "inc": inc.ravel()[m]})


def ops_arrays(spec: Spec, infos: list[TableInfo], cur: KeyCursor, a: int, b: int) -> dict[str, np.ndarray]:
    """The resolved key operations (generators/keys.py ``resolve_ops``) of transactions
    ``[a, b)`` from cursor ``cur`` (not changed), as arrays in ``(i, seq)`` order."""
    if _uniform_write_only(spec):
        return _write_only_ops(spec, infos, cur, a, b)
    blocks = [_block(_OPS, {"t": ops.table, "k": ops.key, "i": ops.txn, "seq": ops.seq, "kind": ops.kind,
                            "epoch": ops.epoch, "inc": ops.inc}) for ops, _ in resolve_chunks(spec, infos, cur, a, b)]
    return _concat(blocks, _OPS)


def bucket_of(t: np.ndarray, k: np.ndarray, parts: int) -> np.ndarray:
    """The key bucket (shuffle partition) of keys ``(t, k)``: any fixed function works —
    every op of one key lands in one bucket."""
    h = hash64_array(0x5BD1E995, t.astype(np.int64), k.astype(np.int64))
    return (h % np.uint64(max(1, parts))).astype(np.int64)


def split(blk: dict[str, np.ndarray], dest: np.ndarray) -> list[tuple[int, dict[str, np.ndarray]]]:
    """``blk`` cut by destination partition: [(partition, block)] (rows keep their order)."""
    if not len(dest):
        return []
    order = np.argsort(dest, kind="stable")
    d = dest[order]
    cuts = np.flatnonzero(d[1:] != d[:-1]) + 1
    out = []
    for lo, hi in zip(np.concatenate(([0], cuts)).tolist(), np.concatenate((cuts, [len(d)])).tolist(), strict=True):
        out.append((int(d[lo]), _take(blk, order[lo:hi])))
    return out


def key_op_blocks(spec: Spec, infos: list[TableInfo], cur: KeyCursor, a: int, b: int, parts: int
                  ) -> list[tuple[int, dict[str, np.ndarray]]]:
    """The key operations of ``[a, b)`` as one block per key bucket: [(bucket, block)]."""
    blk = ops_arrays(spec, infos, cur, a, b)
    return split(blk, bucket_of(blk["t"], blk["k"], parts))


def init_blocks(run: Run, t: int, lo: int, hi: int, parts: int) -> list[tuple[int, dict[str, np.ndarray]]]:
    """``init`` records of table ``t``'s initial keys in ``[lo, hi)``, one block per bucket."""
    rt = run.rows[t]
    if rt.tdef.initial_keys is None:
        keys = np.arange(lo, hi, dtype=np.int64)
    else:
        keys = np.fromiter((k for k in range(lo, hi) if rt.is_initial(k)), dtype=np.int64)
    n = len(keys)
    blk = _block(_OPS, {"t": np.full(n, t), "k": keys, "i": np.full(n, -1), "seq": np.zeros(n),
                        "kind": np.full(n, INIT), "epoch": np.zeros(n),
                            "inc": np.ones(n)})
    return split(blk, bucket_of(blk["t"], keys, parts))


def _in_txn_order(i: np.ndarray, seq: np.ndarray) -> bool:
    """Whether rows are in non-decreasing ``(i, seq)`` order."""
    di = np.diff(i)
    return bool(np.all((di > 0) | ((di == 0) & (seq[1:] >= seq[:-1]))))


def key_order(t: np.ndarray, k: np.ndarray, i: np.ndarray, seq: np.ndarray) -> np.ndarray:
    """``np.lexsort((seq, i, k, t))``, cheaper: rows already in ``(i, seq)`` order need only
    the stable order by ``(t, k)`` (ties keep that order); both through
    :func:`~binlogwriter.batch.unique.lexsort_ints` (one argsort of a packed key)."""
    if len(k) > 1 and not _in_txn_order(i, seq):
        return lexsort_ints((seq, i, k, t))
    return lexsort_ints((k, t))


# -- 3: per-key histories ----------------------------------------------------------------------
def resolve_blocks(blocks: Iterable[tuple[int, dict[str, np.ndarray]]]) -> dict[str, np.ndarray]:
    """Op blocks of one key bucket -> its history block: the ``init`` records and the ops
    that did something, sorted by ``(t, k, i, seq)``, with ``vb`` / ``va`` (versions
    before / after) and ``born`` — keys.step applied to each key's ops in order, the r-th
    op of every key at once."""
    # blocks in the order of their first transaction (init records, i = -1, first): each
    # is in (i, seq) order and the ranges' blocks do not overlap, so key_order's stable
    # sort by (t, k) alone usually suffices
    got = sorted((b for _, b in blocks), key=lambda b: int(b["i"][0]) if len(b["i"]) else 0)
    ops = _concat(got, _OPS)
    n = len(ops["k"])
    if n == 0:
        return _empty(_HIST)
    order = key_order(ops["t"], ops["k"], ops["i"], ops["seq"])
    o = _take(ops, order)
    t, k, kind, epoch = o["t"], o["k"], o["kind"], o["epoch"]
    inc = o["inc"].astype(np.int64)
    newg = np.ones(n, dtype=bool)
    newg[1:] = (t[1:] != t[:-1]) | (k[1:] != k[:-1])
    gstart = np.flatnonzero(newg)
    gid = np.cumsum(newg) - 1
    rank = np.arange(n) - gstart[gid]
    ng = len(gstart)
    live = np.zeros(ng, dtype=bool)  # keys.NEVER: not live, version 0, born -1
    ver = np.zeros(ng, dtype=np.int64)
    born = np.full(ng, -1, dtype=np.int64)
    applied = np.zeros(n, dtype=bool)
    vb = np.zeros(n, dtype=np.int64)
    va = np.zeros(n, dtype=np.int64)
    bo = np.zeros(n, dtype=np.int64)
    # a stable sort of small integers (radix sort for 16-bit values): the same order, faster
    by_rank = np.argsort(rank.astype(np.int16) if n < 1 << 15 or int(rank.max()) < 1 << 15 else rank, kind="stable")
    rounds = int(rank.max()) + 1
    bounds = np.searchsorted(rank[by_rank], np.arange(min(rounds, _ROUNDS) + 1))
    for r in range(min(rounds, _ROUNDS)):
        pos = by_rank[bounds[r]:bounds[r + 1]]
        g = gid[pos]
        kd = kind[pos]
        lv, vr, bn = live[g], ver[g], born[g]
        init = kd == INIT
        ins = (kd == 0) & ~lv
        upd = (kd == 1) & lv
        dele = (kd == 2) & lv
        ok = init | ins | upd | dele
        nv = np.where(ins, np.where(bn < 0, 0, ((vr >> 32) + 1) << 32), np.where(upd, vr + inc[pos], vr))
        nv = np.where(init, 0, nv)
        nb = np.where(init, 0, np.where(ins, epoch[pos], bn))
        applied[pos] = ok
        vb[pos] = np.where(init, 0, vr)
        va[pos] = nv
        bo[pos] = nb
        live[g] = np.where(ok, init | ins | upd, lv)
        ver[g] = np.where(ok, nv, vr)
        born[g] = np.where(ok, nb, bn)
    if rounds > _ROUNDS:  # the long histories of a few hot keys, op by op (keys.step)
        from generators.keys import step

        for p in np.flatnonzero(rank >= _ROUNDS).tolist():
            g = int(gid[p])
            kd = int(kind[p])
            if kd == INIT:  # pragma: no cover - an init record is always a key's first
                continue
            res = step((bool(live[g]), int(ver[g]), int(born[g])), KINDS[kd], int(epoch[p]), int(inc[p]))
            if res is None:
                continue
            (live[g], ver[g], born[g]), vb[p], va[p] = res
            bo[p] = born[g]
            applied[p] = True
    keep = np.flatnonzero(applied)
    out = {f: o[f][keep] for f in ("t", "k", "i", "seq", "kind")}
    out.update(vb=vb[keep], va=va[keep], born=bo[keep])
    return out


# -- 4: back to transaction order --------------------------------------------------------------
def txn_blocks(hist: dict[str, np.ndarray], ends: list[int]) -> list[tuple[int, dict[str, np.ndarray]]]:
    """A history block's changes (``init`` records left out) cut by the transaction range
    they belong to (``ends``: the ranges' ends): [(partition, block)]."""
    m = np.flatnonzero(hist["kind"] != INIT)
    blk = _take(hist, m)
    return split(blk, np.searchsorted(np.asarray(ends, dtype=np.int64), blk["i"], side="right"))


def merge_txn_blocks(blocks: Iterable[tuple[int, dict[str, np.ndarray]]]) -> dict[str, np.ndarray]:
    """The blocks of one transaction range -> one block sorted by ``(i, seq)``."""
    got = [b for _, b in blocks]
    blk = _concat(got, tuple(got[0]) if got else _HIST)  # with the stamps' times when the histories have them
    return _take(blk, lexsort_ints((blk["seq"], blk["i"])))


def save_block(blk: dict[str, np.ndarray], path: str) -> str:
    """Write a block to ``path`` (pickled, atomically: a killed task leaves no file under
    that name); returns ``path``. The job keeps its history and transaction blocks in files
    beside the chunks (a path every executor can read) instead of Spark's cache: each read
    of a cached Python RDD copies the block through the JVM again."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".part", "wb") as f:
        pickle.dump(blk, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(path + ".part", path)
    return path


def load_block(path: str) -> dict[str, np.ndarray]:
    """The block :func:`save_block` wrote."""
    with open(path, "rb") as f:
        return pickle.load(f)


def save_blocks(blocks: Iterable[tuple[int, dict[str, np.ndarray]]], path: str) -> list[tuple[int, BlockRef]]:
    """The shuffle write: a task's ``[(destination, block)]`` pickled one after another into
    one file at ``path`` (atomically, as :func:`save_block`); returns ``[(destination,
    ref)]`` — only these small references cross Spark (the driver routes them to the
    destination tasks, which :func:`load_blocks`). The blocks never go through the JVM:
    a Spark shuffle of Python records pickles them into the JVM, spills them to its shuffle
    files and streams them back into the reducers' Python workers."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    out: list[tuple[int, BlockRef]] = []
    with open(path + ".part", "wb") as f:
        for dest, blk in blocks:
            out.append((dest, (path, f.tell())))
            pickle.dump(blk, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(path + ".part", path)
    return out


def load_blocks(refs: Iterable[tuple[int, BlockRef]]) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    """The shuffle read: ``[(destination, block)]`` of the references :func:`save_blocks` gave."""
    for dest, (path, offset) in refs:
        with open(path, "rb") as f:
            f.seek(offset)
            yield dest, pickle.load(f)


def add_stamps(spec: Spec, h: dict[str, np.ndarray], ranges: list[tuple[int, int]],
               adv_starts: list[int]) -> dict[str, np.ndarray]:
    """A history block with, per record, the row's INSERT time and its last change time
    before and after it (``ti``, ``tub``, ``tua``: generators/stamps.py ``op_stamps``, -1 for
    none) when a table of the run has ``ON UPDATE`` / ``DEFAULT CURRENT_TIMESTAMP`` columns;
    else ``h`` as it is. A key's records are all in its bucket's history, in order, so its
    times follow from them alone: an INSERT sets ``ti`` to its transaction's time (the commit
    time the writer gives it: ``--start-time`` plus the advances so far, ``adv_starts`` per
    range) and clears the change time, an UPDATE that changes the row (generators/noop.py)
    sets the change time; initial rows have neither."""
    run0 = make_run(spec, 0)
    stamped = np.array([bool(rt.stamps) for rt in run0.rows], dtype=bool)
    if not stamped.any():
        return h
    n = len(h["k"])
    i, t, kind = h["i"], h["t"].astype(np.int64), h["kind"]
    when = np.full(n, -1, dtype=np.int64)
    chg = np.ones(n, dtype=bool)
    p_of = np.searchsorted(np.asarray([b for _, b in ranges], dtype=np.int64), i, side="right")
    for p in np.unique(p_of[i >= 0]).tolist():
        a, b = ranges[p]
        sel = np.flatnonzero((p_of == p) & (i >= 0))
        when[sel] = spec.start_time + adv_starts[p] + np.cumsum(advances(spec, a, b))[i[sel] - a]
        keep = changed_ops(make_run(spec, a).rows, t[sel], kind[sel], h["k"][sel], h["vb"][sel], h["va"][sel],
                           h["born"][sel])
        if keep is not None:
            chg[sel] = False
            chg[sel[keep]] = True
    ti = np.full(n, -1, dtype=np.int64)
    tub = np.full(n, -1, dtype=np.int64)
    tua = np.full(n, -1, dtype=np.int64)
    prev = (-1, -1)
    cur_a = cur_b = -1
    k = h["k"]
    for j in np.flatnonzero(stamped[t]).tolist():  # records in (t, k, i, seq) order
        key = (int(t[j]), int(k[j]))
        if key != prev:
            prev, cur_a, cur_b = key, -1, -1
        kd = int(kind[j])
        a, b = cur_a, cur_b
        if kd == INIT:
            b_after = -1
        elif kd == 0:  # INSERT
            a, b_after = int(when[j]), -1
        elif kd == 1 and chg[j]:
            b_after = int(when[j])
        else:
            b_after = b
        ti[j], tub[j], tua[j] = a, b, b_after
        cur_a, cur_b = a, b_after
    return {**h, "ti": ti, "tub": tub, "tua": tua}


def resolve_task(q: int, blocks: Iterable[tuple[int, dict[str, np.ndarray]]], hist_path: str, ends: list[int],
                 stamps: tuple[Spec, list[tuple[int, int]], list[int]] | None = None) -> list[tuple[int, Any]]:
    """Key bucket ``q``'s op blocks -> its history block, saved at ``hist_path``, and the
    records of the shuffle back to transaction order: the history's changes cut by
    transaction range (:func:`txn_blocks`, saved by :func:`save_blocks` at
    ``hist_path + ".txn"``: ``(range, ref)``) and ``(q, hist_path)``, which tells the task
    of range ``q`` (:func:`merge_task`) where bucket ``q``'s history is. ``stamps``: ``(spec,
    ranges, adv_starts)`` for :func:`add_stamps`."""
    h = resolve_blocks(blocks)
    if stamps is not None:
        h = add_stamps(stamps[0], h, stamps[1], stamps[2])
    save_block(h, hist_path)
    return [(q, hist_path), *save_blocks(txn_blocks(h, ends), hist_path + ".txn")]


def merge_task(spec: Spec, p: int, a: int, b: int, records: Iterable[tuple[int, Any]], block_path: str) -> Summary:
    """Range ``p``'s records of :func:`resolve_task` (block references and the history
    path) -> its merged block
    (saved at ``block_path``, pass 2 reads it) and its pass-1 :class:`Summary`
    (:func:`sizes`), which carries both paths."""
    hist_path = None
    refs = []
    for k, v in records:
        if isinstance(v, str):
            hist_path = v
        else:
            refs.append((k, v))
    blk = drop_unchanged(spec, a, merge_txn_blocks(load_blocks(refs)))
    save_block(blk, block_path)
    s = sizes(spec, p, a, b, [blk])
    s.block, s.hist = block_path, hist_path
    return s


def drop_unchanged(spec: Spec, a: int, blk: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A merged transaction block without its UPDATEs that change nothing (generators/noop.py:
    a server logs no row for them; the one-process engine drops them in ``apply_batch``). The
    history blocks keep them: the key's version still moves, and the row is the same."""
    if not len(blk["k"]):
        return blk
    run = make_run(spec, a)
    keep = changed_ops(run.rows, blk["t"], blk["kind"], blk["k"], blk["vb"], blk["va"], blk["born"])
    return blk if keep is None else _take(blk, keep)


def _one(records: Iterable[Any]) -> dict[str, np.ndarray]:
    """The merged block of a partition (the RDD holds one per partition; none: empty)."""
    got = [r for r in records]
    if not got:
        return _empty(_HIST)
    return got[0] if len(got) == 1 else merge_txn_blocks((0, r) for r in got)


def applied_batch(spec: Spec, blk: dict[str, np.ndarray], lo: int, hi: int) -> AppliedBatch:
    """The ``AppliedBatch`` of transactions ``lo..hi-1`` (what generators/batch.py
    ``apply_batch`` gives the one-process engine) from a merged block."""
    s, e = np.searchsorted(blk["i"], [lo, hi], side="left").tolist()
    i64 = np.int64
    stamps = tuple(blk[f][s:e] for f in _STAMPS) if "ti" in blk else None  # add_stamps
    return AppliedBatch(lo, (blk["i"][s:e] - lo).astype(i64), blk["t"][s:e].astype(i64), blk["kind"][s:e].astype(i64),
                        blk["k"][s:e], blk["vb"][s:e], blk["va"][s:e], blk["born"][s:e], advances(spec, lo, hi),
                        [], [], [], pending=True, stamps=stamps)


def _batched(writer: Any) -> bool:
    return columnar_supported(writer)


def _transactions(run: Run, writer, blk: dict[str, np.ndarray], a: int, end: int) -> Iterator[int]:
    """The per-transaction path: transactions ``[a, end)`` through ``run.transaction``;
    yields each i after writing it."""
    n = len(run.rows)
    s, e = np.searchsorted(blk["i"], [a, end], side="left").tolist()
    cols = [blk[f][s:e].tolist() for f in ("i", "seq", "kind", "t", "k", "vb", "va", "born")]
    by_i: dict[int, list[Applied]] = {}
    for i, seq, kd, t, k, vb, va, bo in zip(*cols, strict=True):
        by_i.setdefault(i, []).append(Applied(seq, KINDS[kd], t, k, vb, va, bo))
    for i in range(a, end):
        run.transaction(writer, plan_transaction(run.spec, n, i), by_i.get(i, []))
        yield i


# -- 5: pass 1 (sizes) and pass 2 (bytes) -----------------------------------------------------
def sizes(spec: Spec, p: int, a: int, b: int, records: Iterable[Any]) -> Summary:
    """Pass 1: the group sizes of ``[a, b)`` by the batch planner's arithmetic (image
    lengths only, ``rows_sizes``; events laid out, nothing encoded), each transaction's
    first group, table uses."""
    blk = _one(records)
    run = make_run(spec, a)
    w = SinkWriter(run.fmt, basename=spec.basename, server_id=spec.server_id, start_time=spec.start_time,
                   settings=run.session_settings())
    if p == 0 and spec.ddl_in_binlog:
        run.initial_in_binlog(w)
    prologue = len(w.sizes)
    def counted() -> int:
        return sum(n for kinds in run.counts.values() for n in kinds.values())
    changes = counted()
    if not _batched(w):
        first = [prologue]
        for _ in _transactions(run, w, blk, a, b):
            first.append(len(w.sizes))
        # run.row_txns: transactions with row changes written one by one (the change model's seq)
        return Summary(np.asarray(w.sizes, dtype=np.int64), np.asarray(first, dtype=np.int64), prologue, w.uses,
                       counted(), run.row_txns)
    txns = run.row_txns  # the --ddl-in-binlog prologue's INSERT transactions
    groups: list[np.ndarray] = [np.asarray(w.sizes, dtype=np.int64)]
    per_txn: list[np.ndarray] = []
    for lo, hi in batch_bounds(spec, a, b, partition_batch(run)):
        ab = applied_batch(spec, blk, lo, hi)
        plan = w.plan_rows(rows_sizes(run, ab, w.now))
        nz = plan.sizes > 0
        groups.append(plan.sizes[nz].astype(np.int64))
        cnt = nz.astype(np.int64)
        w.now += int(ab.advance.sum())
        changes += len(ab.txn)
        if len(ab.txn):
            txns += int(np.count_nonzero(ab.txn[1:] != ab.txn[:-1])) + 1
        d = ddl_after(spec, hi - 1)
        if d is not None:
            before = len(w.sizes)
            do_ddl(run, w, d)
            groups.append(np.asarray(w.sizes[before:], dtype=np.int64))
            cnt[-1] += len(w.sizes) - before
        per_txn.append(cnt)
    counts = np.concatenate(per_txn) if per_txn else np.zeros(0, dtype=np.int64)
    first = prologue + np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return Summary(np.concatenate(groups), first, prologue, w.uses, changes, txns)


def clock_states(spec: Spec, blocks: Iterable[dict[str, np.ndarray]], ranges: list[tuple[int, int]],
                 prologue: int) -> list[Any]:
    """The MySQL WRITESET tracker's state (generators/writeset.py) at the start of each
    range, for pass 2: the ranges' merged blocks replayed in order on the driver, batch by
    batch and DDL by DDL as the one-process batch loop does (``prologue``: the
    ``--ddl-in-binlog`` groups before range 0). None per range when the run keeps the
    commit order. Arrays only: one tracker call per batch."""
    run = make_run(spec, 0)
    clock = run.wsclock
    if clock is None:
        return [None] * len(ranges)
    clock.after_prologue(prologue)
    out = []
    size = partition_batch(run)  # one batch size for every block: a function of the spec
    for (a, b), blk in zip(ranges, blocks, strict=False):
        out.append(clock.state)
        for lo, hi in batch_bounds(spec, a, b, size):
            ab = applied_batch(spec, blk, lo, hi)
            _, state_after = clock.plan_batch(hi - lo, ab.txn, ab.table, ab.key)
            clock.commit(state_after(hi - lo))
            if ddl_after(spec, hi - 1) is not None:
                clock.barrier()
    return out


class GroupPlan:
    """MariaDB ``--parallel-groups`` over the whole run, on the driver (generators/group_commit.py):
    the tracker's state at each range's start, and the position in its group commit of every
    transaction with row changes (``txns`` ascending, run-wide). A group commit's members
    are known only with the transaction after its last one, which may be in the next
    partition: the walk (spark_gen/plan.py) takes each group's commit-id bytes and held
    rotations from here, pass 2 the position of the first row transaction after its range."""

    def __init__(self, states: list[Any], txns: np.ndarray, pos: np.ndarray, cid_bytes: int) -> None:
        self.states, self.txns, self.pos, self.cid_bytes = states, txns, pos, cid_bytes

    def after(self, i: int) -> int:
        """Position of the first row transaction at or after ``i`` (0: none)."""
        k = int(np.searchsorted(self.txns, i))
        return int(self.pos[k]) if k < len(self.txns) else 0

    def partition(self, a: int, b: int, txn_first: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For transactions ``[a, b)`` whose groups pass 1 sized (every GTID without a
        commit id; ``txn_first``): the bytes to add per group, whether each group holds the
        rotation back, and per transaction (and ``b``) whether a ``--size`` stop before it owes
        the next row transaction (the second member of a group whose first is written)."""
        from generators.group_commit import commit_flags

        k0, k1 = np.searchsorted(self.txns, [a, b]).tolist()
        t, ps = self.txns[k0:k1] - a, self.pos[k0:k1]
        gp, hold = commit_flags(t, ps, b - a, self.after(b))
        add = np.zeros(n_groups, dtype=np.int64)
        held = np.zeros(n_groups, dtype=bool)
        row = t.astype(np.int64)
        first = np.asarray(txn_first, dtype=np.int64)[row]
        add[first] = np.where(gp[row] >= 0, self.cid_bytes, 0)
        last = np.asarray(txn_first, dtype=np.int64)[1:] - 1  # each transaction's last group
        has = np.asarray(txn_first[1:]) > np.asarray(txn_first[:-1])
        held[last[has]] = hold[has]
        nxt = np.append(ps, self.after(b))[np.searchsorted(t, np.arange(b - a + 1))]
        return add, held, nxt == 1


def group_commit_plan(spec: Spec, blocks: Iterable[dict[str, np.ndarray]], ranges: list[tuple[int, int]],
                      prologue: int, cid_bytes: int) -> GroupPlan | None:
    """:class:`GroupPlan` of a run with MariaDB group commits (else None): the ranges' merged
    blocks replayed in order, batch by batch and DDL by DDL, as :func:`clock_states`."""
    from generators.group_commit import GroupCommits

    run = make_run(spec, 0)
    clock = run.wsclock
    if not isinstance(clock, GroupCommits):
        return None
    clock.after_prologue(prologue)
    states, txns, pos = [], [], []
    size = partition_batch(run)  # one batch size for every block: a function of the spec
    for (a, b), blk in zip(ranges, blocks, strict=False):
        states.append(clock.state)
        for lo, hi in batch_bounds(spec, a, b, size):
            ab = applied_batch(spec, blk, lo, hi)
            cm = clock.plan_commits(hi - lo, ab.txn, ab.table, ab.key, 0)
            txns.append(cm.txns + lo)
            pos.append(cm.pos)
            clock.commit(cm.state_after(hi - lo))
            if ddl_after(spec, hi - 1) is not None:
                clock.barrier()
    def cat(xs):
        return (np.concatenate(xs).astype(np.int64) if xs else np.zeros(0, dtype=np.int64))
    return GroupPlan(states, cat(txns), cat(pos), cid_bytes)


def _next_in_block(spec: Spec, blk: dict[str, np.ndarray], hi: int, b: int, after_b: int) -> Any:
    """``after`` of :meth:`GroupCommits.plan_commits` for a pass-2 batch ending before ``hi``
    of a range ending before ``b``: 0 when a DDL follows, else a function of the state after
    the batch giving the position of the first row transaction after it (in the block, or
    ``after_b`` past the range when no DDL comes first)."""
    if ddl_after(spec, hi - 1) is not None:
        return 0
    s = int(np.searchsorted(blk["i"], hi))
    nxt = int(blk["i"][s]) if s < len(blk["i"]) and int(blk["i"][s]) < b else b
    if spec.ddl_every:
        e = spec.ddl_every
        if hi + (e - 1 - hi % e) < nxt:  # a DDL comes first
            return 0
    if nxt >= b:
        return after_b

    def at(state: Any, clock: Any) -> int:
        r = applied_batch(spec, blk, nxt, nxt + 1)
        return clock.next_pos(state, r.table, r.key)
    return at


def write_chunks(spec: Spec, p: int, a: int, b: int, records: Iterable[Any], start: WriterStart, chunk_dir: str, *,
                 last: bool, stop: int | None, fail: tuple[str, int] | None = None,
                 attempt: int = 0, seq_start: int = 0, changes_jsonl: bool = True,
                 clock_state: Any = None, group_after: int = 0) -> dict[str, Any]:
    """Pass 2: the partition's bytes of every file it touches, as chunks in ``chunk_dir``
    (unique per task attempt), and its truth/changes chunks in ``chunk_dir/changes``
    (``seq`` of its first transaction with row changes: ``seq_start``). ``clock_state``: the WRITESET
    tracker's state at the partition's start (:func:`clock_states`); ``group_after``: MariaDB group commits, the
    position of the first row transaction after the range (:class:`GroupPlan`). Returns the chunks and what the
    manifest needs."""
    from generators.changes_truth import ChangesRecorder

    blk = _one(records)
    run = make_run(spec, a)
    run.changes = ChangesRecorder(run, os.path.join(chunk_dir, "changes"), seq_start=seq_start, jsonl=changes_jsonl,
                                  ipc=True)  # Arrow IPC chunks: Parquet-encoded once, by the merge
    w = ChunkWriter(Path(chunk_dir), run.fmt, start, basename=spec.basename, server_id=spec.server_id,
                    start_time=spec.start_time, max_binlog_size=spec.max_binlog_size,
                    settings=run.session_settings())
    end = b if stop is None else min(b, stop)
    half = a + (end - a) // 2
    if run.wsclock is not None and clock_state is not None:
        run.wsclock.state = clock_state
    try:
        if p == 0 and spec.ddl_in_binlog:
            run.initial_in_binlog(w)
        if _batched(w):
            for lo, hi in batch_bounds(spec, a, end, partition_batch(run)):
                ab = applied_batch(spec, blk, lo, hi)
                rb = rows_batch(run, ab, w.now)
                after = _next_in_block(spec, blk, hi, b, group_after) if run.wsclock is not None else 0
                keep_clock, _ = run.plan_clock(ab, rb, after=after)
                keep_clock(write_batch(run, w, ab, w.plan_rows(rb), rb))
                d = ddl_after(spec, hi - 1)
                if d is not None:
                    do_ddl(run, w, d)
                if lo <= half < hi:
                    maybe_fail(fail, "write", p, attempt)
        else:
            for i in _transactions(run, w, blk, a, end):
                if i == half:
                    maybe_fail(fail, "write", p, attempt)
        if last:
            release_rotation(w)
        end_at = (w.current_file, w.position)
        if last:
            w.close()
        else:
            w.suspend()
    except BaseException:
        w.abort()
        run.changes.abort()
        raise
    changes = run.changes.close()
    run.changes = None
    from spark_gen.commit import scan_chunk

    # each chunk's events, scanned here in parallel (the commit then only hashes and copies);
    # a chunk starts at a file's first byte (magic) unless it is the resumed part of a file
    scans = []
    for k, (name, path, _n) in enumerate(w.pieces):
        resumed = k == 0 and not start.fresh and start.offset
        scans.append(scan_chunk(path, 0 if resumed else 4, run.spans.get(name), start.offset if resumed else 0))
    return {"pieces": w.pieces, "scans": scans, "counts": run.counts, "changes": changes,
            "file_info": {k: (v.transactions, v.first_gtid, v.last_gtid) for k, v in run.file_info.items()},
            "end": end_at, "groups": w.transactions, "last_gtid": w.last_gtid}


# -- 6: truth/final ---------------------------------------------------------------------------
def final_states(blocks: Iterable[dict[str, np.ndarray]], stop: int) -> Iterator[tuple[int, ...]]:
    """History blocks -> ``(table, key, version, born)`` of every key live after
    transaction ``stop - 1`` (and its INSERT and last change times when the histories have
    them, :func:`add_stamps`): each key's last record before ``stop`` decides (a DELETE: not
    live; an ``init``, INSERT or UPDATE: live at its version after)."""
    for h in blocks:
        sel = _live_after(h, stop)
        cols = [h["t"][sel].tolist(), h["k"][sel].tolist(), h["va"][sel].tolist(), h["born"][sel].tolist()]
        if "ti" in h:
            cols += [h["ti"][sel].tolist(), h["tua"][sel].tolist()]
        yield from zip(*cols, strict=True)


def _live_after(h: dict[str, np.ndarray], stop: int) -> np.ndarray:
    """Indices of a history block's records that leave their key live after ``stop - 1``."""
    m = np.flatnonzero(h["i"] < stop)
    if not len(m):
        return m
    t, k = h["t"][m], h["k"][m]
    last = np.ones(len(m), dtype=bool)
    last[:-1] = (t[1:] != t[:-1]) | (k[1:] != k[:-1])
    sel = m[last]
    return sel[h["kind"][sel] != 2]


def live_counts(blocks: Iterable[dict[str, np.ndarray]], stop: int, ntables: int) -> list[int]:
    """Per table, the keys :func:`final_states` gives (counted, not listed)."""
    out = np.zeros(ntables, dtype=np.int64)
    for h in blocks:
        out += np.bincount(h["t"][_live_after(h, stop)], minlength=ntables)[:ntables]
    return out.tolist()


def truth_rows(spec: Spec, stop: int, states: Iterable[tuple[int, int, int, int]], values: bool = True
               ) -> Iterator[tuple[tuple, tuple[str, list | None]]]:
    """Final rows rendered canonically, keyed ``(table, canonical key, key)`` — the order of
    truth/final (ties, which need identical values, in key order like the engine's stable
    sort). Rows are computed in blocks of :data:`TRUTH_BLOCK` per table, column by column
    (``TableRows.rows_of``, the engine's way of computing its final rows). ``values``:
    also carry the canonical values (for the typed Parquet); else ``None`` in their place."""
    run = make_run(spec, stop)
    renders: dict[int, Any] = {}
    pending: dict[int, list[tuple[int, ...]]] = {}

    def flush(t: int) -> Iterator[tuple[tuple, tuple[str, list | None]]]:
        got = pending.pop(t)
        rt = run.rows[t]
        r = renders.get(t)
        if r is None:
            r = renders[t] = canonical_renderer(rt.table, spec.flavor)
        names = [c.name for c in rt.table.columns]
        arr = np.asarray(got, dtype=np.int64)
        times = (arr[:, 3], arr[:, 4]) if arr.shape[1] > 3 else ()  # stamped columns' times (add_stamps)
        for k, row in zip(arr[:, 0].tolist(), rt.rows_of(arr[:, 0], arr[:, 1], arr[:, 2], *times), strict=True):
            vals = r(row)
            yield (t, canonical_key(vals), k), (dumps_line(names, vals), vals if values else None)

    for t, k, *state in states:
        lst = pending.setdefault(t, [])
        lst.append((k, *state))
        if len(lst) >= TRUTH_BLOCK:
            yield from flush(t)
    for t in sorted(pending):
        yield from flush(t)


def write_truth_chunks(p: int, names: list[str], rows: Iterable[tuple[tuple, tuple[str, list]]], chunk_dir: str
                       ) -> list[tuple[int, str, int]]:
    """One sorted chunk per table present in this partition: (table, path, rows)."""
    os.makedirs(chunk_dir, exist_ok=True)
    out = []
    for t, group in groupby(rows, key=lambda r: r[0][0]):
        path = os.path.join(chunk_dir, f"{names[t]}.jsonl")
        n = 0
        with open(path + ".part", "w", encoding="utf-8", newline="\n") as f:
            for _, (line, _vals) in group:
                f.write(line + "\n")
                n += 1
        os.replace(path + ".part", path)
        out.append((t, path, n))
    return out


def snapshot_piece(spec: Spec, t: int, lo: int | None, hi: int | None, path: str) -> str:
    """``snapshot.sql`` INSERTs of table ``t``'s initial keys (``[lo, hi)``; None: all)."""
    run = make_run(spec, 0)
    rt = run.rows[t]
    keys = run.initial_keys(rt) if lo is None else range(lo, hi)
    with open(path + ".part", "w", encoding="utf-8", newline="\n") as f:
        for text in run.snapshot_inserts(rt, keys):
            f.write(text)
    os.replace(path + ".part", path)
    return path
