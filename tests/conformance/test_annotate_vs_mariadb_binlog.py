"""Annotate_rows events that mariadb-binlog never prints (issue #27), against mariadb-binlog.

A MariaDB file written by BinlogWriter with annotations, patched: a second Annotate_rows right
after a statement's own (it replaces the first before the Table_map), one between a Table_map
and its rows event (the statement ends before a Table_map prints it), one before an XID and
one at the end of the file (no Table_map follows them). ``inspect -vv`` prints the same ``# at``
lines, event header lines, rows and ``#Q>`` lines as ``mariadb-binlog -vv
--base64-output=decode-rows``, also with ``-d`` and ``--stop-position``: an Annotate_rows it
drops keeps only its ``# at`` line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_gtid_reading import nth, save, write
from tests.text.test_listing_annotate import annotate

from .mariadb import find_binary
from .test_inspect_vs_mariadb_binlog import REPO_ROOT, Sections, assert_same_listing, first_difference

pytestmark = pytest.mark.conformance


def _file(tmp_path: Path) -> Path:
    fmt, evs = write(tmp_path, "mariadb1011", rows_query=True)
    first = nth(evs, 160, 1)
    xid = nth(evs, 16, 1)
    evs.insert(len(evs) - 1, annotate(evs[first], "DELETE at the end"))  # before the STOP event
    evs.insert(xid, annotate(evs[first], "UPDATE before an xid"))
    tm = nth(evs, 19, 2)
    evs.insert(tm + 1, annotate(evs[first], "UPDATE between map and rows"))
    evs.insert(first + 1, annotate(evs[first], "UPDATE second of two"))
    return save(tmp_path, evs)


def _texts(path: Path, args: list[str]) -> tuple[str, str]:
    ours = subprocess.run(
        [sys.executable, "-m", "binlogwriter", "inspect", "-vv", *args, str(path)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    theirs = subprocess.run(
        [find_binary("mariadb-binlog"), "-vv", "--base64-output=decode-rows", *args, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        env={**os.environ, "TZ": "UTC"},
    )
    return ours.stdout, theirs.stdout


def test_dropped_annotations_match_mariadb_binlog(tmp_path: Path) -> None:
    path = _file(tmp_path)
    assert_same_listing([path])
    ours, theirs = _texts(path, [])
    q = [line for line in theirs.split("\n") if line.startswith("#Q>")]
    assert q == [
        "#Q> INSERT INTO `test`.`t` /* 1 row */",
        "#Q> UPDATE second of two",
        "#Q> INSERT INTO `test`.`t` /* 1 row */",
    ]
    assert [line for line in ours.split("\n") if line.startswith("#Q>")] == q


@pytest.mark.parametrize("args", [["-d", "test"], ["-d", "other"], ["--stop-position", "800"]])
def test_dropped_annotations_match_mariadb_binlog_with_filters(tmp_path: Path, args: list[str]) -> None:
    ours, theirs = _texts(_file(tmp_path), args)
    a, b = Sections.of(ours), Sections.of(theirs)
    for name in ("rows", "counts", "at", "headers", "summaries"):
        assert getattr(a, name) == getattr(b, name), (
            f"{name} differ at {first_difference(getattr(a, name), getattr(b, name))}"
        )
    q = [[line for line in text.split("\n") if line.startswith("#Q>")] for text in (ours, theirs)]
    assert q[0] == q[1]
