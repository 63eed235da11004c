"""Partition functions: pure, plain Python iterators in and out, testable without Spark.

The job (spark_gen/job.py) chains them; each works on one partition's transaction range
``[a, b)`` or on one partition of a shuffle, and uses the very functions of the
single-process engine (generators/plan.py, keys.py, engine.Run, the codec's writer):

1. :func:`count_new` — per-table fresh-key counts and clock advances of a range;
2. :func:`max_hwm` — the highest key planned for an INSERT in a range (given the counts
   before it);
3. :func:`key_ops` — the range's resolved key operations, keyed ``(table, key, i, seq)``;
   :func:`initial_markers` — one ``init`` record per initial row;
4. :func:`resolve_histories` — after the shuffle by key (sorted by ``(table, key, i, seq)``):
   each key's history through :func:`generators.keys.step`; what it did, with versions;
5. :func:`sizes` (pass 1) and :func:`write_chunks` (pass 2) — after the shuffle back by
   transaction (sorted by ``(i, seq)``): the transactions through ``Run.transaction`` into a
   byte-counting writer, then into the partition's chunks of the real files;
6. :func:`final_states` / :func:`truth_rows` / :func:`write_truth_chunks` — ``truth/final``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from itertools import groupby
from pathlib import Path
from typing import Any

import numpy as np

from generators.engine import Run
from generators.keys import Applied, KeyCursor, TableInfo, resolve_ops, step
from generators.plan import plan_transaction
from generators.spec import Spec
from generators.truth import canonical_key, canonical_renderer, dumps_line
from spark_gen.plan import Summary
from spark_gen.writer import ChunkWriter, SinkWriter, WriterStart

__all__ = ["make_run", "count_new", "max_hwm", "key_ops", "initial_markers", "resolve_histories",
           "by_transaction", "sizes", "write_chunks", "final_states", "truth_rows", "write_truth_chunks",
           "snapshot_piece", "InjectedFailure", "maybe_fail"]

INIT = "init"


class InjectedFailure(RuntimeError):
    """Raised by :func:`maybe_fail` (tests: a task dies in the middle of writing)."""


def maybe_fail(fail: tuple[str, int] | None, stage: str, p: int, attempt: int) -> None:
    """``fail = (stage, partition)``: fail that task's first attempt; ``(stage + "!", p)``:
    every attempt (the job fails)."""
    if fail is None or fail[1] != p:
        return
    if fail[0] == stage + "!" or (fail[0] == stage and attempt == 0):
        raise InjectedFailure(f"injected failure: {stage} partition {p}, attempt {attempt}")


def make_run(spec: Spec, at: int = 0) -> Run:
    """A fresh Run of ``spec`` with its tables in the DDL state of transaction ``at``."""
    run = Run(spec, None)  # type: ignore[arg-type]
    run.set_ddl_state(at)
    return run


# -- 1, 2, 3: key resolution ------------------------------------------------------------------
def count_new(spec: Spec, infos: list[TableInfo], a: int, b: int) -> tuple[list[int], int]:
    """(fresh-key INSERTs per table, clock seconds) of transactions ``[a, b)``."""
    n = len(infos)
    cur = KeyCursor([0] * n, [0] * n)
    adv = 0
    for i in range(a, b):
        plan = plan_transaction(spec, n, i)
        adv += plan.advance
        resolve_ops(spec, infos, cur, plan)
    return cur.new, adv


def max_hwm(spec: Spec, infos: list[TableInfo], new_start: list[int], a: int, b: int) -> list[int]:
    """One past the highest INSERT key of ``[a, b)`` per table (0: none). Picks are
    resolved against hwm 0 here, which changes no INSERT key above the true hwm."""
    n = len(infos)
    cur = KeyCursor(list(new_start), [0] * n)
    for i in range(a, b):
        resolve_ops(spec, infos, cur, plan_transaction(spec, n, i))
    return cur.hwm


def key_ops(spec: Spec, infos: list[TableInfo], cur: KeyCursor, a: int, b: int
            ) -> Iterator[tuple[tuple[int, int, int, int], tuple[str, int]]]:
    cur = cur.copy()
    n = len(infos)
    for i in range(a, b):
        for op in resolve_ops(spec, infos, cur, plan_transaction(spec, n, i)):
            yield (op.table, op.key, i, op.seq), (op.kind, op.epoch)


def initial_markers(run: Run, t: int, lo: int, hi: int) -> Iterator[tuple[tuple[int, int, int, int], tuple[str, int]]]:
    """``init`` records of table ``t``'s initial keys in ``[lo, hi)``."""
    rt = run.rows[t]
    simple = rt.tdef.initial_keys is None
    for k in range(lo, hi):
        if simple or rt.is_initial(k):
            yield (t, k, -1, 0), (INIT, 0)


# -- 4: per-key histories ------------------------------------------------------------------
def resolve_histories(records: Iterable[tuple[tuple[int, int, int, int], tuple[str, int]]]
                      ) -> Iterator[tuple[tuple[int, int, int, int], tuple[str, int, int, int]]]:
    """Records sorted by ``(table, key, i, seq)`` -> the applied ones as
    ``(table, key, i, seq) -> (kind, ver_before, ver_after, born)``, ``init`` kept."""
    for (t, k), group in groupby(records, key=lambda r: (r[0][0], r[0][1])):
        state: tuple[bool, int, int] = (False, 0, -1)
        for (_, _, i, seq), (kind, epoch) in group:
            if kind == INIT:
                state = (True, 0, 0)
                yield (t, k, i, seq), (INIT, 0, 0, 0)
                continue
            res = step(state, kind, epoch)
            if res is None:
                continue
            state, vb, va = res
            yield (t, k, i, seq), (kind, vb, va, state[2])


def by_transaction(rec: tuple[tuple[int, int, int, int], tuple[str, int, int, int]]
                   ) -> tuple[tuple[int, int], tuple[str, int, int, int, int, int]]:
    (t, k, i, seq), (kind, vb, va, born) = rec
    return (i, seq), (kind, t, k, vb, va, born)


def _applied_by_txn(records: Iterable[tuple[tuple[int, int], tuple]]) -> Iterator[tuple[int, list[Applied]]]:
    for i, group in groupby(records, key=lambda r: r[0][0]):
        yield i, [Applied(seq, kind, t, k, vb, va, born) for (_, seq), (kind, t, k, vb, va, born) in group]


def _transactions(run: Run, writer, a: int, b: int, records, stop: int | None = None) -> Iterator[int]:
    """Write transactions ``[a, min(b, stop))`` through ``run.transaction``; yields each i
    after writing it."""
    n = len(run.rows)
    end = b if stop is None else min(b, stop)
    it = _applied_by_txn(records)
    nxt = next(it, None)
    for i in range(a, end):
        applied: list[Applied] = []
        while nxt is not None and nxt[0] < i:  # pragma: no cover - records are sorted
            nxt = next(it, None)
        if nxt is not None and nxt[0] == i:
            applied = nxt[1]
            nxt = next(it, None)
        run.transaction(writer, plan_transaction(run.spec, n, i), applied)
        yield i


# -- 5: pass 1 (sizes) and pass 2 (bytes) -----------------------------------------------------
def sizes(spec: Spec, p: int, a: int, b: int, records) -> Summary:
    run = make_run(spec, a)
    w = SinkWriter(run.fmt, basename=spec.basename, server_id=spec.server_id, start_time=spec.start_time,
                   settings=run.session_settings())
    if p == 0 and spec.ddl_in_binlog:
        run.initial_in_binlog(w)
    prologue = len(w.sizes)
    first = [prologue]
    for _ in _transactions(run, w, a, b, records):
        first.append(len(w.sizes))
    changes = sum(n for kinds in run.counts.values() for n in kinds.values())
    return Summary(np.asarray(w.sizes, dtype=np.int64), np.asarray(first, dtype=np.int64), prologue, w.uses,
                   changes)


def write_chunks(spec: Spec, p: int, a: int, b: int, records, start: WriterStart, chunk_dir: str, *,
                 last: bool, stop: int | None, fail: tuple[str, int] | None = None,
                 attempt: int = 0, seq_start: int = 0, changes_jsonl: bool = True) -> dict[str, Any]:
    """Pass 2: the partition's bytes of every file it touches, as chunks in ``chunk_dir``
    (unique per task attempt), and its truth/changes chunks in ``chunk_dir/changes``
    (sequence numbers from ``seq_start``). Returns the chunks and what the manifest needs."""
    from generators.changes_truth import ChangesRecorder

    run = make_run(spec, a)
    run.changes = ChangesRecorder(run, os.path.join(chunk_dir, "changes"), seq_start=seq_start, jsonl=changes_jsonl)
    w = ChunkWriter(Path(chunk_dir), run.fmt, start, basename=spec.basename, server_id=spec.server_id,
                    start_time=spec.start_time, max_binlog_size=spec.max_binlog_size,
                    settings=run.session_settings())
    try:
        if p == 0 and spec.ddl_in_binlog:
            run.initial_in_binlog(w)
        half = a + (min(b, stop if stop is not None else b) - a) // 2
        for i in _transactions(run, w, a, b, records, stop):
            if i == half:
                maybe_fail(fail, "write", p, attempt)
        end = (w.current_file, w.position)
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
    return {"pieces": w.pieces, "counts": run.counts, "changes": changes,
            "file_info": {k: (v.transactions, v.first_gtid, v.last_gtid) for k, v in run.file_info.items()},
            "end": end, "groups": w.transactions, "last_gtid": w.last_gtid}


# -- 6: truth/final ---------------------------------------------------------------------------
def final_states(records: Iterable[tuple[tuple[int, int, int, int], tuple[str, int, int, int]]], stop: int
                 ) -> Iterator[tuple[int, int, int, int]]:
    """Histories sorted by key -> ``(table, key, version, born)`` of every key live after
    transaction ``stop - 1``."""
    for (t, k), group in groupby(records, key=lambda r: (r[0][0], r[0][1])):
        live, ver, born = False, 0, -1
        for (_, _, i, _), (kind, _vb, va, b) in group:
            if i >= stop:
                break
            if kind == "delete":
                live = False
            else:
                live, ver, born = True, va, b
        if live:
            yield t, k, ver, born


def truth_rows(spec: Spec, stop: int, states: Iterable[tuple[int, int, int, int]]
               ) -> Iterator[tuple[tuple, tuple[str, list]]]:
    """Final rows rendered canonically, keyed ``(table, canonical key, key)`` — the order of
    truth/final (ties, which need identical values, in key order like the engine's stable
    sort)."""
    run = make_run(spec, stop)
    renders = {}
    for t, k, ver, born in states:
        rt = run.rows[t]
        r = renders.get(t)
        if r is None:
            r = renders[t] = canonical_renderer(rt.table, spec.flavor)
        vals = r(rt.row_at(k, ver, born))
        yield (t, canonical_key(vals), k), (dumps_line([c.name for c in rt.table.columns], vals), vals)


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
