"""The fast ``inspect`` listing (binlogwriter.text.listing) prints exactly what the reference
path prints: every event decoded by the reader and rendered by ``render_event``
(docs/design.md principle 5: a fast path is done only when a property test proves it).

1. Files written by BinlogWriter from hypothesis-drawn tables and transactions
   (binlogwriter.strategies.binlogs: every flavor, row image, row metadata, MySQL compressed
   transactions, rows events split small, rotations) × ``-v`` level ×
   ``--print-table-metadata``; and the real MariaDB 10.11 files of tests/data/row_images.
   (MariaDB compressed events go through the listing in
   tests/conformance/test_inspect_vs_mariadb_binlog.py, against mariadb-binlog itself.)
2. Generated runs of every workload × flavor (small: tens of transactions), where the
   shortcuts (repeated Query/Table_map bodies, XIDs, compiled rows) carry most events.
3. Errors: a file whose CRC32 is broken in the middle gives the same located error after
   the same text.
4. The ``###`` printer compiled per image equals the line-by-line printer.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.errors import BinlogError
from binlogwriter.strategies import binlogs
from binlogwriter.text import RenderOptions
from binlogwriter.text.listing import write_listing
from tests.read.test_fastverify_props import frame, headers, mutated, mysql_gtids

FLAVORS = ("mysql80", "mysql84", "mariadb1011")


def listing(files, opts: RenderOptions, *, fast: bool, **kw) -> tuple[str, str | None]:
    """(text written, error message or None)."""
    out = io.StringIO()
    try:
        write_listing([str(f) for f in files], out, opts, fast=fast, **kw)
    except BinlogError as exc:
        return out.getvalue(), str(exc)
    return out.getvalue(), None


def assert_same(files, opts: RenderOptions, **kw) -> str:
    ref, ref_err = listing(files, opts, fast=False, **kw)
    got, err = listing(files, opts, fast=True, **kw)
    assert err == ref_err
    a, b = got.split("\n"), ref.split("\n")
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        assert x == y, f"line {i}: fast {x!r} != reference {y!r}"
    assert len(a) == len(b)
    return ref


@pytest.mark.parametrize("flavor", FLAVORS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fast_listing_equals_reference_on_written_binlogs(flavor: str, data: st.DataObject) -> None:
    case = data.draw(binlogs(flavor=flavor, max_tables=3, max_transactions=4))
    verbose = data.draw(st.sampled_from((0, 1, 2, 2)))
    meta = data.draw(st.booleans())
    with case:
        text = assert_same(case.files, RenderOptions(verbose=verbose, print_table_metadata=meta))
        assert "# at 4\n" in text


@pytest.mark.parametrize("name", ("mariadb-10.11-minimal-inserts.binlog", "mariadb-10.11-noblob-inserts.binlog"))
def test_fast_listing_equals_reference_on_real_server_files(name: str) -> None:
    f = Path(__file__).resolve().parents[1] / "data" / "row_images" / name
    for verbose in (1, 2):
        assert "###" in assert_same([f], RenderOptions(verbose=verbose, print_table_metadata=True))


WORKLOADS = ("sysbench", "ecommerce", "alltypes")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[tuple[str, str], Path]:
    from generators.engine import generate
    from generators.spec import Spec

    base = tmp_path_factory.mktemp("listing-runs")
    out = {}
    for w in WORKLOADS:
        for f in ("mysql80", "mariadb1011"):
            d = base / f"{w}-{f}"
            generate(Spec.from_dict({"workload": w, "flavor": f, "transactions": 40, "initial_rows": 5,
                                     "seed": 7}), d)
            out[w, f] = d
    yield out
    shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("flavor", ("mysql80", "mariadb1011"))
@pytest.mark.parametrize("workload", WORKLOADS)
def test_fast_listing_equals_reference_on_generated_runs(runs, workload: str, flavor: str) -> None:
    files = sorted(runs[workload, flavor].glob("binlog.0*"))
    for verbose in (0, 2):
        text = assert_same(files, RenderOptions(verbose=verbose, print_table_metadata=verbose == 2))
        assert ("###   @1=" in text) == (verbose == 2)


def test_positions_select_the_same_events(runs) -> None:
    files = sorted(runs["sysbench", "mariadb1011"].glob("binlog.0*"))
    size = files[0].stat().st_size
    text = assert_same(files, RenderOptions(verbose=2), start_position=size // 3, stop_position=2 * size // 3)
    at = [int(line[5:]) for line in text.split("\n") if line.startswith("# at ")]
    assert at and size // 3 <= at[0] and at[-1] < 2 * size // 3


def test_a_broken_checksum_stops_both_at_the_same_place(runs, tmp_path: Path) -> None:
    src = sorted(runs["ecommerce", "mysql80"].glob("binlog.0*"))[0]
    data = bytearray(src.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad = tmp_path / "binlog.000001"
    bad.write_bytes(bytes(data))
    text, err = listing([bad], RenderOptions(verbose=2), fast=True)
    assert err is not None and str(bad) in err
    assert text == listing([bad], RenderOptions(verbose=2), fast=False)[0]
    assert text.count("# at ") > 10


@st.composite
def printed_images(draw):
    from binlogwriter.strategies.codec import ALL_COLUMNS

    family = draw(st.sampled_from(("mariadb", "mysql")))
    drawn = draw(st.lists(ALL_COLUMNS, min_size=1, max_size=10))
    cols = [c for c, _, _ in drawn]
    present = tuple(draw(st.lists(st.booleans(), min_size=len(cols), max_size=len(cols))))
    vals = tuple(None if draw(st.integers(0, 3)) == 0 else v for (_, v, _) in drawn)
    nullable = draw(st.lists(st.booleans(), min_size=len(cols), max_size=len(cols)))
    return family, cols, present, vals, nullable, draw(st.sampled_from((1, 2)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(printed_images())
def test_compiled_image_printer_equals_line_printer(case) -> None:
    """``_ImagePrinter.block`` (one compiled function per image, integers inline) prints the
    lines ``_ImagePrinter.lines`` prints value by value, full width and compact."""
    from binlogwriter.text.columns import field_metadata
    from binlogwriter.text.rows import ImagePrinter
    from binlogwriter.values import decode_row_image, encode_row_image

    family, cols, present, vals, nullable, verbose = case
    # the values as the codecs decode them (the printer's input)
    decoded, _, _ = decode_row_image(cols, present, encode_row_image(cols, present, vals, 0), 0)
    types = [c.type_code for c in cols]
    metas = [field_metadata(c.type_code, bytes(c.meta)) for c in cols]
    pr = ImagePrinter(cols, types, metas, nullable, verbose, family)
    try:
        want = "".join("\n" + line for line in pr.lines(present, decoded))
    except ValueError:  # a type the printer refuses: the compiled one refuses it too
        with pytest.raises(ValueError):
            pr.block(present)(decoded)
        return
    assert pr.block(present)(decoded) == want
    compact = tuple(v for v, p in zip(decoded, present, strict=True) if p)
    assert pr.block(present, compact=True)(compact) == want


@pytest.mark.parametrize("unsigned", (False, True))
@pytest.mark.parametrize(("code", "width"), ((1, 1), (2, 2), (9, 3), (3, 4), (8, 8)))
def test_compiled_integers_at_their_limits(code: int, width: int, unsigned: bool) -> None:
    """Integers are printed inline below the sign bit and by the codec's renderer from it on
    (``-1 (255)``): at the limits both print what ``render_value`` prints."""
    from binlogwriter.text.rows import ImagePrinter
    from binlogwriter.values import ColumnDesc
    from binlogwriter.values.render import render_value

    col = ColumnDesc(code, b"", unsigned=unsigned)
    half = 1 << (8 * width - 1)
    edges = (0, 1, half - 1, half, half + 1, 2 * half - 1) if unsigned else (0, 1, half - 1, -1, -half)
    pr = ImagePrinter([col], [code], [0], [True], 2, "mariadb")
    for v in edges:
        assert pr.block((True,))((v,)) == f"\n###   @1={render_value(col, v)}" + pr._column(0)[2]
    if unsigned:  # the edge where the inline text would be wrong
        assert render_value(col, half) != str(half)


@settings(max_examples=600, deadline=None)
@given(st.data())
def test_gtid_text_from_bytes_equals_the_event_text(data) -> None:
    """GTID / ANONYMOUS_GTID text read from the bytes (text/listing.py mysql_gtid_lines) is the
    text render_tail gives the event the fast GTID reader builds, and None exactly when that
    reader refuses the bytes: hand-drawn bodies (flags over equal values, non-canonical packed
    lengths, junk, cut or changed bytes)."""
    from binlogwriter.format import BinlogFormat
    from binlogwriter.read.fastdecode import mysql_gtid
    from binlogwriter.text import render_tail
    from binlogwriter.text.listing import mysql_gtid_lines

    t, body, _ = data.draw(mysql_gtids())
    h = data.draw(headers)
    d = frame(t, mutated(data.draw, body), *h)
    end = len(d) - 4
    ev = mysql_gtid(t, d, end, BinlogFormat.preset("mysql80"), 0, 0, 0, 0)
    got = mysql_gtid_lines(t, d, end)
    assert got == (None if ev is None else "\n".join(render_tail(ev)))
