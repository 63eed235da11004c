"""Real MariaDB 10.11 binlog corpora for the decoder tests.

`make_corpus` starts a throwaway server with the given binlog options, runs the workload of
`workloads/*.sql` (plus the few steps that need Python: LOAD DATA files, an INCIDENT from a
separate session, FLUSH BINARY LOGS) so that the server writes every event type it writes
(docs/mariadb.md), shuts it down cleanly (the last file ends with STOP) and copies
the files out. `scan` is a tiny header walker used only to check a corpus itself: it reads
19-byte headers (type at offset 4, length at offset 9) and a few body fields, nothing more.

Build corpora by hand: `python -m tests.conformance.corpus OUT_DIR` (all specs, then a table
of event-type counts).
"""

from __future__ import annotations

import argparse
import collections
import struct
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .mariadb import MariaDBError, MariaDBServer, make_template

WORKLOADS = Path(__file__).parent / "workloads"

# Event type codes (MariaDB log_event.h names).
EVENT_NAMES = {
    2: "QUERY", 3: "STOP", 4: "ROTATE", 5: "INTVAR", 9: "APPEND_BLOCK", 13: "RAND",
    14: "USER_VAR", 15: "FORMAT_DESCRIPTION", 16: "XID", 17: "BEGIN_LOAD_QUERY",
    18: "EXECUTE_LOAD_QUERY", 19: "TABLE_MAP", 23: "WRITE_ROWS_V1", 24: "UPDATE_ROWS_V1",
    25: "DELETE_ROWS_V1", 26: "INCIDENT", 38: "XA_PREPARE", 160: "ANNOTATE_ROWS",
    161: "BINLOG_CHECKPOINT", 162: "GTID", 163: "GTID_LIST", 165: "QUERY_COMPRESSED",
    166: "WRITE_ROWS_COMPRESSED_V1", 167: "UPDATE_ROWS_COMPRESSED_V1",
    168: "DELETE_ROWS_COMPRESSED_V1",
}
MAIN_EVENT_TYPES = frozenset(EVENT_NAMES)
OLD_TEMPORAL_EVENT_TYPES = frozenset({2, 3, 4, 15, 16, 19, 23, 24, 25, 160, 161, 162, 163})
# Query status-variable codes the main workload provokes (format.md / mariadb.md "Query events").
MAIN_QUERY_STATUS_CODES = frozenset({0, 1, 3, 4, 5, 6, 7, 8, 9, 11, 128, 129, 130})
# GTID flags2 values of the main workload: DDL 0x29, CREATE...SELECT 0x28, DML 0x0c,
# MyISAM 0x08, XA PREPARE 0x4c, XA COMMIT/ROLLBACK 0x8d.
MAIN_GTID_FLAGS2 = frozenset({0x08, 0x0C, 0x28, 0x29, 0x4C, 0x8D})


@dataclass(frozen=True)
class CorpusSpec:
    """One corpus: server options plus the workload variant ("main" or "old-temporal")."""

    row_metadata: str = "FULL"
    row_image: str = "FULL"
    checksum: str = "CRC32"
    variant: str = "main"

    @property
    def name(self) -> str:
        return f"{self.variant}-{self.row_metadata}-{self.row_image}-{self.checksum}"

    @property
    def expected_event_types(self) -> frozenset[int]:
        return MAIN_EVENT_TYPES if self.variant == "main" else OLD_TEMPORAL_EVENT_TYPES


ALL_SPECS: tuple[CorpusSpec, ...] = (
    *(CorpusSpec(md, img) for md in ("NO_LOG", "MINIMAL", "FULL") for img in ("FULL", "MINIMAL", "NOBLOB")),
    CorpusSpec("FULL", "FULL", checksum="NONE"),
    CorpusSpec("FULL", "FULL", variant="old-temporal"),
)

# A stand-in for the server's --secure-file-priv directory inside workload files.
FILES_DIR_TOKEN = "@FILES_DIR@"


def _sql(name: str, server: MariaDBServer) -> str:
    return (WORKLOADS / name).read_text().replace(FILES_DIR_TOKEN, str(server.files_dir))


def _write_load_files(server: MariaDBServer) -> None:
    """Input of 03_statement.sql's LOAD DATA: one file over the 128 kB block size, one small."""
    big = "".join(f"{i}\tline {i} {'x' * (i % 97)}\t{i * 7}\n" for i in range(1, 3001))
    assert len(big) > 160_000, "must exceed one 128 kB block so APPEND_BLOCK is written"
    (server.files_dir / "big.tsv").write_text(big)
    (server.files_dir / "small.csv").write_text(
        'id,v,n\n1,"quoted, comma",10\n5001,"é ünïcode",11\n5002,plain,12\n', encoding="utf-8")


def _incident(server: MariaDBServer) -> None:
    """INCIDENT (LOST_EVENTS): a MyISAM multi-row statement overflowing max_binlog_stmt_cache_size.

    The limit is global and read when a session's cache is set up, so the statement runs in a
    session of its own; the server answers with error 1705 and logs the incident.
    """
    server.execute("CREATE TABLE bw.t_incident (id INT, v VARCHAR(100)) ENGINE=MyISAM;"
                   "SET GLOBAL max_binlog_stmt_cache_size = 4096;")
    try:
        server.execute("INSERT INTO t_incident SELECT seq, REPEAT('i', 100) FROM seq_1_to_3000;",
                       database="bw")
    except MariaDBError as e:
        if "ERROR 1705" not in str(e):
            raise
    else:
        raise MariaDBError("the INSERT meant to overflow max_binlog_stmt_cache_size succeeded")
    finally:
        server.execute("SET GLOBAL max_binlog_stmt_cache_size = DEFAULT;")


def _steps(variant: str) -> list[str | Callable[[MariaDBServer], None]]:
    if variant == "main":
        return ["01_types.sql", "02_transactions.sql", "03_statement.sql",
                MariaDBServer.flush_logs, _incident, "04_old_temporal.sql",
                MariaDBServer.flush_logs, "05_compressed.sql"]
    if variant == "old-temporal":
        return ["90_old_temporal_hires.sql"]
    raise ValueError(f"unknown corpus variant {variant!r}")


def make_corpus(server_factory: Callable[..., MariaDBServer], out_dir: Path | str,
                row_metadata: str = "FULL", row_image: str = "FULL", *, checksum: str = "CRC32",
                variant: str = "main", annotate: bool = True) -> list[Path]:
    """Run the workload on a fresh server and copy its binlogs (and binlog.index) to out_dir.

    server_factory(**options) returns a MariaDBServer (started or not); it is used as a
    context manager and always stopped. Returns the binlog files in order; the last one
    ends with STOP, the others with ROTATE.
    """
    options = dict(row_metadata=row_metadata, row_image=row_image, checksum=checksum,
                   annotate=annotate, extra_args=("--innodb-flush-log-at-trx-commit=0",))
    with server_factory(**options) as server:
        _write_load_files(server)
        for step in _steps(variant):
            if isinstance(step, str):
                server.execute(_sql(step, server))
            else:
                step(server)
        server.shutdown()
        return server.copy_binlogs(out_dir)


def build_corpora(specs: Iterable[CorpusSpec], server_factory: Callable[..., MariaDBServer],
                  out_root: Path | str, workers: int = 2) -> dict[CorpusSpec, list[Path]]:
    """Build several corpora, `workers` servers at a time, each into out_root/<spec.name>."""
    out_root = Path(out_root)

    def one(spec: CorpusSpec) -> list[Path]:
        return make_corpus(server_factory, out_root / spec.name, spec.row_metadata, spec.row_image,
                           checksum=spec.checksum, variant=spec.variant)

    specs = list(specs)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return dict(zip(specs, pool.map(one, specs), strict=True))


# --- corpus self-check: a tiny header walker ------------------------------------------------

@dataclass
class CorpusScan:
    """What a header walk of some binlog files found."""

    event_types: collections.Counter = field(default_factory=collections.Counter)
    query_status_codes: set[int] = field(default_factory=set)
    gtid_flags2: set[int] = field(default_factory=set)
    first_types: list[tuple[int, ...]] = field(default_factory=list)  # first two events per file
    last_types: list[int] = field(default_factory=list)  # last event of each file
    problems: list[str] = field(default_factory=list)


# Lengths of the Query status variables (docs/format.md, mariadb.md "Query events").
_FIXED_STATUS_LEN = {0: 4, 1: 8, 3: 4, 4: 6, 7: 2, 8: 2, 9: 8, 10: 4, 13: 3, 128: 3, 129: 8}


def _status_codes(status: bytes) -> list[int]:
    codes, i = [], 0
    while i < len(status):
        code = status[i]
        i += 1
        codes.append(code)
        if code in _FIXED_STATUS_LEN:
            i += _FIXED_STATUS_LEN[code]
        elif code in (2, 5, 6):  # length-prefixed string
            i += 1 + status[i]
        elif code == 11:  # Q_INVOKER: user, host
            i += 1 + status[i]
            i += 1 + status[i]
        elif code == 130:  # Q_GTID_FLAGS3 (+ start-alter seq_no for COMMIT/ROLLBACK ALTER)
            i += 1 + (8 if status[i] & 0x0C else 0)
        else:
            raise ValueError(f"unknown Query status variable {code}")
    return codes


def scan(files: Sequence[Path]) -> CorpusScan:
    """Walk event headers; checksum=CRC32 is detected from the FDE's checksum-algorithm byte."""
    result = CorpusScan()
    for path in files:
        data = Path(path).read_bytes()
        if data[:4] != b"\xfebin":
            result.problems.append(f"{path.name}: bad magic")
            continue
        offset, types, footer = 4, [], 0
        while offset + 19 <= len(data):
            event_type = data[offset + 4]
            length = struct.unpack_from("<I", data, offset + 9)[0]
            if length < 19 or offset + length > len(data):
                result.problems.append(f"{path.name}:{offset}: bad event length {length}")
                break
            body = data[offset + 19:offset + length - footer]
            if event_type == 15:  # FDE: checksum alg byte before its own 4-byte CRC
                footer = 4 if data[offset + length - 5] == 1 else 0
            elif event_type == 2:
                status_len = struct.unpack_from("<H", body, 11)[0]
                result.query_status_codes.update(_status_codes(body[13:13 + status_len]))
            elif event_type == 162:
                result.gtid_flags2.add(body[12])
            types.append(event_type)
            offset += length
        if offset != len(data):
            result.problems.append(f"{path.name}: {len(data) - offset} trailing bytes")
        result.event_types.update(types)
        result.first_types.append(tuple(types[:2]))
        result.last_types.append(types[-1] if types else -1)
    return result


def format_counts(scans: dict[str, CorpusScan]) -> str:
    """A table: one row per event type, one column per corpus."""
    names = list(scans)
    types = sorted(set().union(*(s.event_types for s in scans.values())))
    width = max(len(n) for n in names)
    lines = [f"{'type':>4} {'name':<26} " + " ".join(f"{n:>{width}}" for n in names)]
    for t in types:
        lines.append(f"{t:>4} {EVENT_NAMES.get(t, '?'):<26} "
                     + " ".join(f"{scans[n].event_types.get(t, 0):>{width}}" for n in names))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bw-template-") as tmp:
        template = make_template(Path(tmp) / "data")

        def factory(**options):
            return MariaDBServer(template, **options)

        started = time.monotonic()
        corpora = build_corpora(ALL_SPECS, factory, args.out_dir, workers=args.workers)
        elapsed = time.monotonic() - started
    scans = {spec.name: scan(files) for spec, files in corpora.items()}
    print(format_counts(scans))
    print(f"built {len(corpora)} corpora in {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
