"""Annotate_rows events that mariadb-binlog never prints (issue #27), against mariadb-binlog.

A MariaDB file written by BinlogWriter with annotations, patched: a second Annotate_rows right
after a statement's own (it replaces the first before the Table_map), one before an XID and
one at the end of the file (no Table_map follows them). ``inspect -vv`` prints the same ``# at``
lines, event header lines, rows and ``#Q>`` lines as ``mariadb-binlog -vv
--base64-output=decode-rows``: an Annotate_rows it drops keeps only its ``# at`` line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_gtid_reading import nth, save, write
from tests.test_listing_annotate import annotate

from .test_inspect_vs_mariadb_binlog import assert_same_listing, inspect_output, mariadb_output

pytestmark = pytest.mark.conformance


def test_dropped_annotations_match_mariadb_binlog(tmp_path: Path) -> None:
    fmt, evs = write(tmp_path, "mariadb1011", rows_query=True)
    first = nth(evs, 160, 1)
    xid = nth(evs, 16, 1)
    evs.insert(len(evs) - 1, annotate(evs[first], "DELETE at the end"))  # before the STOP event
    evs.insert(xid, annotate(evs[first], "UPDATE before an xid"))
    evs.insert(first + 1, annotate(evs[first], "UPDATE second of two"))
    path = save(tmp_path, evs)
    listing = assert_same_listing([path])
    assert listing.headers
    ours = [line for line in inspect_output([path]).split("\n") if line.startswith("#Q>")]
    theirs = [line for line in mariadb_output([path]).split("\n") if line.startswith("#Q>")]
    assert theirs == [
        "#Q> INSERT INTO `test`.`t` /* 1 row */",
        "#Q> UPDATE second of two",
        "#Q> INSERT INTO `test`.`t` /* 1 row */",
    ]
    assert ours == theirs
