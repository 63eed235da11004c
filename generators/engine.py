"""The single-process generation run: spec -> plans -> rows -> writer -> docs/output.md layout.

:func:`generate` writes everything into a temporary directory beside ``out`` and renames
it to ``out`` at the very end (``manifest.json`` is written last inside it); on any error
the temporary directory is removed, so either a complete run exists under ``out`` or
nothing does. Memory is bounded by the key space (13 bytes per key of every table) and a
fixed-size row cache, not by the output size; ``truth/final`` is sorted by external merge.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from binlogwriter import __version__
from binlogwriter.batch.columnar import columnar_supported
from binlogwriter.format import BinlogFormat
from binlogwriter.schema import Table
from binlogwriter.transaction import SessionSettings
from binlogwriter.writer import STAGE_BYTES, BinlogWriter
from generators.batch import BATCH_TXNS, apply_batch, rows_batch
from generators.columns import sql_literal
from generators.hashing import hash64, salt
from generators.keys import Applied, KeyCursor, epoch_at, resolve_ops, step
from generators.plan import TxnPlan, ddl_after, plan_transaction
from generators.pools import faker_version
from generators.rows import DDL_TYPES, TableRows
from generators.spec import Spec, SpecError, resolve
from generators.statement_text import statement_sql
from generators.truth import canonical_renderer, write_sorted_jsonl
from generators.workloads import WorkloadDef, load_workload

__all__ = ["generate", "Run", "RunResult", "FileInfo", "build_manifest", "file_entry", "lock_dir", "scan_file",
           "sweep_stale_tmp", "tmp_prefix"]

INITIAL_ROWS_PER_TXN = 100  # --ddl-in-binlog: initial rows per INSERT transaction
SNAPSHOT_ROWS_PER_INSERT = 100


@dataclass
class RunResult:
    out: Path
    manifest: dict[str, Any]


def _qi(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


@dataclass
class FileInfo:
    """Per binlog file: transactions, first and last GTID (a ``manifest.json`` files entry)."""

    transactions: int = 0
    first_gtid: str | None = None
    last_gtid: str | None = None


@dataclass
class Run:
    """One generation run (use :func:`generate`)."""

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
            tname, cname = cg.target.split(".", 1)
            td = names.get(tname)
            if td is None:
                raise SpecError(f"spec columns.{cg.target}: no table {tname!r} in the workload ({', '.join(names)})")
            try:
                col = td.table.column(cname)
            except Exception:  # noqa: BLE001 - SchemaError: unknown column
                raise SpecError(f"spec columns.{cg.target}: table {tname!r} has no column {cname!r}") from None
            if any(col.name == td.table.columns[i].name for i, _ in td.table.effective_primary_key()):
                raise SpecError(f"spec columns.{cg.target}: key columns are derived from the row key")
            overrides.setdefault(tname, {})[col.name] = cg
        self.rows = [TableRows(td, self.spec, overrides.get(td.name, {})) for td in self.work.tables]
        self.fmt = BinlogFormat.preset(self.spec.flavor, checksum=self.spec.checksum)
        self.infos = [rt.info() for rt in self.rows]
        self.cursor = KeyCursor.start(self.infos)
        self.ddl_epoch = 0
        self.counts: dict[str, dict[str, int]] = {
            f"{r.table.database}.{r.table.name}": {"insert": 0, "update": 0, "delete": 0} for r in self.rows}
        self.file_info: dict[str, FileInfo] = {}
        self.batched = os.environ.get("BINLOGWRITER_GENERATE_PATH", "batch") != "per-transaction"
        self.changes: Any = None  # a generators.changes_truth.ChangesRecorder while truth/changes is recorded
        self.spans: dict[str, list[tuple[int, int, int, int]]] = {}
        """Per binlog file, the runs of events the batch path wrote: (first offset, end offset,
        events, offset of the last event) from the plan's arithmetic; :func:`_scan_file` steps
        over them instead of walking their headers."""

    # -- writer ---------------------------------------------------------------------------
    def _settings(self) -> SessionSettings:
        s = self.spec
        mariadb = s.flavor.startswith("mariadb")
        return SessionSettings(row_metadata=s.row_metadata, row_image=s.row_image, rows_query=s.rows_query,
                               gtid="anonymous" if mariadb else (s.gtid or "anonymous"),
                               domain_id=int(s.gtid) if mariadb and s.gtid else 0,
                               row_event_max_size=s.row_event_max_size,
                               transaction_compression=s.transaction_compression)

    def session_settings(self) -> SessionSettings:
        """The writer's session settings for this run (public: spark_gen uses it)."""
        return self._settings()

    def initial_keys(self, rt: TableRows):
        """The initial keys of a table (public: spark_gen uses it)."""
        return self._initial_keys(rt)

    def initial_in_binlog(self, writer: BinlogWriter) -> None:
        """--ddl-in-binlog: CREATE DATABASE/TABLE and the initial rows into ``writer``."""
        self._initial_in_binlog(writer)

    def _track(self, writer: BinlogWriter, fname: str, before: int) -> None:
        if writer.transactions == before:
            return
        fi = self.file_info.setdefault(fname, FileInfo())
        fi.transactions += writer.transactions - before
        if writer.last_gtid is not None:
            if fi.first_gtid is None:
                fi.first_gtid = writer.last_gtid
            fi.last_gtid = writer.last_gtid

    def _ddl(self, writer: BinlogWriter, sql: str, db: str) -> None:
        writer.open()
        fname, before = writer.current_file, writer.transactions
        writer.ddl(sql, db)
        self._track(writer, fname, before)

    # -- rows-query text ---------------------------------------------------------------------
    def _statement_sql(self, rt: TableRows, kind: str, rows: list) -> str:
        """The statement as a server logs it in Rows_query / Annotate_rows, with its values
        (generators/statement_text.py); only called when rows_query is on."""
        return statement_sql(rt.table, kind, rows, self.spec.flavor)

    # -- one transaction ----------------------------------------------------------------------
    def _apply(self, plan: TxnPlan) -> list[Applied]:
        """Resolve the plan's keys (generators/keys.py) and apply them to the key state."""
        applied: list[Applied] = []
        for op in resolve_ops(self.spec, self.infos, self.cursor, plan):
            rt = self.rows[op.table]
            res = step(rt.state(op.key), op.kind, op.epoch)
            if res is None:
                continue
            st, vb, va = res
            rt.set_state(op.key, st)
            applied.append(Applied(op.seq, op.kind, op.table, op.key, vb, va, st[2]))
        return applied

    def statements(self, applied: list[Applied]) -> list[tuple[int, str, list]]:
        """Applied ops (in seq order) -> statements: consecutive ops of one table and kind
        form one statement; rows are pure functions of (key, version, born)."""
        stmts: list[tuple[int, str, list]] = []
        for a in applied:
            row = self.rows[a.table].change(a.kind, a.key, a.ver_before, a.ver_after, a.born)
            if stmts and stmts[-1][0] == a.table and stmts[-1][1] == a.kind:
                stmts[-1][2].append(row)
            else:
                stmts.append((a.table, a.kind, [row]))
        return stmts

    def transaction(self, writer: BinlogWriter, plan: TxnPlan, applied: list[Applied]) -> None:
        """Write transaction ``plan.index`` (clock, its rows, the DDL that follows it)."""
        if plan.advance:
            writer.advance(plan.advance)
        self._write_stmts(writer, self.statements(applied))
        d = ddl_after(self.spec, plan.index)
        if d is not None:
            self.do_ddl(writer, d)

    def set_ddl_state(self, i: int) -> None:
        """Put the tables in the DDL state in force at transaction ``i`` (a fresh Run only):
        DDL ``d`` odd adds ``ddl_P`` (P = (d+1)//2), the next one drops it again."""
        d = epoch_at(self.spec, i)
        self.ddl_epoch = d
        if d % 2 == 1:
            p = (d + 1) // 2
            rt = self.rows[hash64(salt(self.spec.seed, "ddl"), p) % len(self.rows)]
            rt.add_column(f"ddl_{p}", DDL_TYPES[p % len(DDL_TYPES)], d)

    def _write_stmts(self, writer: BinlogWriter, stmts: list[tuple[int, str, list]]) -> None:
        if not stmts:
            return
        writer.open()
        fname, before = writer.current_file, writer.transactions
        with writer.transaction() as tx:
            for tidx, kind, rows in stmts:
                rt = self.rows[tidx]
                sql = self._statement_sql(rt, kind, rows) if self.spec.rows_query else None
                getattr(tx, kind)(rt.table, rows, sql=sql)
                self.counts[f"{rt.table.database}.{rt.table.name}"][kind] += len(rows)
        self._track(writer, fname, before)
        self._record_changes(writer, stmts, tx, before)

    def _record_changes(self, writer: BinlogWriter, stmts: list[tuple[int, str, list]], tx, before: int) -> None:
        """truth/changes hook: once per committed transaction, right after its commit
        (generators/changes_truth.py reads the writer's ``last_group`` and ``tx``)."""
        if self.changes is not None and writer.transactions != before:
            self.changes.record(writer, stmts, tx)

    def do_ddl(self, writer: BinlogWriter, d: int) -> None:
        """DDL number d: odd adds column ddl_P to a table chosen by hash, even drops it."""
        p = (d + 1) // 2
        rt = self.rows[hash64(salt(self.spec.seed, "ddl"), p) % len(self.rows)]
        name = f"ddl_{p}"
        t = rt.table
        if d % 2 == 1:
            typedef = DDL_TYPES[p % len(DDL_TYPES)]
            sql = f"ALTER TABLE {_qi(t.name)} ADD COLUMN {_qi(name)} {typedef}"
            self.ddl_epoch = d
            rt.add_column(name, typedef, d)
        else:
            sql = f"ALTER TABLE {_qi(t.name)} DROP COLUMN {_qi(name)}"
            self.ddl_epoch = d
            rt.drop_column(name)
        self._ddl(writer, sql, t.database)

    # -- snapshot ------------------------------------------------------------------------------
    def _databases(self) -> list[str]:
        dbs = [self.spec.database]
        for r in self.rows:
            if r.table.database not in dbs:
                dbs.append(r.table.database)
        return dbs

    def _initial_keys(self, rt: TableRows):
        td = rt.tdef
        return td.initial_keys() if td.initial_keys is not None else range(td.initial_count)

    def _insert_sql(self, t: Table, rows: list[tuple]) -> str:
        cols = ", ".join(_qi(c.name) for c in t.columns)
        fl = self.spec.flavor
        vals = ",\n".join("(" + ", ".join(sql_literal(c, v, fl) for c, v in zip(t.columns, r, strict=True)) + ")"
                          for r in rows)
        return f"INSERT INTO {_qi(t.database)}.{_qi(t.name)} ({cols}) VALUES\n{vals};\n"

    def snapshot_head(self) -> str:
        """``snapshot.sql`` up to the initial rows (comments, session settings, CREATEs)."""
        s = self.spec
        out = [
            "-- binlogwriter generate: the state before the first event of the first binlog (docs/output.md).\n",
            f"-- workload {self.work.name}, flavor {s.flavor}, seed {s.seed}\n",
        ]
        if s.ddl_in_binlog:
            out.append("-- --ddl-in-binlog: CREATE DATABASE, CREATE TABLE and the initial rows are in the binlog.\n")
            return "".join(out)
        out.append("SET NAMES utf8mb4;\nSET SESSION time_zone = '+00:00';\n"
                   "SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO';\nSET SESSION foreign_key_checks = 0;\n")
        for db in self._databases():
            out.append(f"CREATE DATABASE IF NOT EXISTS {_qi(db)};\n")
        for rt in self.rows:
            create = rt.tdef.create_sql.strip().rstrip(";")
            out.append(f"USE {_qi(rt.table.database)};\n{create};\n")
        return "".join(out)

    def snapshot_tail(self) -> str:
        return "" if self.spec.ddl_in_binlog else "SET SESSION foreign_key_checks = 1;\n"

    def snapshot_inserts(self, rt: TableRows, keys) -> Iterator[str]:
        """INSERT statements of ``keys`` (initial rows), SNAPSHOT_ROWS_PER_INSERT per statement."""
        batch: list[tuple] = []
        for k in keys:
            batch.append(rt.compute(k, 0, 0))
            if len(batch) >= SNAPSHOT_ROWS_PER_INSERT:
                yield self._insert_sql(rt.table, batch)
                batch = []
        if batch:
            yield self._insert_sql(rt.table, batch)

    def write_snapshot(self, path: Path, writer: BinlogWriter | None = None) -> None:
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(self.snapshot_head())
            if not self.spec.ddl_in_binlog:
                for rt in self.rows:
                    for text in self.snapshot_inserts(rt, self._initial_keys(rt)):
                        f.write(text)
            f.write(self.snapshot_tail())

    def _initial_in_binlog(self, writer: BinlogWriter) -> None:
        for db in self._databases():
            self._ddl(writer, f"CREATE DATABASE IF NOT EXISTS {_qi(db)}", db)
        for rt in self.rows:
            self._ddl(writer, rt.tdef.create_sql.strip().rstrip(";"), rt.table.database)
        for tidx, rt in enumerate(self.rows):
            batch: list[tuple] = []
            for k in self._initial_keys(rt):
                batch.append(rt.compute(k, 0, 0))
                if len(batch) >= INITIAL_ROWS_PER_TXN:
                    self._write_stmts(writer, [(tidx, "insert", batch)])
                    batch = []
            if batch:
                self._write_stmts(writer, [(tidx, "insert", batch)])

    # -- the run -----------------------------------------------------------------------------
    def run(self, tmp: Path) -> dict[str, Any]:
        s = self.spec
        (tmp / "truth" / "final").mkdir(parents=True)
        writer = BinlogWriter(tmp, self.fmt, basename=s.basename, server_id=s.server_id,
                              max_binlog_size=s.max_binlog_size, start_time=s.start_time,
                              settings=self._settings(), stage_bytes=STAGE_BYTES)
        from generators.changes_truth import ChangesRecorder, finish_local

        self.changes = ChangesRecorder(self, tmp / ".changes-chunks", aligned=True)
        try:
            for rt in self.rows:
                rt.load_initial(self._initial_keys(rt))
            self.write_snapshot(tmp / "truth" / "snapshot.sql", writer)
            writer.open()
            if s.ddl_in_binlog:
                self._initial_in_binlog(writer)
            self._loop(writer)
            writer.close()
        except BaseException:
            writer.abort()
            self.changes.abort()
            raise
        from concurrent.futures import ThreadPoolExecutor

        # the binlogs' sha256 in a thread (hashlib and file reads run without the GIL) while the truth is finished
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="binlog-sha256")
        try:
            digests = {p.name: pool.submit(_sha256, p) for p in writer.files}
            self.write_final(tmp / "truth" / "final")
            finish_local(self, tmp)
            manifest = self.manifest(writer, digests)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        data = json.dumps(manifest, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
        (tmp / "manifest.json").write_text(data, encoding="utf-8")
        return manifest

    def _bytes(self, writer: BinlogWriter, closed: list[int]) -> int:
        while len(closed) < len(writer.files):
            closed.append(writer.files[len(closed)].stat().st_size)
        return sum(closed) + writer.position

    def _loop(self, writer: BinlogWriter) -> None:
        if self.batched and columnar_supported(writer):
            return self._loop_batched(writer)
        s = self.spec
        n = len(self.rows)
        total = s.transactions
        closed: list[int] = []
        i = 0
        last_report = 0
        while True:
            if total is not None and i >= total:
                break
            if s.size is not None and self._bytes(writer, closed) >= s.size:
                break
            plan = plan_transaction(s, n, i)
            self.transaction(writer, plan, self._apply(plan))
            i += 1
            if self.progress is not None and (i - last_report >= 256):
                last_report = i
                self.progress(i, self._bytes(writer, closed))
        self.planned = i
        if self.progress is not None:
            self.progress(i, self._bytes(writer, closed))

    def _loop_batched(self, writer: BinlogWriter) -> None:
        """:meth:`_loop` a batch of transactions at a time (generators/batch.py): plans and
        key states applied per batch, rows made and encoded column by column, the groups
        planned by arithmetic (binlogwriter/batch/columnar.py); the ``--size`` limit cuts
        the batch where the per-transaction loop would stop, and the key state of the
        transactions after the cut is rolled back. Same bytes and truth as the
        per-transaction loop (tests/batch/test_generate_paths.py)."""
        s = self.spec
        total = s.transactions
        closed: list[int] = []
        i = 0
        while True:
            if total is not None and i >= total:
                break
            if s.size is not None and self._bytes(writer, closed) >= s.size:
                break
            hi = i + BATCH_TXNS
            if s.size is not None and i:  # near the end: about what is left, not a whole batch
                per = max(1.0, self._bytes(writer, closed) / i)
                hi = min(hi, i + int((s.size - self._bytes(writer, closed)) / per * 1.1) + 16)
            if total is not None:
                hi = min(hi, total)
            if s.ddl_every:
                e = s.ddl_every
                hi = min(hi, i + (e - 1 - i % e) + 1)
            done = self._batch(writer, i, hi, closed)
            lo, i = i, i + done
            if done < hi - lo:
                break
            d = ddl_after(s, i - 1)
            if d is not None:
                self.do_ddl(writer, d)
            if self.progress is not None:
                self.progress(i, self._bytes(writer, closed))
        self.planned = i
        if self.progress is not None:
            self.progress(i, self._bytes(writer, closed))

    def _batch(self, writer: BinlogWriter, lo: int, hi: int, closed: list[int]) -> int:
        """Transactions ``lo..hi-1`` as one batch; returns how many were written."""
        s = self.spec
        ab = apply_batch(self, lo, hi)
        rb = rows_batch(self, ab, writer.now)
        plan = writer.plan_rows(rb)
        cut_at = None
        if s.size is not None:
            def cut_at(i: int) -> int:  # transactions that still fit under --size, from i on
                before = self._bytes(writer, closed) + np.concatenate(([0], np.cumsum(plan.sizes[i:])))[:-1]
                return i + int(np.searchsorted(before, s.size, side="left"))
        i, placed = self.write_segments(writer, plan, ab, hi - lo, cut_at)
        ab.keep(self, i)
        self.record_written(ab, rb, plan, placed, i)
        return i

    def record_written(self, ab: Any, rb: Any, plan: Any, placed: list[list[Any]], n: int) -> None:
        """The first ``n`` transactions of a batch are written (``placed`` by
        :meth:`write_segments`): their truth/changes and change counts."""
        if self.changes is not None and n:
            self.changes.record_batch(ab, rb, plan, placed, n)
        for tidx, kind, cnt in ab.counts(n):
            t = self.rows[tidx].table
            self.counts[f"{t.database}.{t.name}"][kind] += cnt

    def write_segments(self, writer: BinlogWriter, plan: Any, ab: Any, n: int,
                       cut_at: Callable[[int], int] | None = None) -> tuple[int, list[list[Any]]]:
        """Write the first transactions of a batch planned by ``writer.plan_rows`` (at most
        ``n``; ``cut_at(i)``: where a ``--size`` cut falls from transaction ``i`` on) segment by
        segment, each segment ending where the writer rotates (``searchsorted`` over the prefix
        sums of the group sizes: ``BinlogWriter.maybe_rotate``'s rule). Keeps the GTID
        bookkeeping per file and the spans the manifest scan skips. Returns how many were
        written and the segments ``[file, first txn, end txn, offset, first GTID]``; the
        writer's clock ends at the last written transaction's."""
        sizes = plan.sizes
        now0 = writer.now
        clock = np.cumsum(ab.advance)
        i = 0
        placed: list[list[Any]] = []
        while i < n:
            cut = n if cut_at is None else min(n, cut_at(i))
            if cut <= i:
                break
            ends = np.cumsum(sizes[i:cut]) + writer.position
            stop = min(cut, i + int(np.searchsorted(ends, writer.max_binlog_size, side="left")) + 1)
            writer.now = now0 + int(clock[stop - 1])  # a rotation after the segment uses its clock
            writer.open()
            seg: list[Any] = [writer.current_file, i, stop, writer.position, None]
            placed.append(seg)
            for fname, groups, first, last in writer.write_planned(plan, i, stop):
                if fname != seg[0]:
                    raise RuntimeError(f"batch segment {i}..{stop} crossed a rotation ({seg[0]} -> {fname})")
                seg[4] = first
                fi = self.file_info.setdefault(fname, FileInfo())
                fi.transactions += groups
                if first is not None:
                    if fi.first_gtid is None:
                        fi.first_gtid = first
                    fi.last_gtid = last
            a, b = int(plan.txn_first[seg[1]]), int(plan.txn_first[stop])
            if b > a:
                end = seg[3] + int(plan.ev_len[a:b].sum())
                self.spans.setdefault(seg[0], []).append((seg[3], end, b - a, end - int(plan.ev_len[b - 1])))
            i = stop
            if i >= cut:
                break
        writer.now = now0 + (int(clock[i - 1]) if i else 0)
        return i, placed

    def write_final(self, final_dir: Path) -> None:
        fl = self.spec.flavor
        for rt in self.rows:
            t = rt.table
            render = canonical_renderer(t, fl)
            names = [c.name for c in t.columns]
            rows = (render(rt.row(k)) for k in rt.live_keys())
            write_sorted_jsonl(final_dir / f"{t.database}.{t.name}.jsonl", names, rows)

    def manifest(self, writer: BinlogWriter, digests: dict[str, Any] | None = None) -> dict[str, Any]:
        """``manifest.json``; ``digests``: file name -> future of its sha256 (else read here)."""
        files = []
        for p in writer.files:
            sha = digests[p.name].result() if digests and p.name in digests else None
            info = _scan_file(p, self.fmt, self.spans.get(p.name), sha)
            fi = self.file_info.get(p.name, FileInfo())
            files.append(file_entry(p.name, info, fi))
        tables = [(rt.table, int(rt.live_count)) for rt in self.rows]
        return build_manifest(self.spec, self.fmt, files, writer.transactions, writer.last_gtid,
                              self.planned, self.counts, tables)


def file_entry(name: str, info: dict[str, Any], fi: FileInfo) -> dict[str, Any]:
    """One ``manifest.json`` ``files`` entry from a scan of the file and its GTID bookkeeping."""
    return {"name": name, "bytes": info["bytes"], "sha256": info["sha256"],
            "events": info["events"], "transactions": fi.transactions,
            "first_gtid": fi.first_gtid, "last_gtid": fi.last_gtid,
            "first_timestamp": info["first_timestamp"], "last_timestamp": info["last_timestamp"]}


def build_manifest(s: Spec, fmt: BinlogFormat, files: list[dict[str, Any]], transactions: int,
                   last_gtid: str | None, planned: int, counts: dict[str, dict[str, int]],
                   tables: list[tuple[Table, int]]) -> dict[str, Any]:
    """``manifest.json`` (docs/output.md) — shared by the single-process engine and spark_gen."""
    from generators.changes_truth import column_info  # pyarrow: imported once the run is under way

    tot_events = sum(f["events"] for f in files)
    tot_bytes = sum(f["bytes"] for f in files)
    mariadb = s.flavor.startswith("mariadb")
    if mariadb:
        gtid_mode = f"mariadb:domain {int(s.gtid or 0)}"
        executed = last_gtid or ""
    elif s.gtid == "anonymous":
        gtid_mode = "anonymous"
        executed = ""
    else:
        gtid_mode = f"uuid:{s.gtid.upper()}"
        executed = f"{s.gtid}:1-{last_gtid.rsplit(':', 1)[1]}" if last_gtid else ""
    return {
        "generator": {"name": "binlogwriter", "version": __version__, "faker": faker_version()},
        "seed": s.seed,
        "spec": s.to_dict(),
        "format": {"flavor": s.flavor, "server_version": fmt.server_version, "checksum": s.checksum,
                   "row_metadata": s.row_metadata, "row_image": s.row_image, "rows_query": s.rows_query,
                   "server_id": s.server_id, "gtid_mode": gtid_mode},
        "files": files,
        "totals": {"events": tot_events, "transactions": transactions, "bytes": tot_bytes,
                   "planned_transactions": planned, "rows": counts},
        "gtid_executed": executed,
        "tables": [{"database": t.database, "name": t.name, "columns": [c.name for c in t.columns],
                    "column_types": [column_info(c, s.flavor) for c in t.columns],
                    "live_rows": live} for t, live in tables],
    }


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    buf = bytearray(8 << 20)
    view = memoryview(buf)
    with open(path, "rb", buffering=0) as f:
        while True:
            n = f.readinto(buf)
            if not n:
                break
            h.update(view[:n])
    return h.hexdigest()


def _scan_file(path: Path, fmt: BinlogFormat, spans: list[tuple[int, int, int, int]] | None = None,
               sha256: str | None = None) -> dict[str, Any]:
    """sha256, size, event count and first/last header timestamps of a binlog file, read
    once in chunks (memory stays small whatever the file size); the event walk reads only
    the 19-byte headers' lengths and timestamps. ``spans``: runs of events whose count and
    bounds the batch path knows (:attr:`Run.spans`); the walk reads their first and last
    headers only, and walks them header by header if those do not match. ``sha256``: the
    file's digest when it was computed already (:func:`_sha256`)."""
    if spans:
        return _scan_spans(path, spans, sha256)
    h = hashlib.sha256()
    events = 0
    first_ts = last_ts = None
    unpack = struct.Struct("<I5xI").unpack_from  # timestamp, (type, server_id), event_length
    need = 4  # file offset of the next header
    buf, buf_at = b"", 0  # bytes of the file from offset buf_at
    done = False
    with open(path, "rb") as f:
        while True:
            chunk = f.read(8 << 20)
            if not chunk:
                break
            h.update(chunk)
            if done:
                continue
            buf += chunk
            p = need - buf_at
            n = len(buf)
            while p + 19 <= n:
                ts, length = unpack(buf, p)
                events += 1
                if ts:
                    if first_ts is None:
                        first_ts = ts
                    last_ts = ts
                if length < 19:
                    done = True
                    break
                p += length
            need = buf_at + p
            if p <= n:
                buf, buf_at = buf[p:], need
            else:
                buf, buf_at = b"", buf_at + n
    return {"bytes": path.stat().st_size, "sha256": h.hexdigest(), "events": events,
            "first_timestamp": first_ts, "last_timestamp": last_ts}


def _scan_spans(path: Path, spans: list[tuple[int, int, int, int]], sha256: str | None = None) -> dict[str, Any]:
    digest = _sha256(path) if sha256 is None else sha256
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        fd = f.fileno()
        unpack = struct.Struct("<I5xI6x").unpack  # timestamp, (type, server_id), event_length, (next, flags)

        def header(at: int) -> tuple[int, int] | None:
            b = os.pread(fd, 19, at)
            return unpack(b) if len(b) == 19 else None

        events = 0
        first_ts = last_ts = None
        todo = sorted(spans)
        k = 0
        p = 4
        while True:
            while k < len(todo) and todo[k][0] < p:
                k += 1
            if k < len(todo) and todo[k][0] == p:
                start, end, count, last = todo[k]
                a, z = header(start), header(last)
                # its events carry the run's clock: timestamps between the first's and the last's
                if a is not None and z is not None and z[1] == end - last and end <= size and a[0] and z[0]:
                    events += count
                    if first_ts is None:
                        first_ts = a[0]
                    last_ts = z[0]
                    p = end
                    k += 1
                    continue
            got = header(p)
            if got is None:
                break
            ts, length = got
            events += 1
            if ts:
                if first_ts is None:
                    first_ts = ts
                last_ts = ts
            if length < 19:
                break
            p += length
    return {"bytes": size, "sha256": digest, "events": events,
            "first_timestamp": first_ts, "last_timestamp": last_ts}


scan_file = _scan_file  # public name (spark_gen's commit step scans the files it renames)


def tmp_prefix(out: Path) -> str:
    """Name prefix of the temporary directories of runs into ``out`` (crash safety)."""
    return f".{out.name}.tmp-"


def lock_dir(path: Path) -> int | None:
    """An fd holding an exclusive ``flock`` on directory ``path``, or None when another
    live process holds it. The kernel drops the lock when its process dies, even by
    SIGKILL: a temporary directory nobody holds belongs to a run that is gone."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no sweeping, nothing locked
        return -1
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def sweep_stale_tmp(out: Path) -> list[Path]:
    """Remove the temporary directories (``.OUT.tmp-*`` beside ``out``) of earlier runs into
    ``out`` that were killed (SIGKILL, power loss) before they could clean up; a directory
    whose run is still alive (it holds its lock) is left alone. Returns what was removed."""
    parent = out.absolute().parent
    prefix = tmp_prefix(out)
    removed = []
    try:
        candidates = [p for p in parent.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return removed
    for p in candidates:
        if not p.is_dir() or p.is_symlink():
            continue
        fd = lock_dir(p)
        if fd is None:
            continue  # a live run's
        try:
            shutil.rmtree(p, ignore_errors=True)
        finally:
            if fd >= 0:
                os.close(fd)
        removed.append(p)
    return removed


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
