"""``inspect -vv`` with mysqlbinlog's filters prints what ``mariadb-binlog`` printed on a real
MariaDB 10.11 binlog (tests/data/inspect_filters/README.md says how both were made).

Compared as the conformance tests compare (tests/conformance/test_inspect_vs_mariadb_binlog.py,
``Sections``): the ``###`` lines, ``# Number of rows`` lines, ``# at`` lines, event header lines
up to their tab and the Table_map / rows summaries, each kind as a sequence.

* ``--stop-position`` inside a statement split over several rows events: the rows events
  before the stop whose statement ends past it print their ``# at`` lines only; at the
  Table_map after an Annotate_rows: the Annotate_rows prints its ``# at`` line only;
* ``--database`` / ``--table``: an Annotate_rows event prints with its statement's first
  Table_map that passes the filter, and only its ``# at`` line when none does.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from binlogwriter.read.filters import EventFilter
from binlogwriter.text import RenderOptions
from binlogwriter.text.listing import write_listing
from tests.conformance.test_inspect_vs_mariadb_binlog import Sections, first_difference

DATA = Path(__file__).resolve().parents[1] / "data" / "inspect_filters"
BINLOG = DATA / "mariadb-10.11-filters.binlog"


def listing(**options) -> Sections:
    stop = options.pop("stop_position", None)
    filt = EventFilter(**options) if options else None
    out = io.StringIO()
    write_listing([str(BINLOG)], out, RenderOptions(verbose=2), stop_position=stop, filt=filt)
    return Sections.of(out.getvalue())


def expected(option: str) -> Sections:
    return Sections.of((DATA / f"mariadb-binlog-vv-{option}.txt").read_bytes().decode("utf-8"))


CASES = [("stop-position=3056", {"stop_position": 3056}), ("stop-position=1045", {"stop_position": 1045}), ("database=d1", {"database": "d1"}),
         ("database=d2", {"database": "d2"}), ("table=u", {"table": "u"})]


@pytest.mark.parametrize(("option", "options"), CASES, ids=[c[0] for c in CASES])
def test_filtered_listing_matches_mariadb_binlog(option: str, options: dict) -> None:
    ours, theirs = listing(**options), expected(option)
    for name in ("rows", "counts", "at", "headers", "summaries"):
        a, b = getattr(ours, name), getattr(theirs, name)
        assert a == b, f"{name} differ at {first_difference(a, b)}"
    assert theirs.at


def test_the_stored_outputs_show_what_the_tests_rely_on() -> None:
    """The stored outputs hold the cases: a stop inside a split statement prints no rows,
    and a database filter drops another database's Annotate_rows header."""
    stop = expected("stop-position=3056")
    assert not stop.rows and "# at 2081" in stop.at
    assert "# at 944" in expected("stop-position=1045").at
    assert "end_log_pos 1045 " not in (DATA / "mariadb-binlog-vv-stop-position=1045.txt").read_text()
    d2 = (DATA / "mariadb-binlog-vv-database=d2.txt").read_text()
    assert "# at 944\n" in d2 and "end_log_pos 1045 " not in d2


XA = sorted((DATA.parent / "xa").glob("mariadb-10.11-xa.0*"))
MULTI = [("start-position=705", {"start_position": 705}), ("stop-position=423", {"stop_position": 423})]


@pytest.mark.parametrize(("option", "options"), MULTI, ids=[c[0] for c in MULTI])
def test_positions_over_several_files_as_mariadb_binlog(option: str, options: dict) -> None:
    """--start-position applies to the first file, --stop-position to the last one."""
    out = io.StringIO()
    write_listing([str(f) for f in XA], out, RenderOptions(verbose=2), **options)
    ours = Sections.of(out.getvalue())
    theirs = Sections.of((DATA.parent / "xa" / f"mariadb-binlog-vv-{option}.txt").read_bytes().decode("utf-8"))
    for name in ("rows", "counts", "at", "headers", "summaries"):
        a, b = getattr(ours, name), getattr(theirs, name)
        assert a == b, f"{name} differ at {first_difference(a, b)}"
    assert len(XA) == 3 and "# at 4" in theirs.at


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "reference"])
def test_start_inside_a_statement_with_triggers_as_mariadb_binlog(fast: bool) -> None:
    """--start-position at the second Table_map of a statement whose table has triggers: the
    rows events of the first table (unseen) print ``### Row event for unknown table #N`` with
    no newline, and the next rows event's ``###`` text follows on that line."""
    d = DATA.parent / "event_headers"
    out = io.StringIO()
    write_listing([str(d / "mariadb-10.11-triggers.000001")], out, RenderOptions(verbose=2),
                  start_position=1487, fast=fast)
    ours = Sections.of(out.getvalue())
    theirs = Sections.of((d / "mariadb-binlog-vv-triggers-start-position=1487.txt").read_bytes().decode("utf-8"))
    for name in ("rows", "counts", "at", "headers", "summaries"):
        a, b = getattr(ours, name), getattr(theirs, name)
        assert a == b, f"{name} differ at {first_difference(a, b)}"
    assert "### Row event for unknown table #20### INSERT INTO `d`.`log`" in theirs.rows
