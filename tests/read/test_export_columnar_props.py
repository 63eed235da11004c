"""The columnar export decoders (binlogwriter.read.arrowcols) give exactly the Arrow batch the
reference path gives (the compiled row decoders' Python values through ``pa.array``, which
tests/read/test_rowdecode_props.py holds equal to the declarative codecs): docs/design.md
principle 5, a fast path is done only when a property test proves it.

1. Rows events built from row images over every column type (binlogwriter.strategies.codec,
   several values per column, MariaDB old temporals with their schema fsp) × flavor ×
   insert/update/delete × random present-columns bitmaps (absent columns, MINIMAL/NOBLOB
   shapes) × random NULLs and null-bitmap padding, long events included: the columnar batch
   equals the reference batch, and the columnar decoders did not decline. A cut event: both
   raise the same located error.
2. Whole files written by BinlogWriter (round-trip tables and workloads, every flavor × row
   image × row metadata): ``iter_table_batches`` equals its ``columnar=False`` reference.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from binlogwriter.errors import BinlogError, DecodeError
from binlogwriter.format import BinlogFormat
from binlogwriter.read.arrowcols import Fallback, column_layout
from binlogwriter.read.changes import RowsPlan, TableInfo
from binlogwriter.read.export import iter_table_batches
from binlogwriter.read.exportbatch import TableBuffer
from binlogwriter.strategies import codec as cs
from binlogwriter.strategies import roundtrip_tables, roundtrip_transactions
from binlogwriter.values import encode_row_image, encode_value
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter
from tests.test_rows_roundtrip_props import write_workload

FLAVORS = ("mysql80", "mysql84", "mariadb1011")
FAMILIES = (cs.integers, cs.floats, cs.decimals, cs.bits, cs.years, cs.dates, cs.times, cs.datetimes,
            cs.timestamps, cs.varchars, cs.chars, cs.blobs, cs.unknown_charset_strings, cs.enums, cs.sets,
            cs.enum_set_unknown, cs.geometries, cs.jsons)
TYPES = {"insert": 30, "update": 31, "delete": 32}  # the v2 rows events (format.md §13)


def batches_equal(a: pa.RecordBatch, b: pa.RecordBatch) -> bool:
    if a.schema != b.schema or a.num_rows != b.num_rows:
        return False
    for x, y in zip(a.columns, b.columns, strict=True):
        if pa.types.is_floating(x.type):  # NaN: the same bits
            x, y = (v.view(pa.int32() if x.type == pa.float32() else pa.int64()) for v in (x, y))
        if not x.equals(y):
            return False
    return True


@st.composite
def tables(draw, families=FAMILIES, max_columns=8, more_values=3):
    """(columns, per column a list of values that column holds) over ``families``."""
    flavor = draw(st.sampled_from(FLAVORS))
    cols, values = [], []
    for i in range(draw(st.integers(1, max_columns))):
        fam = draw(st.sampled_from(families))
        c, v, _ = draw(fam())
        c = dataclasses.replace(c, name=f"c{i}", table="db.t",
                                flavor=c.flavor if c.type_code in (7, 11, 12) and c.fsp else flavor)
        vals = [v]
        for _ in range(draw(st.integers(0, more_values))):  # more values of the family that fit this column
            _, w, _ = draw(fam())
            try:
                encode_value(c, w)
            except (BinlogError, ValueError, TypeError):
                continue
            vals.append(w)
        cols.append(c)
        values.append(vals)
    return tuple(cols), values


def _reference_or_its_error(buf):
    """The reference reader's batch of ``buf``; None when it refuses the bytes, after checking
    that :meth:`batch` raises the same located error."""
    try:
        return buf._reference()
    except DecodeError as exc:
        with pytest.raises(DecodeError) as info:
            buf.batch()
        assert str(info.value) == str(exc)
        return None


@st.composite
def events(draw, cols, values):
    """Rows events of one table: (op, present, after, rows bytes); a 7-row event makes the
    columnar walker finish it in Python (few long events)."""
    n = len(cols)
    bitmap = st.lists(st.booleans(), min_size=n, max_size=n).filter(any)
    full = tuple([True] * n)
    out = []
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(tuple(TYPES)))
        present = tuple(draw(bitmap)) if draw(st.booleans()) else full
        after = (tuple(draw(bitmap)) if draw(st.booleans()) else full) if op == "update" else None
        nrows = draw(st.sampled_from((1, 1, 2, 3, 7)))
        pad = draw(st.sampled_from((0, -1, 0xA0)))
        rows = b""
        for _ in range(nrows):
            for bm in (present, after) if after is not None else (present,):
                vals = [None if draw(st.integers(0, 3)) == 0 else draw(st.sampled_from(vs)) for vs in values]
                rows += encode_row_image(cols, bm, vals, pad)
        out.append((op, present, after, rows))
    return out


def buffer_of(cols, evs, share_plans: bool) -> TableBuffer:
    info = TableInfo("db", "t", cols, None)
    buf = TableBuffer(info, True)
    plans: dict = {}
    for k, (op, present, after, rows) in enumerate(evs):
        key = (op, present, after) if share_plans else k
        plan = plans.get(key) or plans.setdefault(key, RowsPlan(info, present, after))
        buf.add(plan, TYPES[op], rows, f"0-1-{k // 2}", "binlog.000001", 100 + 10 * k, 1_700_000_000 + k)
    return buf


def check_events(data, cols, values) -> None:
    evs = data.draw(events(cols, values), label="events")
    buf = buffer_of(cols, evs, data.draw(st.booleans(), label="share plans"))
    ref = buf._reference()
    try:
        got = buf._columnar()
    except Fallback:
        # only a column whose byte layout the walker does not know may decline a whole batch
        assert any(column_layout(c) is None for c in cols), "the columnar decoders declined valid events"
        return
    assert batches_equal(got, ref), (got.to_pylist()[:3], ref.to_pylist()[:3])
    # batch() is the columnar result; a cut event: the reference's located error
    assert batches_equal(buf.batch(), ref)
    op, present, after, rows = evs[-1]
    if len(rows) > 1:
        evs[-1] = (op, present, after, rows[:-1])
        cut = buffer_of(cols, evs, True)
        want = _reference_or_its_error(cut)
        if want is not None:  # the cut still ends on an image boundary
            assert batches_equal(cut.batch(), want)


SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large]


@settings(max_examples=100, deadline=None, suppress_health_check=SLOW)
@given(st.data())
def test_columnar_batch_equals_reference(data) -> None:
    """Tables mixing every type family."""
    cols, values = data.draw(tables(), label="table")
    check_events(data, cols, values)


@pytest.mark.parametrize("family", FAMILIES, ids=[f.__name__ for f in FAMILIES])
@settings(max_examples=15, deadline=None, suppress_health_check=SLOW)
@given(data=st.data())
def test_columnar_family_equals_reference(family, data) -> None:
    """One type family, several columns, many values per column (edge values among plain ones)."""
    cols, values = data.draw(tables((family,), max_columns=3, more_values=8), label="table")
    check_events(data, cols, values)


@st.composite
def one_width_text(draw, min_columns=60, max_columns=300):
    """(columns, values): CHAR / VARCHAR / BLOB columns (text in every collation, multibyte
    included, and binary) whose values in a column are the same characters reordered, so of
    one byte width (sysbench's c and pad): the spans the columnar path gathers as rows of a
    window (arrowbuild.span_bytes), with NULLs among them."""
    flavor = draw(st.sampled_from(FLAVORS))
    cols, values = [], []
    for i in range(draw(st.integers(min_columns, max_columns))):
        c, v, _ = draw(st.sampled_from((cs.chars, cs.varchars, cs.blobs)).flatmap(lambda f: f()))
        c = dataclasses.replace(c, name=f"c{i}", table="db.t", flavor=flavor)
        vals = [v]
        for _ in range(draw(st.integers(0, 3))):
            w = draw(st.permutations(list(v)))
            vals.append(bytes(w) if isinstance(v, bytes) else "".join(w))
        cols.append(c)
        values.append(vals)
    return tuple(cols), values


@settings(max_examples=20, deadline=None, suppress_health_check=SLOW)
@given(st.data())
def test_columnar_one_width_text_equals_reference(data) -> None:
    """Wide tables (60-300 columns) of text whose values in a column share one byte width."""
    cols, values = data.draw(one_width_text(), label="table")
    check_events(data, cols, values)


COMBOS = [(f, i, m) for f in FLAVORS for i in ("FULL", "MINIMAL", "NOBLOB") for m in ("MINIMAL", "FULL")]


@pytest.mark.parametrize("flavor,image,metadata", COMBOS, ids=["-".join(c) for c in COMBOS])
@settings(max_examples=4, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=SLOW)
@given(data=st.data())
def test_columnar_files_equal_reference(flavor: str, image: str, metadata: str, data) -> None:
    gt = data.draw(roundtrip_tables(flavor, database="db"), label="table")
    txs = data.draw(roundtrip_transactions(gt, flavor, image), label="workload")
    settings_ = SessionSettings(row_metadata=metadata, row_image=image,
                                row_event_max_size=data.draw(st.sampled_from([8192, 200])))
    with tempfile.TemporaryDirectory() as d:
        with BinlogWriter(Path(d), BinlogFormat.preset(flavor), settings=settings_) as w:
            write_workload(w, gt, txs, "db")
        schemas = {f"db.{gt.table.name}": gt.table}
        got = list(iter_table_batches(w.files, schemas=schemas, batch_rows=7))
        ref = list(iter_table_batches(w.files, schemas=schemas, batch_rows=7, columnar=False))
    assert [k for k, _ in got] == [k for k, _ in ref]
    assert got, "no rows exported"
    for (_, a), (_, b) in zip(got, ref, strict=True):
        assert batches_equal(a, b)


RAW_FAMILIES = (cs.integers, cs.floats, cs.decimals, cs.dates, cs.datetimes, cs.timestamps, cs.times, cs.years,
                cs.bits, cs.varchars, cs.chars, cs.blobs, cs.enums, cs.sets)


@pytest.mark.parametrize("family", RAW_FAMILIES, ids=[f.__name__ for f in RAW_FAMILIES])
@settings(max_examples=30, deadline=None, suppress_health_check=SLOW)
@given(data=st.data())
def test_columnar_any_bytes_equal_reference(family, data) -> None:
    """Values of any bytes no encoder writes (zero and invalid dates, fractions of a second or
    more, sign bits, NaN, DECIMAL groups out of range, CHAR ending with its pad, invalid
    UTF-8): the same batch, or the same located error."""
    c, _, _ = data.draw(family(), label="column")
    if c.type_code in (15, 252, 253, 254) and data.draw(st.booleans()):  # UTF-8 text (the columnar path)
        c = dataclasses.replace(c, collation=data.draw(st.sampled_from((45, 33, 255, 63))))
    c = dataclasses.replace(c, name="c0", table="db.t")
    layout = column_layout(c)
    if layout is None:
        return
    fixed, n = layout
    rows = b""
    for _ in range(data.draw(st.integers(1, 8), label="rows")):
        if fixed:
            value = data.draw(st.one_of(st.binary(min_size=n, max_size=n), st.sampled_from(
                (b"\xff" * n, b"\x7f" + b"\xff" * (n - 1), b"\x00" * n, b"\x80" + b"\x00" * (n - 1)))))
        else:
            if data.draw(st.booleans()):
                body = data.draw(st.binary(max_size=12))
            else:  # text, often ending with a CHAR's pad
                body = (data.draw(st.text(max_size=6)) + data.draw(st.sampled_from((" ", "", "\x00")))).encode()
            value = len(body).to_bytes(n, "little") + body
        rows += b"\x00" + value
    buf = buffer_of((c,), [("insert", (True,), None, rows)], True)
    want = _reference_or_its_error(buf)
    if want is None:
        return
    assert batches_equal(buffer_of((c,), [("insert", (True,), None, rows)], True)._columnar(), want)
