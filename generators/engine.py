"""The single-process generation run: spec -> plans -> rows -> writer -> docs/output.md layout.

:func:`generate` writes everything into a temporary directory beside ``out`` and renames
it to ``out`` at the very end (``manifest.json`` is written last inside it); on any error
the temporary directory is removed, so either a complete run exists under ``out`` or
nothing does. Memory is bounded by the key space (13 bytes per key of every table) and a
fixed-size row cache, not by the output size; ``truth/final`` is written in blocks, in key
order when the first column orders the rows, else sorted by external merge
(generators/final_columns.py). The phases (the
transactions, the merge of ``truth/changes``, ``truth/final`` table by table) follow one
another with the freed memory given back between them (generators/memory.py), so the peak
resident set is the largest phase's, not their sum.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from binlogwriter.batch.columnar import columnar_supported
from binlogwriter.format import BinlogFormat
from binlogwriter.sinks import FileSink
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import STAGE_BYTES, BinlogWriter
from generators.group_commit import group_commit_clock
from generators.keys import KeyCursor
from generators.manifest import (
    FileInfo,
    build_manifest,
    file_entry,
    file_sha256,
    known_digest,
    scan_binlog_file,
    scan_file,
)
from generators.memory import release_memory
from generators.outdir import lock_dir, sweep_stale_tmp, tmp_prefix
from generators.replica.hook import write_replica_if_asked
from generators.rows import TableRows
from generators.run_batched import BatchedMixin
from generators.run_ddl import DdlMixin
from generators.run_snapshot import INITIAL_ROWS_PER_TXN, SNAPSHOT_ROWS_PER_INSERT, SnapshotMixin
from generators.run_txn import TransactionsMixin
from generators.spec import Spec, SpecError, resolve
from generators.workloads import WorkloadDef, load_workload
from generators.writeset import writeset_clock

if TYPE_CHECKING:
    from generators.changes_truth import ChangesRecorder

__all__ = ["generate", "Run", "RunResult", "FileInfo", "build_manifest", "file_entry", "lock_dir", "scan_file",
           "sweep_stale_tmp", "tmp_prefix", "INITIAL_ROWS_PER_TXN", "SNAPSHOT_ROWS_PER_INSERT"]

FINAL_THREADS = 2
"""Tables whose ``truth/final`` is written at once (``Run.write_final``): Parquet encoding,
compression and file I/O run without the GIL, so a second table's Python work fills the
time the first spends there."""


def _final_cost(rt: TableRows) -> int:
    """The order :meth:`Run.write_final` starts tables in: most values first (live rows ×
    columns), so the last table to finish is a small one."""
    return -int(rt.live_count) * len(rt.table.columns)


def _split_target(target: str, names: Any) -> tuple[str, str]:
    """``table.column`` of a spec's ``columns`` entry, cut at the dot after which the rest names
    a column of the table before it (a table or column name may hold dots: ``a.b.c`` is table
    ``a.b``'s column ``c`` when that is the one reading); a SpecError when two readings name
    columns; at the first dot when none does (the caller says what is missing)."""
    cuts = [i for i, ch in enumerate(target) if ch == "."]
    found = []
    for i in cuts:
        td = names.get(target[:i])
        if td is not None and any(c.name.lower() == target[i + 1:].lower() for c in td.table.columns):
            found.append((target[:i], target[i + 1:]))
    if len(found) > 1:
        raise SpecError(f"spec columns.{target}: names both " + " and ".join(f"{t}'s column {c}" for t, c in found))
    if found:
        return found[0]
    return (target[:cuts[0]], target[cuts[0] + 1:]) if cuts else (target, "")


@dataclass
class RunResult:
    out: Path
    manifest: dict[str, Any]


@dataclass
class Run(TransactionsMixin, DdlMixin, SnapshotMixin, BatchedMixin):
    """One generation run (use :func:`generate`). Its methods are grouped by concept:
    the per-transaction path (generators/run_txn.py), the snapshot (generators/run_snapshot.py)
    and the batch path (generators/run_batched.py); here the set-up, the loop and the end.

    Size: a little over 150 lines of set-up, loop and end; nothing left here is a concept of
    its own.
    """

    spec: Spec
    out: Path
    progress: Callable[[int, int], None] | None = None
    work: WorkloadDef = field(init=False)
    rows: list[TableRows] = field(init=False)

    def __post_init__(self) -> None:
        self.spec = resolve(self.spec)
        self.work = load_workload(self.spec)
        overrides: dict[str, dict[str, Any]] = {}
        names = {td.name: td for td in self.work.tables}
        for cg in self.spec.columns:
            tname, cname = _split_target(cg.target, names)
            td = names.get(tname)
            if td is None:
                raise SpecError(f"spec columns.{cg.target}: no table {tname!r} in the workload ({', '.join(names)})")
            try:
                col = td.table.column(cname)
            except Exception:  # noqa: BLE001 - SchemaError: unknown column
                raise SpecError(f"spec columns.{cg.target}: table {tname!r} has no column {cname!r}") from None
            if any(col.name == td.table.columns[i].name for i, _ in td.table.effective_primary_key()):
                raise SpecError(f"spec columns.{cg.target}: key columns are derived from the row key")
            if col.name in td.checked:
                raise SpecError(f"spec columns.{cg.target}: a CHECK constraint of table {tname} restricts this "
                                "column; its values follow the constraint (generators/checks.py)")
            overrides.setdefault(tname, {})[col.name] = cg
        self.rows = [TableRows(td, self.spec, overrides.get(td.name, {})) for td in self.work.tables]
        self.fmt = BinlogFormat.preset(self.spec.flavor, checksum=self.spec.checksum)
        self.infos = [rt.info() for rt in self.rows]
        self.cursor = KeyCursor.start(self.infos)
        self.wsclock = writeset_clock(self.spec, self.work.tables) or group_commit_clock(self.spec, self.work.tables)
        """MySQL WRITESET dependency tracking (generators/writeset.py) or MariaDB group commits
        (``--parallel-groups``, generators/group_commit.py); None: commit order."""
        self.ddl_epoch = 0
        self.counts: dict[str, dict[str, int]] = {
            f"{r.table.database}.{r.table.name}": {"insert": 0, "update": 0, "delete": 0} for r in self.rows}
        self.file_info: dict[str, FileInfo] = {}
        self.changes: ChangesRecorder | None = None  # while truth/changes is recorded
        self.spans: dict[str, list[tuple[int, int, int, int]]] = {}
        """Per binlog file, the runs of events the batch path wrote: (first offset, end offset,
        events, offset of the last event) from the plan's arithmetic; :func:`_scan_file` steps
        over them instead of walking their headers."""

    # -- writer ---------------------------------------------------------------------------
    def session_settings(self) -> SessionSettings:
        """The writer's session settings for this run (spark_gen and ``serve --generate`` use it too)."""
        s = self.spec
        mariadb = s.flavor.startswith("mariadb")
        return SessionSettings(row_metadata=s.row_metadata, row_image=s.row_image, rows_query=s.rows_query,
                               gtid="anonymous" if mariadb else (s.gtid or "anonymous"),
                               domain_id=int(s.gtid) if mariadb and s.gtid else 0,
                               row_event_max_size=s.row_event_max_size,
                               transaction_compression=s.transaction_compression,
                               group_commit_ids=mariadb and (s.parallel_groups or 0) >= 2)

    def initial_keys(self, rt: TableRows):
        """The initial keys of a table (public: spark_gen uses it)."""
        return self._initial_keys(rt)

    def initial_in_binlog(self, writer: BinlogWriter) -> None:
        """--ddl-in-binlog: CREATE DATABASE/TABLE and the initial rows into ``writer``."""
        self._initial_in_binlog(writer)

    def open_binlog(self, writer: BinlogWriter) -> None:
        """Open ``writer`` and write what comes before the run's transactions: with
        ``--ddl-in-binlog`` the CREATE DATABASE/TABLE and the initial rows, after which the
        dependency clock (WRITESET / MariaDB group commits) starts its history at the last of
        those groups (``after_prologue``: the first transactions' ``last_committed`` /
        commit ids follow them). One method for ``generate`` and ``serve --generate``
        (generators/serve.py) so both write the same bytes."""
        writer.open()
        if self.spec.ddl_in_binlog:
            self._initial_in_binlog(writer)
        if self.wsclock is not None:
            self.wsclock.after_prologue(writer.transactions)

    # -- the run -----------------------------------------------------------------------------
    def run(self, tmp: Path) -> dict[str, Any]:
        s = self.spec
        (tmp / "truth" / "final").mkdir(parents=True)
        sink = FileSink(tmp, digest=True)  # each binlog's sha256 computed while it is written
        writer = BinlogWriter(tmp, self.fmt, basename=s.basename, server_id=s.server_id,
                              max_binlog_size=s.max_binlog_size, start_time=s.start_time,
                              settings=self.session_settings(), stage_bytes=STAGE_BYTES, sink=sink)
        from generators.changes_truth import ChangesRecorder, close_local, merge_local, needs_merge

        self.changes = ChangesRecorder(self, tmp / ".changes-chunks", aligned=True)
        try:
            for rt in self.rows:
                rt.load_initial(self._initial_keys(rt))
            self.write_snapshot(tmp / "truth" / "snapshot.sql", writer)
            self.open_binlog(writer)
            self._loop(writer)
            writer.close()
            release_memory()
        except BaseException:
            writer.abort()
            self.changes.abort()
            raise
        from concurrent.futures import ThreadPoolExecutor

        # the binlogs' sha256: from the sink, else in a thread (hashlib and file reads run without the GIL)
        # while the truth is finished
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="binlog-sha256")
        merging = ThreadPoolExecutor(max_workers=1, thread_name_prefix="truth-changes-merge")
        try:
            digests = {p.name: known_digest(sink.digests[p.name]) if p.name in sink.digests
                       else pool.submit(file_sha256, p) for p in writer.files}
            # the change batches the recorder still holds are written and freed first; then
            # truth/changes is finished in a thread while truth/final is written here (two
            # sets of files, from the tables' definitions and the rows' state, which neither
            # changes; Parquet encoding and file I/O run without the GIL) — unless a table's
            # chunks need a merge: it holds a row group of changes, the final state a row
            # group of rows, and together they would pass the run's memory bound
            closed = close_local(self)
            if needs_merge(closed):
                merge_local(self, tmp, closed)
                self.write_final(tmp / "truth" / "final")
            else:
                merged = merging.submit(merge_local, self, tmp, closed)
                self.write_final(tmp / "truth" / "final")
                merged.result()
            manifest = self.manifest(writer, digests)
        finally:
            merging.shutdown(wait=True, cancel_futures=True)
            pool.shutdown(wait=True, cancel_futures=True)
        data = json.dumps(manifest, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
        (tmp / "manifest.json").write_text(data, encoding="utf-8")
        return manifest

    def _bytes(self, writer: BinlogWriter, closed: list[int]) -> int:
        while len(closed) < len(writer.files):
            closed.append(writer.files[len(closed)].stat().st_size)
        return sum(closed) + writer.position

    def _loop(self, writer: BinlogWriter) -> None:
        """The transactions: one engine, the batch path (generators/run_batched.py), for
        every workload and option (compression, anonymous / numbered / tagged GTIDs, every
        flavor, image and metadata mode: ``columnar_supported`` holds for every writer a
        spec makes). The per-transaction loop (generators/run_txn.py) is the reference the
        property tests compare with, reached only through the test seam
        :data:`PER_TRANSACTION_REFERENCE`."""
        if PER_TRANSACTION_REFERENCE:
            return self._loop_per_transaction(writer)
        if not columnar_supported(writer):  # a preset format always is (tests/batch/test_columnar_flavors.py)
            raise RuntimeError(f"the batch planner does not lay out {writer.fmt.flavor} as configured")
        return self._loop_batched(writer)

    def write_final(self, final_dir: Path) -> None:
        """``truth/final/<db>.<table>.jsonl`` and, from the same rows,
        ``truth/final/parquet/<db>.<table>.parquet`` (docs/output.md), table by table in
        bounded pieces (generators/final_columns.py ``write_final_table``: in key order
        straight from the typed arrays when the first column orders the rows, else through
        the external sort of generators/final_sort.py)."""
        from concurrent.futures import ThreadPoolExecutor

        from generators.final_columns import write_final_table

        (final_dir / "parquet").mkdir(parents=True, exist_ok=True)

        def one(rt: Any) -> None:
            write_final_table(rt, self.spec.flavor, final_dir)
            release_memory()

        with ThreadPoolExecutor(max_workers=FINAL_THREADS, thread_name_prefix="truth-final") as ex:
            for f in [ex.submit(one, rt) for rt in sorted(self.rows, key=_final_cost)]:
                f.result()

    def manifest(self, writer: BinlogWriter, digests: dict[str, Any] | None = None) -> dict[str, Any]:
        """``manifest.json``; ``digests``: file name -> future of its sha256 (else read here)."""
        files = []
        for p in writer.files:
            sha = digests[p.name].result() if digests and p.name in digests else None
            info = scan_binlog_file(p, self.fmt, self.spans.get(p.name), sha)
            fi = self.file_info.get(p.name, FileInfo())
            files.append(file_entry(p.name, info, fi))
        tables = [(rt.table, int(rt.live_count)) for rt in self.rows]
        return build_manifest(self.spec, self.fmt, files, writer.transactions, writer.last_gtid,
                              self.planned, self.counts, tables)


PER_TRANSACTION_REFERENCE = False
"""Test seam (tests only: ``monkeypatch.setattr(generators.engine, "PER_TRANSACTION_REFERENCE",
True)``): runs write through the per-transaction reference loop
(:meth:`~generators.run_txn.TransactionsMixin._loop_per_transaction`) instead of the batch
engine, for the tests that compare the two (tests/batch/test_generate_paths.py). Not a setting."""


def generate(spec: Spec, out: str | os.PathLike, *,
             progress: Callable[[int, int], None] | None = None) -> RunResult:
    """Run ``spec`` into directory ``out`` (must not exist, or be empty). Atomic: on error
    nothing is left behind.

    Crash safety (docs/generate.md): the run is written into ``.OUT.tmp-XXXX`` beside
    ``out``, locked (``flock``) while the run lives, and renamed to ``out`` once
    ``manifest.json`` is in it, so a run killed at any moment leaves nothing at ``out``;
    the next run into ``out`` removes the temporary directories of killed runs first."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SpecError(f"--out: {out} already exists and is not an empty directory")
    run = Run(spec, out, progress)  # validation and schema errors before anything is created
    parent = out.absolute().parent
    if not parent.is_dir():
        raise SpecError(f"--out: parent directory {parent} does not exist")
    sweep_stale_tmp(out)
    tmp = Path(tempfile.mkdtemp(prefix=tmp_prefix(out), dir=parent))
    lock = None
    try:
        lock = lock_dir(tmp)
        manifest = run.run(tmp)
        write_replica_if_asked(spec, tmp)  # truth/replica/ (docs/replica.md)
        os.chmod(tmp, 0o755)
        if out.exists():
            out.rmdir()
        os.rename(tmp, out)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if e.filename is not None:
            raise
        # a write without a file name (a text file's flush on a full disk): name the run
        from binlogwriter.errors import OutputError

        raise OutputError(f"cannot write the run into {tmp} (for {out}): {e.strerror or e}",
                          file=str(tmp)) from None
    except BaseException:  # any error, SIGTERM/SIGINT (generators/cli.py): nothing is left
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        if lock is not None and lock >= 0:
            os.close(lock)
    return RunResult(out, manifest)
