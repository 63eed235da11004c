"""Our reader against binlogs a real MariaDB 10.11 server wrote.

For every corpus (metadata NO_LOG/MINIMAL/FULL x image FULL/MINIMAL/NOBLOB, checksum NONE,
old hires temporals; corpus.py): the corpus really holds every event type the server writes,
`mariadb-binlog` itself reads it, and `binlogwriter verify --roundtrip` decodes and re-encodes
every event to identical bytes (docs/design.md principle 3) and `binlogwriter inspect` reads
each file.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .corpus import (
    ALL_SPECS,
    EVENT_NAMES,
    MAIN_GTID_FLAGS2,
    MAIN_QUERY_STATUS_CODES,
    CorpusSpec,
    format_counts,
    scan,
)
from .mariadb import mariadb_binlog

pytestmark = pytest.mark.conformance

REPO_ROOT = Path(__file__).resolve().parents[2]
VERIFY_OK = re.compile(r"^\d+ files, \d+ events: OK$")
FDE, GTID_LIST, ROTATE, STOP = 15, 163, 4, 3


@pytest.fixture(params=ALL_SPECS, ids=[spec.name for spec in ALL_SPECS])
def corpus(request: pytest.FixtureRequest, mariadb_corpus) -> tuple[CorpusSpec, list[Path]]:
    spec: CorpusSpec = request.param
    return spec, mariadb_corpus(spec.row_metadata, spec.row_image, checksum=spec.checksum,
                                variant=spec.variant)


def _binlogwriter(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "binlogwriter", *args], cwd=REPO_ROOT,
                          capture_output=True, text=True, errors="replace", timeout=900)


def test_corpus_holds_every_event_type_the_server_writes(corpus) -> None:
    spec, files = corpus
    found = scan(files)
    print(format_counts({spec.name: found}))
    assert not found.problems
    missing = spec.expected_event_types - set(found.event_types)
    assert not missing, f"{spec.name} lacks {sorted(EVENT_NAMES[t] for t in missing)}"
    assert len(files) >= 2
    assert found.first_types == [(FDE, GTID_LIST)] * len(files)
    assert found.last_types == [ROTATE] * (len(files) - 1) + [STOP]
    if spec.variant == "main":
        assert MAIN_QUERY_STATUS_CODES <= found.query_status_codes, (
            f"Query status variables missing: {sorted(MAIN_QUERY_STATUS_CODES - found.query_status_codes)}")
        assert MAIN_GTID_FLAGS2 <= found.gtid_flags2, (
            f"GTID flags2 values missing: {sorted(map(hex, MAIN_GTID_FLAGS2 - found.gtid_flags2))}")


def test_mariadb_binlog_reads_the_corpus(corpus) -> None:
    spec, files = corpus
    if spec.variant == "old-temporal":
        # mariadb-binlog -v cannot size hires old temporals (the binlog lacks their fsp) and
        # exits 1 on such rows (docs/mariadb.md); check framing and CRCs only.
        args = ["--verify-binlog-checksum"]
    else:
        args = ["--verify-binlog-checksum", "-vv", "--base64-output=decode-rows", "--print-table-metadata"]
    result = mariadb_binlog(files, *args)
    assert result.returncode == 0, result.stderr
    assert "ERROR" not in result.stderr, result.stderr
    assert "# End of log file" in result.stdout, "mariadb-binlog stopped before the end"


def test_binlogwriter_verify_roundtrip(corpus) -> None:
    _, files = corpus
    result = _binlogwriter("verify", "--roundtrip", *map(str, files))
    assert result.returncode == 0, f"stdout:\n{result.stdout[-4000:]}\nstderr:\n{result.stderr[-4000:]}"
    lines = result.stdout.strip().splitlines()
    assert lines and VERIFY_OK.match(lines[-1]), result.stdout[-4000:]


def test_binlogwriter_inspect(corpus) -> None:
    _, files = corpus
    for path in files:
        result = _binlogwriter("inspect", str(path))
        assert result.returncode == 0, f"{path.name}: {result.stderr[-4000:]}"
