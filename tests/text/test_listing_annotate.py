"""Annotate_rows events in the ``inspect`` listing: printed as mariadb-binlog prints them
(issue #27).

mariadb-binlog keeps the last Annotate_rows event it read and prints it with the next
Table_map; a later Annotate_rows replaces it, a rows event ending its statement (STMT_END_F)
or the end of the listing drops it (mysqlbinlog.cc). The listing prints events at their own
place, so an Annotate_rows that mariadb-binlog never prints keeps only its ``# at`` line. A
MariaDB file written by BinlogWriter with annotations gets extra Annotate_rows events at drawn
places (two in a row, before an XID, at the end, between a Table_map and its rows); the fast
listing and the reference listing print the same text, and the ``#Q>`` lines are those of the
model above, computed from the event types alone.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.text import RenderOptions
from binlogwriter.text.listing import write_listing
from tests.test_gtid_reading import save, write

STMT_END_F = 1


def _source() -> list[bytes]:
    with tempfile.TemporaryDirectory() as d:
        return write(Path(d), "mariadb1011", n=4, rows_query=True)[1]


EVENTS = _source()


def annotate(like: bytes, text: str) -> bytes:
    return like[:4] + bytes([160]) + like[5:19] + text.encode() + b"\0\0\0\0"


def printed_annotations(events: list[bytes], stop: int | None) -> list[str]:
    """The ``#Q>`` lines mariadb-binlog prints for ``events`` (offsets below ``stop``)."""
    out: list[str] = []
    kept = None
    pos = 4
    for ev in events:
        if stop is not None and pos >= stop:
            break
        pos += len(ev)
        t = ev[4]
        if t == 160:
            kept = ev[19:-4].decode()
        elif t == 19 and kept is not None:
            out.append(f"#Q> {kept}")
            kept = None
        elif t in (23, 24, 25) and int.from_bytes(ev[19 + 6 : 19 + 8], "little") & STMT_END_F:
            kept = None
    return out


def listing(path: Path, fast: bool, stop: int | None, verbose: int) -> str:
    out = io.StringIO()
    write_listing([str(path)], out, RenderOptions(verbose=verbose), fast=fast, stop_position=stop)
    return out.getvalue()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_annotations_print_as_mariadb_binlog_keeps_them(tmp_path_factory, data) -> None:
    evs = list(EVENTS)
    first = next(i for i, e in enumerate(evs) if e[4] == 162)
    places = data.draw(st.lists(st.integers(first, len(evs)), min_size=1, max_size=6), label="places")
    for k, at in enumerate(sorted(places, reverse=True)):
        evs.insert(at, annotate(EVENTS[first], f"UPDATE extra {k}"))
    path = save(tmp_path_factory.mktemp("annotate"), evs)
    offsets = [4]
    for e in evs:
        offsets.append(offsets[-1] + len(e))
    stop = data.draw(st.none() | st.sampled_from(offsets[first:]), label="stop")
    verbose = data.draw(st.sampled_from([0, 2]), label="verbose")
    fast = listing(path, True, stop, verbose)
    assert fast == listing(path, False, stop, verbose)
    assert [line for line in fast.split("\n") if line.startswith("#Q>")] == printed_annotations(evs, stop)
    # every event keeps its ``# at`` line
    assert fast.count("# at ") == sum(1 for o in offsets[:-1] if stop is None or o < stop)


def test_second_of_two_annotations_is_the_one_printed(tmp_path) -> None:
    evs = list(EVENTS)
    i = next(i for i, e in enumerate(evs) if e[4] == 160)
    evs.insert(i + 1, annotate(evs[i], "UPDATE second"))
    path = save(tmp_path, evs)
    text = listing(path, True, None, 2)
    at_first = 4 + sum(len(e) for e in evs[:i])
    at_second = at_first + len(evs[i])
    # the first keeps its position only; the second prints, then the Table_map
    assert f"# at {at_first}\n# at {at_second}\n#" in text
    assert "#Q> UPDATE second\n# at " in text
    assert text.count("#Q> ") == 4 and text.count("Annotate_rows:") == 4
