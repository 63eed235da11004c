"""The Spark job: thin wiring of spark_gen.partition (pure) and spark_gen.plan (driver scans).

``spark-submit spark_gen/job.py --out DIR [options of binlogwriter generate]`` runs it on
a cluster (docs/spark.md); ``python -m spark_gen`` and ``binlogwriter generate --engine
spark`` run it too (local[*] unless a master is configured).

Stages (every arrow a Spark job). Records cross the shuffles as columnar blocks — dicts of
numpy arrays, one per (source task, destination partition) — never a Python object per row
(spark_gen/partition.py). The blocks go through files in the staging directory (one file per
task, ``save_blocks``), not through Spark's shuffle: only ``(destination, file, offset)``
references reach the driver, which routes them to the next job's tasks (``_Job._routed``) —
a Spark shuffle of Python records would pickle every block into the JVM, spill it to the
JVM's shuffle files and stream it back to the reducers' Python workers:

1. plan counts per partition -> prefix sums / maxima on the driver -> key cursors;
2. key-op blocks (+ ``init`` blocks of the initial rows) cut by key bucket; each
   bucket's per-key histories resolved at once (what each op did, versions) [saved to a
   file beside the chunks: a cached Python RDD would copy it through the JVM at each read];
3. history blocks cut back by transaction range, merged in (i, seq) order [saved
   likewise; the paths reach the driver in the pass-1 summaries];
4. pass 1, in the job of 3: the batches of the one-process engine
   (generators/api.py), image lengths only (``rows_sizes``), planned by the codec's batch
   planner — group sizes by arithmetic, nothing encoded — collected as small summaries (a size per group) -> on the driver:
   file, offset, logical clock, GTID numbers, clock and table ids at each partition start
   (spark_gen/plan.py);
5. pass 2: each partition writes its byte range of each file it touches into chunk
   files in a directory unique to its task attempt (the same batches, encoded) and walks
   their event headers (events, timestamps for the manifest); the same job (short tasks
   after the long ones) writes snapshot.sql's pieces per table and, when truth/final is
   rendered for sure (with Parquet, or when the initial rows plus every change are at most
   ``jsonl_max_rows``), each history partition's live rows as sorted runs per table
   (truth/final without a global sort, spark_gen/final.py) — else it counts each history
   block's live rows (whether truth/final is rendered);
6. the files, in one job of mixed tasks (spark_gen/finish.py), long tasks first: one
   task per binlog file hashes the chunks and copies them into ``<name>.part-*`` (kernel
   copy, spark_gen/commit.py) and renames it; one task per table merges the partitions'
   change chunks (Arrow IPC streams: Parquet-encoded once, by the merge;
   generators/changes_ipc.py; sequence numbers from the pass-1 change counts); one task
   per table merges its runs into the JSONL (below ``jsonl_max_rows``) and the typed
   Parquet, final bytes written once; the changes.jsonl pieces and the snapshot.sql
   pieces are concatenated. (When the runs are still to be made they are made in a first
   job beside the binlog files and truth/changes, and truth/final and snapshot.sql follow.)
   Every stage boundary is a barrier where a core can idle behind the longest task: the
   fewer jobs, the better ``local[2]`` scales;
7. the driver writes ``binlog.index`` and then ``manifest.json``.

``BINLOGWRITER_SPARK_TIMING=1`` reports the CPU of each stage (spark_gen/timing.py).

Everything is built in a locked ``.OUT.tmp-*`` beside ``out`` and renamed to ``out`` at the
end (docs/generate.md, crash safety): a failure removes it, a killed run leaves nothing at
``out`` and the next run into ``out`` removes it.

Size: the wiring of every stage in order (:class:`_Job`, one method per stage) plus the session
set-up; the computation is in spark_gen/partition.py. Splitting the stages apart would spread
one sequence of Spark jobs, which share the session, staging paths and counters, over modules.
"""

from __future__ import annotations

import os
import signal
import sys

if __name__ == "__main__":  # spark-submit .../spark_gen/job.py: its driver may be a Python without the project
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from spark_gen.environment import ensure_driver_python

    ensure_driver_python()

import json
import shutil
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from generators.api import (
    FileInfo,
    RunResult,
    build_manifest,
    file_entry,
    lock_dir,
    planned_for,
    sweep_stale_tmp,
    tmp_prefix,
)
from generators.replica.hook import write_replica_if_asked
from generators.spec import Spec, SpecError, resolve
from spark_gen import environment
from spark_gen.environment import DEFAULT_LOG_LEVEL

__all__ = ["generate_spark", "get_session", "JSONL_MAX_ROWS"]

JSONL_MAX_ROWS = 20_000_000  # truth/final/*.jsonl is written when the final tables hold at most this many rows
INIT_CHUNK = 1_000_000  # initial keys per task for init records
SNAPSHOT_CHUNK = 200_000  # initial rows per snapshot.sql piece (a multiple of the 100 rows per INSERT)


def get_session(master: str | None = None, log_level: str = DEFAULT_LOG_LEVEL):
    """The active SparkSession, or a new one (``local[*]`` unless a master is configured).

    A new local session runs its Python workers with this interpreter unless the user chose
    one, and logs at ``log_level`` from the JVM's start (spark_gen/environment.py)."""
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    from spark_gen.errors import EnvironmentSetupError

    s = SparkSession.getActiveSession()
    if s is not None:
        return s
    if os.environ.get("PYSPARK_GATEWAY_PORT"):  # spark-submit: its JVM holds --master and --conf
        from pyspark import SparkContext

        SparkContext._ensure_initialized()
    conf = SparkConf()
    b = SparkSession.builder.appName("binlogwriter-generate")
    if master is None:
        master = conf.get("spark.master") if conf.contains("spark.master") else "local[*]"
        if not conf.contains("spark.master"):
            b = b.master(master)
    else:
        b = b.master(master)
    if environment.is_local_master(master):
        environment.prepare_local(conf.get("spark.pyspark.python", None))
    for k, v in environment.builder_options(log_level, conf, local=environment.is_local_master(master)).items():
        b = b.config(k, v)
    sigint = signal.getsignal(signal.SIGINT)
    try:
        s = b.getOrCreate()
    except Exception as e:  # noqa: BLE001 - no JVM / no Java: one line, not a stack
        raise EnvironmentSetupError(environment.explain_failure(e)) from None
    if callable(sigint) and sigint is not signal.default_int_handler and signal.getsignal(signal.SIGINT) is not sigint:
        try:
            signal.signal(signal.SIGINT, sigint)  # the caller's own (generators/cli.py), not pyspark's
        except ValueError:  # not the main thread: pyspark installed nothing either
            pass
    s.sparkContext.setLogLevel(log_level)
    return s


def _attempt() -> int:
    from pyspark import TaskContext

    tc = TaskContext.get()
    return tc.attemptNumber() if tc is not None else 0


_TEST_FAIL: tuple[str, int] | None = None
"""Test seam (tests only, not a setting): a failure to inject into every job this process
runs when ``generate_spark`` is called without ``fail`` — ``(stage, partition)``, see
:func:`spark_gen.partition.maybe_fail`. Set on the driver (e.g. by a test that runs the CLI
in a subprocess after setting it); the tasks get it as their ``fail`` argument."""


def generate_spark(spec: Spec, out: str | os.PathLike, *, partitions: int | None = None, spark=None,
                   parquet: bool = True, jsonl_max_rows: int = JSONL_MAX_ROWS,
                   fail: tuple[str, int] | None = None,
                   progress: Callable[[int, int], None] | None = None,
                   log_level: str = DEFAULT_LOG_LEVEL) -> RunResult:
    """Run ``spec`` on Spark into ``out`` (must not exist or be empty; a path every executor
    and the driver can write). Same bytes as generators.engine.generate.

    Before any work a tiny job checks that the executors can import the project
    (EnvironmentSetupError, one line, when they cannot)."""
    from generators.api import Run

    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SpecError(f"--out: {out} already exists and is not an empty directory")
    spec = resolve(spec)
    run = Run(spec, out)  # validation and schema errors before anything is created
    if partitions is not None and partitions < 1:
        raise SpecError(f"--partitions: expected N >= 1, got {partitions}")
    if spec.transaction_compression:
        # a zstd payload's size depends on the XIDs and table ids inside it, which the size
        # pass does not know yet: positions could not be assigned by prefix sums
        raise SpecError("--compress is not supported with --engine spark (yet); use --engine local")
    if spec.gtid and ":" in spec.gtid:
        # tagged GTID events are varlen-coded: their size depends on the GNO and logical clock
        raise SpecError("--gtid UUID:tag is not supported with --engine spark (yet); use --engine local")
    parent = out.absolute().parent
    if not parent.is_dir():
        raise SpecError(f"--out: parent directory {parent} does not exist")
    spark = spark or get_session(log_level=log_level)
    environment.probe_executors(spark.sparkContext)
    fail = fail or _TEST_FAIL
    # built in a locked temporary directory beside out and renamed at the very end, as the
    # local engine does (docs/generate.md, crash safety): a killed run leaves nothing at out
    sweep_stale_tmp(out)
    work = Path(tempfile.mkdtemp(prefix=tmp_prefix(out), dir=parent))
    lock = lock_dir(work)
    staging = work / f".spark-staging-{uuid.uuid4().hex[:12]}"
    try:
        staging.mkdir()
        manifest = _Job(spark, spec, run, work.absolute(), staging.absolute(), partitions, parquet,
                        jsonl_max_rows, fail).run()
        shutil.rmtree(staging, ignore_errors=True)
        write_replica_if_asked(spec, work)  # truth/replica/ (docs/replica.md)
        os.chmod(work, 0o755)
        if out.exists():
            out.rmdir()
        os.rename(work, out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    finally:
        if lock is not None and lock >= 0:
            os.close(lock)
    return RunResult(out, manifest)


class _Job:
    """One generation on Spark: the stages of the module docstring, one method each.

    Size: one method per stage sharing the session, spec, staging paths and counters (the
    module's Size note); each method is short wiring around spark_gen/partition.py."""

    def __init__(self, spark, spec: Spec, run, out: Path, staging: Path, partitions: int | None, parquet: bool,
                 jsonl_max_rows: int, fail: tuple[str, int] | None) -> None:
        self.spark = spark
        self.sc = spark.sparkContext
        self.spec = spec
        self.run0 = run
        self.out = out
        self.staging = staging
        self.P = partitions or self.sc.defaultParallelism
        self.parquet = parquet
        self.jsonl_max_rows = jsonl_max_rows
        self.fail = fail
        from spark_gen.timing import StageTimer

        self.timer = StageTimer()  # BINLOGWRITER_SPARK_TIMING=1: CPU per stage (spark_gen/timing.py)

    # -- helpers -----------------------------------------------------------------------------
    def _sizes_fns(self):
        """Header and ROTATE sizes, measured once per distinct shape: a header depends on
        the file name lengths, "not the first file" and "GTIDs before"; a ROTATE on the
        next name's length."""
        from spark_gen.writer import file_name, header_size, rotate_size

        s, fmt, settings = self.spec, self.run0.fmt, self.run0.session_settings()
        hcache: dict[tuple, int] = {}
        rcache: dict[int, int] = {}

        def header(idx: int, groups: int) -> int:
            key = (len(file_name(s.basename, idx)), len(file_name(s.basename, max(1, idx - 1))), idx > 1, groups > 0)
            v = hcache.get(key)
            if v is None:
                v = hcache[key] = header_size(fmt, basename=s.basename, server_id=s.server_id, settings=settings,
                                              file_index=idx, groups_before=groups)
            return v

        def rotate(idx: int) -> int:
            key = len(file_name(s.basename, idx))
            v = rcache.get(key)
            if v is None:
                v = rcache[key] = rotate_size(fmt, basename=s.basename, server_id=s.server_id, next_index=idx)
            return v

        return header, rotate

    def _cid_bytes(self) -> int:
        """MariaDB group commits: the bytes a commit id adds to a GTID (pass 1 sizes every GTID
        without one)."""
        from binlogwriter.batch.columnar_encode import mgtid_template

        w = SimpleNamespace(settings=self.run0.session_settings(), fmt=self.run0.fmt,
                            server_id=self.spec.server_id)
        return len(mgtid_template(w)) - len(mgtid_template(w, grouped=False))

    def _routed(self, refs: list[tuple[int, Any]]):
        """The driver's half of a file-passed shuffle: the ``(destination, reference)``
        records of every task (in task order) grouped by destination partition, as an RDD
        whose partition ``d`` holds ``(d, its records)``."""
        out: list[list[tuple[int, Any]]] = [[] for _ in range(self.P)]
        for dest, ref in refs:
            out[dest].append((dest, ref))
        return self.sc.parallelize(list(enumerate(out)), self.P)

    def run(self) -> dict[str, Any]:
        from spark_gen import partition as part
        from spark_gen import plan

        spec = self.spec
        size_mode = spec.transactions is None
        # --transactions N: N written, so as many planned as make N change rows (generators/run_count.py)
        n = planned_for(spec, spec.transactions) if not size_mode else self._estimate()
        self.timer.mark("start, --size probe")
        while True:
            ranges, w, uses, adv_starts, blocks = self._round(part, plan, n)
            if not size_mode or w.stop is not None:
                break
            # --size: the planned range ended before the size was reached; plan more
            n = int(n * spec.size / max(1, w.end.total) * 1.25) + 64
            shutil.rmtree(blocks.root, ignore_errors=True)
        stop = n if w.stop is None else w.stop
        manifest = self._write(part, plan, ranges, stop, w, uses, adv_starts, blocks)
        self.timer.report()
        return manifest

    def _estimate(self, probe: int = 2000) -> int:
        """--size: how many transactions to plan — the bytes per transaction of the first
        ``probe`` ones (planned on the driver by the batch functions, sizes by arithmetic,
        nothing encoded), 5 % spare. Too few costs one more round (:meth:`run`), too many
        only their planning."""
        from generators.api import apply_batch, make_run, rows_sizes
        from spark_gen.writer import SinkWriter

        spec = self.spec
        run = make_run(spec, 0)
        for rt in run.rows:
            rt.load_initial(run.initial_keys(rt))
        w = SinkWriter(run.fmt, basename=spec.basename, server_id=spec.server_id, start_time=spec.start_time,
                       settings=run.session_settings())
        m = min(probe, spec.ddl_every or probe)
        plan = w.plan_rows(rows_sizes(run, apply_batch(run, 0, m), w.now))
        if plan is None:
            return max(64, spec.size // 400)
        # at least 100 bytes a transaction (a group is bigger): a probe of transactions that
        # write nothing must not plan size/1 of them; the rounds plan more if needed
        per = max(100.0, float(plan.sizes.sum()) / m)
        return int(spec.size / per * 1.05) + 64

    def _round(self, part, plan, n: int):
        """Stages 1-4 for transactions [0, n)."""
        spec, sc, P = self.spec, self.sc, self.P
        infos = self.run0.infos
        ntables = len(infos)
        header, rotate = self._sizes_fns()
        rng = sc.parallelize(range(P), P)
        ranges = plan.split(n, P)
        ends = [b for _, b in ranges]
        if part.counters_are_arrays(spec):  # vectorised and cheap: on the driver, no Spark job
            counts = [part.count_new(spec, infos, a, b) for a, b in ranges]
        else:
            counts = rng.map(lambda p: part.count_new(spec, infos, *ranges[p])).collect()
        new_starts = plan.prefix_new([c[0] for c in counts], ntables)
        adv_starts = plan.prefix_sum([c[1] for c in counts])
        if part.counters_are_arrays(spec):
            maxima = [part.max_hwm(spec, infos, new_starts[p], a, b) for p, (a, b) in enumerate(ranges)]
        else:
            maxima = rng.map(lambda p: part.max_hwm(spec, infos, new_starts[p], *ranges[p])).collect()
        curs = plan.cursors(new_starts, plan.prefix_hwm(maxima, infos))
        self.timer.mark("1 counts, key cursors")

        # key ops as columnar blocks, one per (range, key bucket); init records likewise
        # (task p also makes the init blocks of every P-th chunk of initial keys)
        inits = [(t, lo, min(lo + INIT_CHUNK, inf.first_fresh)) for t, inf in enumerate(infos)
                 for lo in range(0, inf.first_fresh, INIT_CHUNK)]

        # the key histories and the merged transaction blocks go to files beside the chunks
        # (spark_gen/partition.py save_block), read back by pass 2 and the truth tasks; the
        # blocks of both shuffles go through files too (save_blocks): only their references
        # cross Spark, routed by the driver — three small jobs, no Spark shuffle
        broot = str(self.staging / f"blocks-{uuid.uuid4().hex[:12]}")
        os.makedirs(broot)

        def _path(kind: str, x: int) -> str:
            return os.path.join(broot, f"{kind}{x:05d}-a{_attempt()}-{uuid.uuid4().hex[:8]}")

        def op_blocks(p):
            out = part.key_op_blocks(spec, infos, curs[p], *ranges[p], P)
            for x in inits[p::P]:
                out.extend(part.init_blocks(part.make_run(spec), *x, P))
            return part.save_blocks(out, _path("o", p))
        to_bucket = self._routed(rng.flatMap(op_blocks).collect())

        # ON UPDATE / DEFAULT CURRENT_TIMESTAMP columns: each history record gets its row's times
        stamps = (spec, ranges, adv_starts) if any(rt.stamps for rt in self.run0.rows) else None

        def resolve(x):
            q, refs = x
            return part.resolve_task(q, part.load_blocks(refs), _path("h", q), ends, stamps)
        to_range = self._routed(to_bucket.flatMap(resolve).collect())

        def merge(x):
            p, refs = x
            return part.merge_task(spec, p, *ranges[p], refs, _path("t", p))
        # pass 1 in parallel; the summaries are small (a size per group, two paths)
        summ = to_range.map(merge).collect()
        blocks = Blocks(broot, [s.hist for s in summ], [s.block for s in summ])
        if None in blocks.hist:  # pragma: no cover - every bucket's task sends its path to its range
            raise RuntimeError("spark_gen: a key bucket's history block is missing")
        uses = [s.uses for s in summ]
        self.changes_per_part = [s.changes for s in summ]
        self.txns_per_part = [s.txns for s in summ]
        self.prologue = summ[0].prologue if summ else 0
        self.timer.mark("2-4 histories, pass 1")

        # MariaDB group commits: replayed over the whole run on the driver (a group's commit ids
        # and its rotation depend on the transaction after its last member)
        self.groups = part.group_commit_plan(spec, (part.load_block(t) for t in blocks.txn), ranges, self.prologue,
                                             self._cid_bytes())
        w = plan.walk(summ, ranges, max_size=spec.max_binlog_size,
                      size_limit=spec.size if spec.transactions is None else None,
                      header_size=header, rotate_size=rotate, groups=self.groups)
        self.timer.mark("walk (driver)")
        return ranges, w, uses, adv_starts, blocks

    def _write(self, part, plan, ranges, stop: int, w, uses, adv_starts, blocks: Blocks) -> dict[str, Any]:
        """Stages 5-7 for transactions [0, stop): pass 2 (the bytes), the files, the index and
        the manifest."""
        from spark_gen.finish import Finisher

        last_p = 0 if stop == 0 else next(p for p, (a, b) in enumerate(ranges) if a <= stop - 1 < b)
        starts = self._writer_starts(plan, w, uses, adv_starts, last_p)
        write = self._chunk_writer(part, plan, ranges, stop, last_p, starts, blocks.txn)
        nt = len(self.run0.rows)
        final_run = part.make_run(self.spec, stop)
        tables = tuple(rt.table for rt in final_run.rows)
        finisher = Finisher(self.spec, self.run0.fmt, tables)
        runs = self._runs_maker(part, stop, blocks.hist, nt)
        # truth/final's sorted runs are made in pass 2 when it is rendered for sure (with
        # Parquet, or when even every initial row and every change left a live row it would be
        # small enough); else pass 2 counts the live rows per table after ``stop`` (they decide)
        bound = sum(x.first_fresh for x in self.run0.infos) + sum(self.changes_per_part[:last_p + 1])
        early_runs = self.parquet or bound <= self.jsonl_max_rows
        got = self._pass2(part, stop, nt, last_p, blocks.hist, early_runs, write, runs, finisher)
        results = [r for kind, r in got if kind == "write"]
        self.timer.mark("5 pass 2 (bytes), runs")
        self._check_ends(starts, results, last_p)
        live_parts = [r[1] for r in got if r[0] in ("live", "counts")]
        live = [sum(c) for c in zip(*live_parts, strict=True)] if live_parts else [0] * nt
        files, chunk_scans, info, counts = self._gathered(results)
        scans = self._finish_files(got, results, tables, files, chunk_scans, live, early_runs, runs, finisher, blocks)
        self.timer.mark("6 commit, truth merges")
        return self._index_and_manifest(files, scans, info, counts, results[-1], stop,
                                        [(rt.table, live[t]) for t, rt in enumerate(final_run.rows)])

    def _writer_starts(self, plan, w, uses, adv_starts, last_p: int) -> list:
        """Each partition's ``WriterStart`` up to ``last_p``: its file, offset and groups from the
        walk of pass 1, its clock and its table ids."""
        from spark_gen.writer import WriterStart

        tables = plan.number_tables(uses, self.run0.session_settings().first_table_id)
        starts = []
        for p in range(last_p + 1):
            pos = w.starts[p]
            starts.append(WriterStart(file_index=pos.file_index, offset=pos.offset, seq_in_file=pos.seq_in_file,
                                      groups=pos.groups, now=self.spec.start_time + adv_starts[p],
                                      tables=tables[p][0], next_table_id=tables[p][1], fresh=p == 0))
        return starts

    def _chunk_writer(self, part, plan, ranges, stop: int, last_p: int, starts: list,
                      tpaths: list[str]) -> Callable[[int], dict[str, Any]]:
        """Pass 2's task for partition ``p``: its byte range of each file it touches, in chunk
        files of a directory unique to the task attempt (spark_gen/partition.py
        ``write_chunks``). The function is shipped to the executors: it closes over plain values
        only, never ``self`` (which holds the Spark context)."""
        from generators.changes_truth import JSONL_MAX_CHANGES

        spec, fail, chunk_root = self.spec, self.fail, str(self.staging / "chunks")
        seq_starts = plan.prefix_sum(self.txns_per_part[:last_p + 1])  # seq counts transactions with changes
        # an upper bound of the changes written: the partitions write changes.jsonl chunks only
        # when the run can be small enough for it (the commit keeps it when it is)
        changes_jsonl = sum(self.changes_per_part[:last_p + 1]) <= JSONL_MAX_CHANGES
        # MySQL WRITESET: the tracker's state at each range's start, replayed on the driver
        groups = self.groups
        if groups is not None:
            clocks = groups.states[:last_p + 1]
            afters = [groups.after(b) for _, b in ranges[:last_p + 1]]
        else:
            clocks = part.clock_states(spec, (part.load_block(tpaths[p]) for p in range(last_p + 1)),
                                       ranges[:last_p + 1], self.prologue)
            afters = [0] * (last_p + 1)

        def write(p):
            att = _attempt()
            d = os.path.join(chunk_root, f"p{p:05d}-a{att}-{uuid.uuid4().hex[:8]}")
            return part.write_chunks(spec, p, *ranges[p], [part.load_block(tpaths[p])], starts[p], d,
                                     last=p == last_p, stop=stop, fail=fail, attempt=att, seq_start=seq_starts[p],
                                     changes_jsonl=changes_jsonl, clock_state=clocks[p], group_after=afters[p])

        return write

    def _runs_maker(self, part, stop: int, hpaths: list[str], nt: int) -> Callable[[int], list[tuple[str, Any]]]:
        """The task making truth/final's sorted runs of history block ``q`` (spark_gen/final.py);
        shipped to the executors like :meth:`_chunk_writer`'s."""
        from spark_gen.final import sorted_runs

        spec, root, parquet = self.spec, str(self.staging / "final-runs"), self.parquet

        def runs(q: int) -> list[tuple[str, Any]]:
            return sorted_runs(spec, stop, [part.load_block(hpaths[q])],
                               os.path.join(root, f"p{q:05d}-a{_attempt()}-{uuid.uuid4().hex[:8]}"), nt, parquet)

        return runs

    def _pass2(self, part, stop: int, nt: int, last_p: int, hpaths: list[str], early_runs: bool, write, runs,
               finisher) -> list[tuple]:
        """Pass 2, one job with everything that needs only pass 1 (the long tasks first): the
        bytes of each range; the snapshot.sql pieces; truth/final's sorted runs of each history
        block when ``early_runs``, else the live rows per table after ``stop``. Returns the
        tasks' ``(kind, result)`` records."""
        def task(x: tuple) -> list[tuple]:
            if x[0] == "write":
                return [("write", write(x[1]))]
            if x[0] == "live":
                return [("live", part.live_counts([part.load_block(hpaths[x[1]])], stop, nt))]
            if x[0] == "runs":
                return runs(x[1])
            return [finisher(x)]  # a snapshot.sql piece

        items: list[tuple] = [("write", p) for p in range(last_p + 1)]
        items += [("runs" if early_runs else "live", q) for q in range(len(hpaths))]
        items += self._snapshot_pieces()
        return self.sc.parallelize(items, len(items)).flatMap(task).collect()

    def _check_ends(self, starts: list, results: list[dict[str, Any]], last_p: int) -> None:
        """Pass 1 and pass 2 must agree on where each partition ends."""
        from spark_gen.writer import file_name

        for p in range(last_p):
            want = (file_name(self.spec.basename, starts[p + 1].file_index), starts[p + 1].offset)
            if tuple(results[p]["end"]) != want:
                raise RuntimeError(f"spark_gen: partition {p} ended at {results[p]['end']}, the size pass "
                                   f"placed partition {p + 1} at {want}")

    def _gathered(self, results: list[dict[str, Any]]) -> tuple[dict, dict, dict, dict]:
        """The partitions' pass-2 results by binlog file, in partition order: each file's chunk
        paths and chunk scans, its ``FileInfo`` (transactions, first and last GTID), and the
        change counts per table and kind (the initial ones plus every partition's)."""
        files: dict[str, list[str]] = {}
        chunk_scans: dict[str, list] = {}
        info: dict[str, FileInfo] = {}
        counts = {k: dict(v) for k, v in self.run0.counts.items()}
        for r in results:
            for (name, path, _n), sc_ in zip(r["pieces"], r["scans"], strict=True):
                files.setdefault(name, []).append(path)
                chunk_scans.setdefault(name, []).append(sc_)
            for name, (tx, first, last) in r["file_info"].items():
                fi = info.setdefault(name, FileInfo())
                fi.transactions += tx
                fi.first_gtid = fi.first_gtid or first
                fi.last_gtid = last or fi.last_gtid
            for tname, kinds in r["counts"].items():
                for k, v in kinds.items():
                    counts[tname][k] += v
        return files, chunk_scans, info, counts

    def _finish_files(self, got: list[tuple], results: list[dict[str, Any]], tables: tuple,
                      files: dict[str, list[str]], chunk_scans: dict[str, list], live: list[int],
                      early_runs: bool, runs, finisher, blocks: Blocks) -> dict[str, Any]:
        """Stage 6, the files (spark_gen/finish.py), the long tasks first: each binlog file from
        its chunks, truth/changes per table and changes.jsonl, then truth/final per table from
        its sorted runs and snapshot.sql from its pieces — one job, or two when the runs are
        still to be made (wave 1: the runs beside the binlog files and truth/changes). Returns
        each binlog file's scan (by name)."""
        out, hpaths = str(self.out), blocks.hist
        truth_dir = self.out / "truth" / "final"
        truth_dir.mkdir(parents=True, exist_ok=True)
        snapshot = [r[1] for r in got if r[0] == "snapshot"]
        render = self.parquet or sum(live) <= self.jsonl_max_rows
        wave1 = [("commit", nm, files[nm], chunk_scans[nm], os.path.join(out, nm)) for nm in files]
        wave1 += self._changes_tasks(results, tables)
        wave2: list[tuple] = []
        if render and not early_runs:
            got = self.sc.parallelize(wave1, len(wave1)).map(finisher) \
                .union(self.sc.parallelize(range(len(hpaths)), len(hpaths)).flatMap(runs)).collect()
            wave1 = []
        if render:
            wave2 += self._final_tasks(got, tables, live, truth_dir)
        wave2.append(("concat", snapshot, str(self.out / "truth" / "snapshot.sql"), self.run0.snapshot_head(),
                      self.run0.snapshot_tail()))
        last_wave = wave1 + wave2
        # nothing reads the blocks any more: removed by the driver while the executors work
        # (the commit and truth/changes tasks remove their own chunks)
        import threading

        sweep = threading.Thread(target=shutil.rmtree, args=(blocks.root, True), daemon=True)
        sweep.start()
        got2 = self.sc.parallelize(last_wave, len(last_wave)).map(finisher).collect()
        sweep.join()
        return {r[1]: r[2] for r in [*got, *got2] if r[0] == "commit"}

    def _final_tasks(self, got: list[tuple], tables: tuple, live: list[int], truth_dir: Path) -> list[tuple]:
        """The truth/final tasks: each table's sorted runs (the ``run`` records of ``got``)
        merged into its JSONL (when every table's live rows are at most ``jsonl_max_rows``) and
        its typed Parquet (with ``parquet``)."""
        nt = len(self.run0.rows)
        per_table: list[list[str]] = [[] for _ in range(nt)]
        for r in got:
            if r[0] == "run":
                per_table[r[1][0]].append(r[1][1])
        from generators.changes_truth import table_file

        jdir = str(truth_dir) if sum(live) <= self.jsonl_max_rows else None
        pdir = None
        if self.parquet:
            (truth_dir / "parquet").mkdir(parents=True, exist_ok=True)
            pdir = str(truth_dir / "parquet")
        return [("final", t, per_table[t], os.path.join(jdir, table_file(tables[t], ".jsonl")) if jdir is not None else None,
                 os.path.join(pdir, table_file(tables[t])) if pdir is not None else None) for t in range(nt)]

    def _index_and_manifest(self, files: dict[str, list[str]], scans: dict[str, Any], info: dict[str, FileInfo],
                            counts: dict, last: dict[str, Any], stop: int, live: list[tuple]) -> dict[str, Any]:
        """Stage 7: ``binlog.index``, then ``manifest.json`` (each written atomically)."""
        spec, names = self.spec, list(files)
        entries = [file_entry(nm, scans[nm], info.get(nm, FileInfo())) for nm in names]
        manifest = build_manifest(spec, self.run0.fmt, entries, last["groups"], last["last_gtid"], stop, counts, live)
        _atomic_write(self.out / f"{spec.basename}.index", "".join(f"./{nm}\n" for nm in names))
        _atomic_write(self.out / "manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
        self.timer.mark("7 index, manifest")
        return manifest

    def _snapshot_pieces(self) -> list[tuple]:
        """The ``snapshot`` tasks of wave 1: snapshot.sql's INSERTs in pieces of
        :data:`SNAPSHOT_CHUNK` initial rows per table (none with ``--ddl-in-binlog``)."""
        spec, run = self.spec, self.run0
        pieces: list[tuple] = []
        sdir = self.staging / "snapshot"
        sdir.mkdir(parents=True, exist_ok=True)
        if not spec.ddl_in_binlog:
            for t, rt in enumerate(run.rows):
                if rt.tdef.initial_keys is None:
                    for lo in range(0, rt.tdef.initial_count, SNAPSHOT_CHUNK):
                        hi = min(lo + SNAPSHOT_CHUNK, rt.tdef.initial_count)
                        pieces.append(("snapshot", t, lo, hi, str(sdir / f"t{t:04d}-{lo:012d}.sql")))
                else:
                    pieces.append(("snapshot", t, None, None, str(sdir / f"t{t:04d}-all.sql")))
        return pieces

    def _changes_tasks(self, results: list[dict[str, Any]], tables: tuple) -> list[tuple]:
        """The truth/changes tasks of wave 2: each table's Parquet chunks of every partition,
        in partition order, merged into one file (generators/changes_truth.py ``merge_table``:
        the same bytes as the single-process engine's); changes.jsonl concatenated when every
        partition wrote its chunk and the run has at most JSONL_MAX_CHANGES changes."""
        from generators.changes_truth import JSONL_MAX_CHANGES, table_file

        cdir = self.out / "truth" / "changes"
        cdir.mkdir(parents=True, exist_ok=True)
        per_table: list[list[str]] = [[] for _ in tables]
        for r in results:
            for t, path in r["changes"]["chunks"]:
                per_table[t].append(path)
        tasks: list[tuple] = [("changes", t, per_table[t], str(cdir / table_file(tables[t])))
                              for t in range(len(tables))]
        from generators.schema_history import HISTORY_FILE, initial_definitions, write_history

        write_history(cdir.parent / HISTORY_FILE, initial_definitions(self.run0.rows),
                      [d for r in results for d in r["changes"]["definitions"]])
        total = sum(r["changes"]["count"] for r in results)
        jl = [r["changes"]["jsonl"] for r in results]
        if total <= JSONL_MAX_CHANGES and all(p is not None for p in jl):
            tasks.append(("concat_text", jl, str(cdir / "changes.jsonl")))
        return tasks


@dataclass(frozen=True)
class Blocks:
    """Where a round's blocks are (spark_gen/partition.py ``save_block``): the history block
    of each key bucket and the merged transaction block of each range, under ``root``."""

    root: str
    hist: list[str]
    txn: list[str]


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


if __name__ == "__main__":  # the command line lives in spark_gen/__main__.py (this module never imports the CLI)
    import runpy

    runpy.run_module("spark_gen", run_name="__main__", alter_sys=True)
