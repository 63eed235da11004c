"""``manifest.json`` of a generation run (docs/output.md): the per-file scan (size, sha256,
events, first/last header timestamps) and the manifest built from it — shared by the
single-process engine (generators/engine.py) and spark_gen's commit step."""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from binlogwriter import __version__
from binlogwriter.format import BinlogFormat
from binlogwriter.gtids import MysqlGtidSet, parse_mysql_gtid
from binlogwriter.layouts.header import HEADER_SIZE, header_struct
from binlogwriter.schema import Table
from generators.pools import faker_version
from generators.spec import Spec

__all__ = ["FileInfo", "build_manifest", "file_entry", "scan_file"]


@dataclass
class FileInfo:
    """Per binlog file: transactions, first and last GTID (a ``manifest.json`` files entry)."""

    transactions: int = 0
    first_gtid: str | None = None
    last_gtid: str | None = None


def file_entry(name: str, info: dict[str, Any], fi: FileInfo) -> dict[str, Any]:
    """One ``manifest.json`` ``files`` entry from a scan of the file and its GTID bookkeeping."""
    return {"name": name, "bytes": info["bytes"], "sha256": info["sha256"],
            "events": info["events"], "transactions": fi.transactions,
            "first_gtid": fi.first_gtid, "last_gtid": fi.last_gtid,
            "first_timestamp": info["first_timestamp"], "last_timestamp": info["last_timestamp"]}


def _executed(last_gtid: str) -> str:
    """GNOs 1 up to ``last_gtid``'s as ``@@gtid_executed`` shows them (``uuid:1-45``, ``uuid:1``;
    tagged ``uuid:tag:1-45``): the text of the one GTID-set type, so ``serve``'s
    ``@@gtid_executed`` of the run is this very text."""
    uuid, tag, gno = parse_mysql_gtid(last_gtid)
    return MysqlGtidSet({(uuid, tag): [[1, gno + 1]]}).text()


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
        executed = _executed(last_gtid) if last_gtid else ""
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


def known_digest(hexdigest: str) -> Future:
    """A digest computed already (:attr:`binlogwriter.sinks.FileSink.digests`), as the future
    :meth:`generators.engine.Run.manifest` waits on."""
    fut: Future = Future()
    fut.set_result(hexdigest)
    return fut


def file_sha256(path: Path) -> str:
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


def scan_binlog_file(path: Path, fmt: BinlogFormat, spans: list[tuple[int, int, int, int]] | None = None,
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
    unpack = header_struct("timestamp", "event_length").unpack_from
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
            while p + HEADER_SIZE <= n:
                ts, length = unpack(buf, p)
                events += 1
                if ts:
                    if first_ts is None:
                        first_ts = ts
                    last_ts = ts
                if length < HEADER_SIZE:
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
    digest = file_sha256(path) if sha256 is None else sha256
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        fd = f.fileno()
        unpack = header_struct("timestamp", "event_length").unpack

        def header(at: int) -> tuple[int, int] | None:
            b = os.pread(fd, HEADER_SIZE, at)
            return unpack(b) if len(b) == HEADER_SIZE else None

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
            if length < HEADER_SIZE:
                break
            p += length
    return {"bytes": size, "sha256": digest, "events": events,
            "first_timestamp": first_ts, "last_timestamp": last_ts}


scan_file = scan_binlog_file  # public name (spark_gen's commit step scans the files it renames)
