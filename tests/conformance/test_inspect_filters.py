"""``inspect`` filters against mariadb-binlog's own (issue 11): on generated MariaDB-flavor
runs, ``--start-datetime``, ``--stop-datetime``, ``-d/--database`` and ``-T/--table`` select
exactly the ``###`` row lines, ``# at`` lines and event headers mariadb-binlog selects (it runs
with TZ=UTC; we print UTC).
GTID sets (mariadb-binlog has no --include-gtids) are checked against the GTIDs the
generator's manifest names."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .mariadb import find_binary

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("filters") / "run"
    subprocess.run([sys.executable, "-m", "binlogwriter", "generate", "--workload", "ecommerce", "--flavor",
                    "mariadb1011", "--transactions", "60", "--initial-rows", "5", "--out", str(out),
                    "--no-progress"], check=True, capture_output=True, timeout=300, cwd=REPO_ROOT)
    return out


def listing(argv: list[str]) -> list[str]:
    p = subprocess.run(argv, capture_output=True, timeout=300, env={**os.environ, "TZ": "UTC"}, cwd=REPO_ROOT)
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    return p.stdout.decode("utf-8", "surrogateescape").split("\n")


def rows(argv: list[str]) -> list[str]:
    return [line for line in listing(argv) if line.startswith("###")]


def positions(lines: list[str]) -> tuple[list[str], list[str]]:
    """The ``# at`` lines and the event header lines up to their tab, in order."""
    return ([line for line in lines if line.startswith("# at ")],
            [line.split("\t", 1)[0] for line in lines if re.match(r"#\d{6} ", line)])


def _times(run: Path) -> tuple[str, str]:
    m = json.loads((run / "manifest.json").read_text())
    first, last = m["files"][0]["first_timestamp"], m["files"][0]["last_timestamp"]
    at = lambda s: dt.datetime.fromtimestamp(s, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")  # noqa: E731
    third = (last - first) // 3
    return at(first + third), at(last - third)


@pytest.mark.parametrize("case", ["start", "stop", "both", "db", "db-none", "table", "table-db"])
def test_filter_matches_mariadb_binlog(run: Path, case: str) -> None:
    f = str(run / "binlog.000001")
    a, b = _times(run)
    args = {"start": ["--start-datetime", a], "stop": ["--stop-datetime", b],
            "both": ["--start-datetime", a, "--stop-datetime", b], "db": ["-d", "test"],
            "db-none": ["-d", "nope"], "table": ["-T", "orders"], "table-db": ["-d", "test", "-T", "customers"]}[case]
    theirs_all = listing([find_binary("mariadb-binlog"), "-vv", "--base64-output=decode-rows", *args, f])
    ours_all = listing([sys.executable, "-m", "binlogwriter", "inspect", "-vv", *args, f])
    ours, theirs = [x for x in ours_all if x.startswith("###")], [x for x in theirs_all if x.startswith("###")]
    assert ours == theirs
    # the same events in range (a ``# at`` line each, filtered by -d/-T or not) and the same
    # events shown (header lines); the FDE always
    assert positions(ours_all) == positions(theirs_all)
    assert any(x.startswith("#") and "\tStart: binlog v 4" in x for x in ours_all)
    everything = rows([sys.executable, "-m", "binlogwriter", "inspect", "-vv", f])
    if case != "db":
        assert len(ours) < len(everything)
    if case not in ("db-none",):
        assert ours


def test_gtid_sets(run: Path) -> None:
    f = str(run / "binlog.000001")
    m = json.loads((run / "manifest.json").read_text())
    first = m["files"][0]["first_gtid"]
    dom, srv, seq = map(int, first.split("-"))
    want = {f"{dom}-{srv}-{seq + 2}", f"{dom}-{srv}-{seq + 3}", f"{dom}-{srv}-{seq + 7}"}
    spec = f"{dom}-{srv}-{seq + 2}-{seq + 3},{dom}-{srv}-{seq + 7}"

    def gtids(*extra: str) -> list[str]:
        p = subprocess.run([sys.executable, "-m", "binlogwriter", "inspect", *extra, f], capture_output=True,
                           text=True, timeout=300, cwd=REPO_ROOT, check=True)
        return [line.split("GTID ", 1)[1].split()[0] for line in p.stdout.splitlines()
                if "\tGTID " in line or " GTID " in line and line.startswith("#")]

    every = gtids()
    assert set(gtids("--include-gtids", spec)) == want
    # mysqlbinlog prints the ``# at`` line of every event before its GTID filter decides
    # (process_event): the positions stay, the events of other transactions go
    at = [line for line in listing([sys.executable, "-m", "binlogwriter", "inspect", f]) if line.startswith("# at ")]
    shown = listing([sys.executable, "-m", "binlogwriter", "inspect", "--include-gtids", spec, f])
    assert [line for line in shown if line.startswith("# at ")] == at
    assert sum(1 for line in shown if re.match(r"#\d{6} ", line)) < len(at)
    assert set(gtids("--exclude-gtids", spec)) == set(every) - want
    bad = subprocess.run([sys.executable, "-m", "binlogwriter", "inspect", "--include-gtids", "zzz", f],
                         capture_output=True, text=True, timeout=60, cwd=REPO_ROOT)
    assert bad.returncode == 2 and "GTID" in bad.stderr
