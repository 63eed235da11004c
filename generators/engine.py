"""The single-process generation run: spec -> plans -> rows -> writer -> OUTPUT.md layout.

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
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from binlogwriter import __version__
from binlogwriter.format import BinlogFormat
from binlogwriter.schema import Table
from binlogwriter.transaction import SessionSettings
from binlogwriter.writer import BinlogWriter
from generators.hashing import hash64, salt
from generators.plan import TxnPlan, ddl_after, plan_transaction
from generators.pools import faker_version
from generators.rows import DDL_TYPES, TableRows
from generators.spec import Spec, SpecError, resolve
from generators.truth import canonical_renderer, sql_literal, write_sorted_jsonl
from generators.workloads import WorkloadDef, load_workload
from generators.workloads.ecommerce import LINES

__all__ = ["generate", "Run", "RunResult"]

INITIAL_ROWS_PER_TXN = 100  # --ddl-in-binlog: initial rows per INSERT transaction
SNAPSHOT_ROWS_PER_INSERT = 100


@dataclass
class RunResult:
    out: Path
    manifest: dict[str, Any]


def _qi(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


@dataclass
class _FileInfo:
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
                raise SpecError(f"spec columns: no table {tname!r} in the workload ({', '.join(names)})")
            try:
                col = td.table.column(cname)
            except Exception:  # noqa: BLE001 - SchemaError: unknown column
                raise SpecError(f"spec columns: table {tname!r} has no column {cname!r}") from None
            if any(col.name == td.table.columns[i].name for i, _ in td.table.effective_primary_key()):
                raise SpecError(f"spec columns.{cg.target}: key columns are derived from the row key")
            overrides.setdefault(tname, {})[col.name] = cg
        self.rows = [TableRows(td, self.spec, overrides.get(td.name, {})) for td in self.work.tables]
        self.fmt = BinlogFormat.preset(self.spec.flavor, checksum=self.spec.checksum)
        self.ddl_epoch = 0
        self.counts: dict[str, dict[str, int]] = {
            f"{r.table.database}.{r.table.name}": {"insert": 0, "update": 0, "delete": 0} for r in self.rows}
        self.file_info: dict[str, _FileInfo] = {}
        self._sql_cache: dict[tuple, str] = {}

    # -- writer ---------------------------------------------------------------------------
    def _settings(self) -> SessionSettings:
        s = self.spec
        mariadb = s.flavor.startswith("mariadb")
        return SessionSettings(row_metadata=s.row_metadata, row_image=s.row_image, rows_query=s.rows_query,
                               gtid="anonymous" if mariadb else (s.gtid or "anonymous"),
                               domain_id=int(s.gtid) if mariadb and s.gtid else 0,
                               row_event_max_size=s.row_event_max_size)

    def _track(self, writer: BinlogWriter, fname: str, before: int) -> None:
        if writer.transactions == before:
            return
        fi = self.file_info.setdefault(fname, _FileInfo())
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
        t = rt.table
        n = len(rows)
        changed = tuple(sorted(rows[0][1])) if kind == "update" else ()
        ck = (t.name, kind, n, changed)
        s = self._sql_cache.get(ck)
        if s is not None:
            return s
        name = f"{_qi(t.database)}.{_qi(t.name)}"
        pk = [t.columns[i].name for i, _ in t.effective_primary_key()] or [c.name for c in t.columns]
        if len(pk) == 1:
            where = f"{_qi(pk[0])} = ?" if n == 1 else f"{_qi(pk[0])} IN ({', '.join(['?'] * n)})"
        else:
            one = "(" + " AND ".join(f"{_qi(c)} = ?" for c in pk) + ")"
            where = " OR ".join([one] * n)
        if kind == "insert":
            cols = ", ".join(_qi(c.name) for c in t.columns)
            vals = "(" + ", ".join(["?"] * len(t.columns)) + ")"
            s = f"INSERT INTO {name} ({cols}) VALUES {', '.join([vals] * n)}"
        elif kind == "update":
            sets = ", ".join(f"{_qi(t.columns[i].name)} = ?" for i in changed)
            s = f"UPDATE {name} SET {sets} WHERE {where}"
        else:
            s = f"DELETE FROM {name} WHERE {where}"
        if len(self._sql_cache) > 4096:
            self._sql_cache.clear()
        self._sql_cache[ck] = s
        return s

    # -- one transaction ----------------------------------------------------------------------
    def _apply(self, plan: TxnPlan) -> list[tuple[int, str, list]]:
        stmts: list[tuple[int, str, list]] = []
        keys: list[int | None] = []

        def add(tidx: int, kind: str, row: Any) -> None:
            if stmts and stmts[-1][0] == tidx and stmts[-1][1] == kind:
                stmts[-1][2].append(row)
            else:
                stmts.append((tidx, kind, [row]))

        for op in plan.ops:
            rt = self.rows[op.table]
            k: int | None
            if op.addr == "pick":
                k = rt.pick_live(op.draw)
            elif op.addr == "new":
                k = rt.new_key(op.draw)
            elif op.addr == "same":
                k = keys[op.ref]
            elif op.addr in ("child", "children"):
                base = keys[op.ref]
                k = None if base is None else base * LINES + op.line
            else:  # pragma: no cover - plan.py defines the modes
                raise AssertionError(op.addr)
            keys.append(k)
            if k is None or op.kind == "select":
                continue
            if op.addr == "children":
                for line in range(LINES):
                    ck = base * LINES + line
                    if rt.is_live(ck):
                        add(op.table, "delete", rt.delete(ck))
                continue
            if op.kind == "insert":
                if rt.is_live(k) or k >= rt.capacity:
                    continue
                add(op.table, "insert", rt.insert(k, self.ddl_epoch))
            elif op.kind == "update":
                if not rt.is_live(k) or not rt.mutable:
                    continue
                before, assigned = rt.update(k)
                add(op.table, "update", (before, assigned))
            elif op.kind == "delete":
                if not rt.is_live(k):
                    continue
                add(op.table, "delete", rt.delete(k))
        return stmts

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

    def _do_ddl(self, writer: BinlogWriter, d: int) -> None:
        """DDL number d: odd adds column ddl_P to a table chosen by hash, even drops it."""
        p = (d + 1) // 2
        self._sql_cache.clear()  # statement texts name the columns
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

    def write_snapshot(self, path: Path, writer: BinlogWriter) -> None:
        s = self.spec
        header = [
            "-- binlogwriter generate: the state before the first event of the first binlog (OUTPUT.md).",
            f"-- workload {self.work.name}, flavor {s.flavor}, seed {s.seed}",
        ]
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            for line in header:
                f.write(line + "\n")
            if s.ddl_in_binlog:
                f.write("-- --ddl-in-binlog: CREATE DATABASE, CREATE TABLE and the initial rows are in the binlog.\n")
            else:
                f.write("SET NAMES utf8mb4;\nSET SESSION time_zone = '+00:00';\n"
                        "SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO';\nSET SESSION foreign_key_checks = 0;\n")
                for db in self._databases():
                    f.write(f"CREATE DATABASE IF NOT EXISTS {_qi(db)};\n")
            for rt in self.rows:
                t = rt.table
                create = rt.tdef.create_sql.strip().rstrip(";")
                if s.ddl_in_binlog:
                    continue
                f.write(f"USE {_qi(t.database)};\n{create};\n")
            if not s.ddl_in_binlog:
                for rt in self.rows:
                    batch: list[tuple] = []
                    for k in self._initial_keys(rt):
                        batch.append(rt.compute(k, 0, 0))
                        if len(batch) >= SNAPSHOT_ROWS_PER_INSERT:
                            f.write(self._insert_sql(rt.table, batch))
                            batch = []
                    if batch:
                        f.write(self._insert_sql(rt.table, batch))
                f.write("SET SESSION foreign_key_checks = 1;\n")

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
                              settings=self._settings())
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
            raise
        self.write_final(tmp / "truth" / "final")
        manifest = self.manifest(writer)
        data = json.dumps(manifest, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
        (tmp / "manifest.json").write_text(data, encoding="utf-8")
        return manifest

    def _bytes(self, writer: BinlogWriter, closed: list[int]) -> int:
        while len(closed) < len(writer.files):
            closed.append(writer.files[len(closed)].stat().st_size)
        return sum(closed) + writer.position

    def _loop(self, writer: BinlogWriter) -> None:
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
            if plan.advance:
                writer.advance(plan.advance)
            self._write_stmts(writer, self._apply(plan))
            d = ddl_after(s, i)
            if d is not None:
                self._do_ddl(writer, d)
            i += 1
            if self.progress is not None and (i - last_report >= 256):
                last_report = i
                self.progress(i, self._bytes(writer, closed))
        self.planned = i
        if self.progress is not None:
            self.progress(i, self._bytes(writer, closed))

    def write_final(self, final_dir: Path) -> None:
        fl = self.spec.flavor
        for rt in self.rows:
            t = rt.table
            render = canonical_renderer(t, fl)
            names = [c.name for c in t.columns]
            rows = (render(rt.row(k)) for k in rt.live_keys())
            write_sorted_jsonl(final_dir / f"{t.database}.{t.name}.jsonl", names, rows)

    def manifest(self, writer: BinlogWriter) -> dict[str, Any]:
        s = self.spec
        files = []
        tot_events = tot_bytes = 0
        for p in writer.files:
            info = _scan_file(p, self.fmt)
            fi = self.file_info.get(p.name, _FileInfo())
            files.append({"name": p.name, "bytes": info["bytes"], "sha256": info["sha256"],
                          "events": info["events"], "transactions": fi.transactions,
                          "first_gtid": fi.first_gtid, "last_gtid": fi.last_gtid,
                          "first_timestamp": info["first_timestamp"], "last_timestamp": info["last_timestamp"]})
            tot_events += info["events"]
            tot_bytes += info["bytes"]
        mariadb = s.flavor.startswith("mariadb")
        if mariadb:
            gtid_mode = f"mariadb:domain {int(s.gtid or 0)}"
            last = writer.last_gtid
            executed = last or ""
        elif s.gtid == "anonymous":
            gtid_mode = "anonymous"
            executed = ""
        else:
            gtid_mode = f"uuid:{s.gtid.upper()}"
            last = writer.last_gtid
            executed = f"{s.gtid}:1-{last.rsplit(':', 1)[1]}" if last else ""
        return {
            "generator": {"name": "binlogwriter", "version": __version__, "faker": faker_version()},
            "seed": s.seed,
            "spec": s.to_dict(),
            "format": {"flavor": s.flavor, "server_version": self.fmt.server_version, "checksum": s.checksum,
                       "row_metadata": s.row_metadata, "row_image": s.row_image, "rows_query": s.rows_query,
                       "server_id": s.server_id, "gtid_mode": gtid_mode},
            "files": files,
            "totals": {"events": tot_events, "transactions": writer.transactions, "bytes": tot_bytes,
                       "planned_transactions": self.planned, "rows": self.counts},
            "gtid_executed": executed,
            "tables": [{"database": rt.table.database, "name": rt.table.name,
                        "columns": [c.name for c in rt.table.columns],
                        "live_rows": int(rt.live_count)} for rt in self.rows],
        }


def _scan_file(path: Path, fmt: BinlogFormat) -> dict[str, Any]:
    """sha256, size, event count and first/last header timestamps of a binlog file."""
    h = hashlib.sha256()
    events = 0
    first_ts = last_ts = None
    with open(path, "rb") as f:
        data = f.read(4)
        h.update(data)
        while True:
            head = f.read(19)
            if not head:
                break
            h.update(head)
            ts = int.from_bytes(head[0:4], "little")
            length = int.from_bytes(head[9:13], "little")
            body = f.read(length - 19)
            h.update(body)
            events += 1
            if ts:
                first_ts = ts if first_ts is None else first_ts
                last_ts = ts
    return {"bytes": path.stat().st_size, "sha256": h.hexdigest(), "events": events,
            "first_timestamp": first_ts, "last_timestamp": last_ts}


def generate(spec: Spec, out: str | os.PathLike, *,
             progress: Callable[[int, int], None] | None = None) -> RunResult:
    """Run ``spec`` into directory ``out`` (must not exist, or be empty). Atomic: on error
    nothing is left behind."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SpecError(f"--out: {out} already exists and is not an empty directory")
    run = Run(spec, out, progress)  # validation and schema errors before anything is created
    parent = out.absolute().parent
    if not parent.is_dir():
        raise SpecError(f"--out: parent directory {parent} does not exist")
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=parent))
    try:
        manifest = run.run(tmp)
        os.chmod(tmp, 0o755)
        if out.exists():
            out.rmdir()
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return RunResult(out, manifest)
