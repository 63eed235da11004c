"""The compiled row decoder (binlogwriter.read.rowdecode) reads exactly what the declarative
path reads (docs/design.md principle 5: a fast path is done only when a property test proves it).

1. Row images over every column type (binlogwriter.strategies.codec, MariaDB old temporals with
   their schema fsp) × flavor × random present-columns bitmap × random NULLs × padding bits:
   ``TableDecoder.decode_full`` == ``decode_row_image`` (values, null pad, end position),
   and a cut image gives the same typed error.
2. Whole rows events written by BinlogWriter (binlogwriter.strategies round-trip tables and
   workloads, every flavor × row image × row metadata): ``decode_rows_body`` == the rows the
   declarative ``BinlogReader`` decodes.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from binlogwriter.errors import DecodeError
from binlogwriter.format import BinlogFormat
from binlogwriter.read.rowdecode import AS_DICT, FALLBACKS, decode_rows_body, table_decoder
from binlogwriter.reader import BinlogReader
from binlogwriter.strategies import roundtrip_tables, roundtrip_transactions
from binlogwriter.strategies.codec import ALL_COLUMNS
from binlogwriter.values import ColumnDesc, decode_row_image, encode_row_image
from binlogwriter.values.base import ABSENT
from binlogwriter.values.registry import bind_column
from binlogwriter.values.temporal_fast import fast_temporal_decoder
from binlogwriter.write.transaction import SessionSettings
from binlogwriter.write.writer import BinlogWriter
from tests.test_rows_roundtrip_props import write_workload

FLAVORS = ("mysql80", "mysql84", "mariadb1011")
COMBOS = [(f, i, m) for f in FLAVORS for i in ("FULL", "MINIMAL", "NOBLOB") for m in ("MINIMAL", "FULL")]
DB = "db"


def same(a: Any, b: Any) -> bool:
    """Equal and of the same type, element-wise for tuples (str is not bytes, 1 is not 1.0)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and a != a:
        return b != b
    return type(a) is type(b) and a == b


@st.composite
def old_temporals(draw):
    """MariaDB old TIME/DATETIME/TIMESTAMP (11/12/7) whose fsp comes from the schema."""
    import datetime as dt

    code = draw(st.sampled_from((7, 11, 12)))
    fsp = draw(st.integers(0, 6))
    q = 10 ** (6 - fsp)
    c = ColumnDesc(code, b"", fsp=fsp, flavor="mariadb1011", table="db.t", name=f"o{code}")
    if code == 11:
        us = draw(st.integers(-(838 * 3600 + 3599) * 10**6, (838 * 3600 + 3599) * 10**6)) // q * q
        v = dt.timedelta(microseconds=us)
    elif code == 12:
        v = draw(st.datetimes(dt.datetime(1000, 1, 1)))
        v = v.replace(microsecond=v.microsecond // q * q)
    else:
        secs = draw(st.integers(1, (1 << 31) - 1))
        v = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=secs,
                                                                   microseconds=draw(st.integers(0, 999_999)) // q * q)
    return c, v, v


@st.composite
def images(draw):
    flavor = draw(st.sampled_from(FLAVORS))
    strat = st.one_of(ALL_COLUMNS, old_temporals()) if flavor.startswith("mariadb") else ALL_COLUMNS
    drawn = draw(st.lists(strat, min_size=1, max_size=12))
    cols = tuple(dataclasses.replace(c, name=f"c{i}", flavor=c.flavor if c.type_code in (7, 11, 12) and c.fsp
                                     else flavor) for i, (c, _, _) in enumerate(drawn))
    rows = []
    for _ in range(draw(st.integers(1, 3))):
        present = tuple(draw(st.lists(st.booleans(), min_size=len(cols), max_size=len(cols))))
        vals = tuple(None if draw(st.integers(0, 3)) == 0 else v for (_, v, _) in drawn)
        pad = draw(st.sampled_from((0, -1, 0xA0)))
        rows.append((present, vals, pad))
    return cols, rows


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(images())
def test_compiled_image_equals_declarative(case) -> None:
    cols, rows = case
    dec = table_decoder(cols)
    for present, vals, pad in rows:
        data = b"\x99" + encode_row_image(cols, present, vals, pad) + b"\x77"
        ref = decode_row_image(cols, present, data, 1)
        before = FALLBACKS[0]
        got = dec.decode_full(present, data, 1)
        assert FALLBACKS[0] == before, "the compiled decoder fell back on a valid image"
        assert same(got, ref)
        assert got[2] == len(data) - 1
        # again (memoised values now hit) and as a dict of the present columns by name
        assert same(dec.decode_full(present, data, 1), ref)
        as_dict, pad, end = dec.image(present, AS_DICT)(data, 1)
        assert (pad, end) == ref[1:]
        assert list(as_dict) == [c.name for c, p in zip(cols, present, strict=True) if p]
        assert same(tuple(as_dict.values()), tuple(v for v in ref[0] if v is not ABSENT))
        # a cut image: the same typed error (or, when the cut falls after the image, the same result)
        cut = data[:max(1, got[2] - 1)]
        try:
            ref_cut = decode_row_image(cols, present, cut, 1)
        except DecodeError as exc:
            with pytest.raises(DecodeError) as info:
                dec.decode_full(present, cut, 1)
            assert str(info.value) == str(exc)
        else:
            assert same(dec.decode_full(present, cut, 1), ref_cut)


def _check_file(files: list, table) -> int:
    reader = BinlogReader(files, schemas={f"{DB}.t": table})
    n = 0
    before = FALLBACKS[0]
    for rec in reader.records():
        ev = reader.decode(rec)
        if rec.type_code not in (23, 24, 25, 30, 31, 32, 166, 167, 168, 169, 170, 171):
            continue
        cols = reader.state.columns_for(ev.table_id)
        footer = 4 if rec.fmt.footer_size else 0
        h, rows = decode_rows_body(rec.type_code, rec.data[19:len(rec.data) - footer], cols,
                                   rec.fmt.table_id_size)
        assert (h.table_id, h.rows_flags, h.width) == (ev.table_id, ev.rows_flags, ev.width)
        assert h.present == tuple(ev.columns_present)
        if ev.is_update:
            assert h.after == tuple(ev.columns_after)
            got = [(b, a) for (b, _), (a, _) in rows]
            pads = [(pb, pa) for (_, pb), (_, pa) in rows]
        else:
            got = [v for v, _ in rows]
            pads = [p for _, p in rows]
        assert same(tuple(got), tuple(ev.rows))
        assert pads == list(ev.null_pads)
        n += 1
    assert FALLBACKS[0] == before, "the compiled decoder fell back on a valid rows event"
    return n


@pytest.mark.parametrize("flavor,image,metadata", COMBOS, ids=["-".join(c) for c in COMBOS])
@settings(max_examples=10, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_compiled_rows_events_equal_declarative(flavor: str, image: str, metadata: str, data) -> None:
    gt = data.draw(roundtrip_tables(flavor, database=DB), label="table")
    txs = data.draw(roundtrip_transactions(gt, flavor, image), label="workload")
    st_ = SessionSettings(row_metadata=metadata, row_image=image,
                          row_event_max_size=data.draw(st.sampled_from([8192, 200])))
    with tempfile.TemporaryDirectory() as d:
        with BinlogWriter(Path(d), BinlogFormat.preset(flavor), settings=st_) as w:
            write_workload(w, gt, txs, DB)
        assert _check_file(w.files, gt.table) >= 1


@settings(max_examples=400, deadline=None)
@given(st.sampled_from((17, 18)), st.integers(0, 6), st.data())
def test_fast_temporal_equals_codec(code: int, fsp: int, data) -> None:
    """DATETIME2 / TIMESTAMP2 bytes of any shape (valid, zero dates, invalid days, fractions
    of a second or more, sign bit clear, cut): the fast reader gives the codec's value or
    raises the codec's error."""
    col = ColumnDesc(code, bytes((fsp,)), flavor="mysql80", table="db.t", name="c")
    ref = bind_column(col).decode
    fast = fast_temporal_decoder(code, fsp, ref)
    size = (5 if code == 18 else 4) + (fsp + 1) // 2
    if code == 18 and data.draw(st.booleans()):  # a valid-looking date and time
        y, m, d = data.draw(st.integers(0, 9999)), data.draw(st.integers(0, 12)), data.draw(st.integers(0, 31))
        hms = data.draw(st.integers(0, 23)) << 12 | data.draw(st.integers(0, 59)) << 6 | data.draw(st.integers(0, 59))
        head = ((((y * 13 + m) << 5 | d) << 17 | hms) + 0x8000000000).to_bytes(5, "big")
        raw = head + data.draw(st.binary(min_size=size - 5, max_size=size - 5))
    else:
        raw = data.draw(st.binary(min_size=size, max_size=size))
    buf = b"\x01" + raw[:data.draw(st.sampled_from((size, size, size - 1)))]
    try:
        want = ref(buf, 1)
    except DecodeError as exc:
        with pytest.raises(DecodeError) as info:
            fast(buf, 1)
        assert str(info.value) == str(exc)
    else:
        assert same(fast(buf, 1), want)


@st.composite
def fixed_value_bytes(draw):
    """A DECIMAL(p,s) / DATETIME2 / TIMESTAMP2 column and bytes for it: encoded values
    (negative, zero, -0, largest) or any bytes (digit groups out of range, zero and invalid
    dates, fractions of a second or more), sometimes cut."""
    from decimal import Decimal

    from binlogwriter.values.decimal_binary import decimal_size

    kind = draw(st.sampled_from(("dec", "dec", 17, 18)))
    if kind == "dec":
        p = draw(st.integers(1, 65))
        s = draw(st.integers(0, min(p, 30)))
        col = ColumnDesc(246, bytes((p, s)), flavor="mysql80", table="db.t", name="c")
        size = decimal_size(p, s)
        if draw(st.booleans()):
            digits = draw(st.integers(-(10 ** p - 1), 10 ** p - 1))
            raw = bind_column(col).encode(Decimal(f"{digits}E-{s}"))
            return col, raw
    else:
        fsp = draw(st.integers(0, 6))
        col = ColumnDesc(kind, bytes((fsp,)), flavor="mysql80", table="db.t", name="c")
        size = (5 if kind == 18 else 4) + (fsp + 1) // 2
        if kind == 18 and draw(st.booleans()):  # a valid-looking date and time
            y, m, d = draw(st.integers(0, 9999)), draw(st.integers(0, 12)), draw(st.integers(0, 31))
            hms = draw(st.integers(0, 23)) << 12 | draw(st.integers(0, 59)) << 6 | draw(st.integers(0, 59))
            head = ((((y * 13 + m) << 5 | d) << 17 | hms) + 0x8000000000).to_bytes(5, "big")
            return col, head + draw(st.binary(min_size=size - 5, max_size=size - 5))
    raw = draw(st.binary(min_size=size, max_size=size))
    return col, raw[:draw(st.sampled_from((size, size, size - 1)))]


@settings(max_examples=600, deadline=None)
@given(fixed_value_bytes(), st.booleans())
def test_inline_fixed_values_equal_codec(case, null_before) -> None:
    """The inline DECIMAL / DATETIME2 / TIMESTAMP2 readers of the compiled decoder (read/
    inline_values.py) give the declarative path's value, or its typed error, for any bytes."""
    col, raw = case
    cols = (dataclasses.replace(col, name="a"), col) if null_before else (col,)
    present = (True,) * len(cols)
    image = (b"\x01" if null_before else b"\x00") + raw
    data = b"\x99" + image
    try:
        want = decode_row_image(cols, present, data, 1)
    except DecodeError as exc:
        with pytest.raises(DecodeError) as info:
            table_decoder(cols).decode_full(present, data, 1)
        assert str(info.value) == str(exc)
    else:
        got = table_decoder(cols).decode_full(present, data, 1)
        assert same(got, want)
        assert str(got[0][-1]) == str(want[0][-1])  # a Decimal's digits and exponent too
