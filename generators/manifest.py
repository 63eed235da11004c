"""``manifest.json`` of a generation run (docs/output.md): the per-file scan (size, sha256,
events, first/last header timestamps) and the manifest built from it — shared by the
single-process engine (generators/engine.py) and spark_gen's commit step."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from binlogwriter import __version__
from binlogwriter.errors import DecodeError
from binlogwriter.format import BinlogFormat
from binlogwriter.gtids import MysqlGtidSet, parse_mysql_gtid
from binlogwriter.layouts.header import HEADER_SIZE, header_struct
from binlogwriter.read.framing import frame_bounds, frame_error, iter_blocks
from binlogwriter.schema import Table
from generators.pools import faker_version
from generators.spec import Spec

__all__ = ["FileInfo", "build_manifest", "file_entry", "scan_file", "count_events"]


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
    """sha256, size, event count and first/last header timestamps of a binlog file (memory
    stays small whatever the file size): :func:`count_events` from offset 4. ``spans``: runs
    of events whose count and bounds the batch path knows (:attr:`Run.spans`). ``sha256``:
    the file's digest when it was computed already (:func:`file_sha256`)."""
    digest = file_sha256(path) if sha256 is None else sha256
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        events, first_ts, last_ts = count_events(f, 4, size, spans or (), name=str(path))
    return {"bytes": size, "sha256": digest, "events": events,
            "first_timestamp": first_ts, "last_timestamp": last_ts}


_TIMESTAMP = header_struct("timestamp")


def count_events(fh: BinaryIO, begin: int, size: int, spans: Iterable[tuple[int, int, int, int]] = (), *,
                 name: str = "?") -> tuple[int, int | None, int | None]:
    """(events, first and last non-zero header timestamp) of the events of the open file
    ``fh`` from ``begin`` to ``size``, framed by :func:`binlogwriter.read.framing.iter_blocks`
    (a cut or mis-framed event is its located error). ``spans``: runs of events the batch path
    wrote (first offset, end offset, events, offset of the last event): a run whose last
    event ends it and whose first and last headers have timestamps is counted without
    walking its events (its events carry the run's clock: timestamps between those two); a
    wrong count is not noticed, a wrong last event is (the run is walked)."""
    fd = fh.fileno()
    events = 0
    first = last = None
    todo = sorted(spans)
    k = 0
    p = begin
    while p < size:
        while k < len(todo) and todo[k][0] < p:
            k += 1
        if k < len(todo) and todo[k][0] == p:
            s, e, c, z = todo[k]
            k += 1
            a, y = _TIMESTAMP.unpack(os.pread(fd, HEADER_SIZE, s).ljust(HEADER_SIZE, b"\0"))[0], _last_of(fd, z, e)
            if a and y:
                events += c
                first = a if first is None else first
                last, p = y, e
                continue
        stop = todo[k][0] if k < len(todo) else size
        reached = p
        for base, buf, bounds in iter_blocks(fh, p, name=name, end=stop, block=8 << 20):
            starts = bounds[:-1]
            events += len(starts)
            stamp = _TIMESTAMP.unpack_from
            if first is None:
                first = next((t for b in starts if (t := stamp(buf, b)[0])), None)
            last = next((t for b in reversed(starts) if (t := stamp(buf, b)[0])), last)
            reached = base + bounds[-1]
        if reached == p:  # the event at p crosses the next run's start (walked past it), or is cut
            if stop == size:
                raise frame_error(os.pread(fd, HEADER_SIZE, p), name, 0, size - p, p)  # type: ignore[misc]
            k += 1
        p = reached
    return events, first, last


def _last_of(fd: int, z: int, e: int) -> int:
    """The timestamp of the event at ``z`` if it ends at ``e`` (0 if not)."""
    data = os.pread(fd, max(0, e - z), z)
    try:
        whole = frame_bounds(data, 0, len(data)) == [0, e - z]
    except DecodeError:
        return 0
    return _TIMESTAMP.unpack_from(data)[0] if whole and len(data) == e - z else 0


scan_file = scan_binlog_file  # public name (spark_gen's commit step scans the files it renames)
