"""Every form of a type family gives what its scalar codec gives (issue #30 item 2, the layout
homes values/decimal_binary.py and values/temporal_layout.py; docs/adding-a-type.md).

A family's bytes are written and read in several places besides its bound codec's scalar
``encode`` / ``decode``: the array encoder (``encode_array``), the compiled row decoders
(read/rowdecode.py with read/inline_values.py), the fast temporal readers
(values/temporal_fast.py), the Arrow builders (read/arrowfamilies.py) and the canonical
verifier (read/canonical.py). These property tests draw DECIMAL of every precision 1..65 and
scale 0..30 and DATETIME2 / TIMESTAMP2 / TIME2 of every fsp, with zero, negative and edge
values and arbitrary bytes, and fail as soon as one form disagrees with the scalar codec. The
layouts themselves are checked against vectors written out from the server's source
(``strings/decimal.cc``'s own example) and by hand from values.md §3 / §4.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.errors import BinlogError
from binlogwriter.read.arrowcols import PAD, Fallback
from binlogwriter.read.arrowfamilies import ColumnBuilder
from binlogwriter.read.canonical import fixed_rule
from binlogwriter.read.rowdecode import table_decoder
from binlogwriter.values import ColumnDesc, bind_column
from binlogwriter.values._common import REGISTRY
from binlogwriter.values.decimal_binary import decimal_size, digit_groups
from binlogwriter.values.families import FAMILIES, META_SIZE
from binlogwriter.values.temporal_fast import fast_temporal_decoder
from binlogwriter.values.temporal_layout import FRACTIONS

# -- the registry -------------------------------------------------------------------------


def test_every_codec_has_a_family_and_a_metadata_size() -> None:
    """A codec registered without a family, or whose metadata size is not the one table's."""
    owned = {c for m in FAMILIES.values() for c in m.TYPE_CODES}
    for code, codec in REGISTRY.items():
        assert code in owned or code == 6, f"type code {code} ({type(codec).__name__}) is in no family"
        assert META_SIZE[code] == codec.meta_layout.sizeof(), code


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_every_face_is_exported(name: str) -> None:
    """The faces are the family's public names: each is in its ``__all__``."""
    mod = FAMILIES[name]
    faces = {"FAMILY", "SQL_TYPES", "TYPE_CODES", "binlog_type", "binlog_meta", "renderer",
             "truth_renderer", "arrow_type", "type_text"}
    assert faces <= set(mod.__all__), f"{name}: {sorted(faces - set(mod.__all__))} not exported"


# -- DECIMAL ---------------------------------------------------------------------------------


def test_decimal_layout_vectors() -> None:
    """``strings/decimal.cc`` (decimal2bin's comment): 1234567890.1234 as DECIMAL(14,4) is
    ``81 0D FB 38 D2 04 D2``, its negative the complement with the sign bit clear."""
    b = bind_column(ColumnDesc(246, bytes((14, 4))))
    assert b.encode(Decimal("1234567890.1234")).hex() == "810dfb38d204d2"
    assert b.encode(Decimal("-1234567890.1234")).hex() == "7ef204c72dfb2d"
    assert decimal_size(14, 4) == 7 and decimal_size(65, 30) == 30 and decimal_size(18, 9) == 8
    # the groups of DECIMAL(14,4): 4 fraction digits in 2 bytes, 9 integer digits in 4, 1 in 1
    assert [(g.size, g.digits) for g in digit_groups(14, 4)] == [(2, 4), (4, 9), (1, 1)]
    # DECIMAL(20,10): 1 integer digit ahead of a group of 9, the fraction a group of 9 and 1 digit
    assert [(g.size, g.digits) for g in digit_groups(20, 10)] == [(1, 1), (4, 9), (4, 9), (1, 1)]


@st.composite
def decimal_columns(draw) -> tuple[ColumnDesc, list[Decimal]]:
    """DECIMAL(p, s), p 1..65 and s 0..min(p, 30), and values: zero, ±1 unit, the largest and
    smallest, and any digits in between."""
    p = draw(st.integers(1, 65))
    s = draw(st.integers(0, min(p, 30)))
    unsigned = draw(st.booleans())
    top = 10 ** p - 1
    edges = [u for u in (0, 1, -1, top, -top, 10 ** s, -(10 ** s)) if abs(u) <= top]  # 10^s: 1.000
    units = st.one_of(st.sampled_from(edges),
                      st.integers(-top, top))
    vals = draw(st.lists(units, min_size=1, max_size=20))
    if unsigned:
        vals = [abs(v) for v in vals]
    col = ColumnDesc(246, bytes((p, s)), unsigned=unsigned, table="t", name="d")
    return col, [Decimal(f"{v}E-{s}") for v in vals]  # exact: no context rounding of 65 digits


def _raw(values: list[bytes]) -> tuple[np.ndarray, bytes, np.ndarray, np.ndarray, np.ndarray]:
    """A batch of value spans as the Arrow builders take it (buf, raw, start, size, valid)."""
    raw = b"".join(values)
    sizes = np.array([len(v) for v in values], dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    buf = np.frombuffer(raw + bytes(PAD), dtype=np.uint8)
    return buf, raw, start, sizes, np.ones(len(values), dtype=bool)


def _arrow_agrees(col: ColumnDesc, values: list[bytes]) -> None:
    """The builder's fast array equals its reference (the compiled decoder, value by value),
    or both refuse the batch with a located error."""
    if not values:
        return
    builder = ColumnBuilder(col)
    args = _raw(values)
    try:
        want: object = builder.reference(*args)
    except BinlogError:
        want = BinlogError
    try:
        have: object = builder.build(*args)
    except Fallback:  # the export takes the reference for this batch: nothing to compare
        return
    except BinlogError:
        have = BinlogError
    assert have is want if want is BinlogError else have is not BinlogError and have.equals(want), \
        (col, [v.hex() for v in values])


def _decoders_agree(col: ColumnDesc, data: bytes) -> None:
    """The compiled decoder reads ``data`` as the scalar codec does (value or error)."""
    bound = bind_column(col)
    try:
        want: object = bound.decode(data, 0)
    except BinlogError:
        want = BinlogError
    compiled = table_decoder((col,)).image((True,))
    try:
        got, _, end = compiled(b"\0" + data, 0)
        have: object = (got[0], end - 1)
    except BinlogError:
        have = BinlogError
    assert have == want, (col, data.hex())
    if want is not BinlogError:
        assert str(have[0]) == str(want[0])  # type: ignore[index]  # the same scale digits


def _gives_back(col: ColumnDesc, b: bytes) -> bool:
    """Decoding ``b`` and encoding the value gives ``b`` (the canonical verifier's question)."""
    bound = bind_column(col)
    try:
        return bound.encode(bound.decode(b, 0)[0]) == b
    except BinlogError:
        return False


@settings(max_examples=200, deadline=None)
@given(decimal_columns(), st.data())
def test_decimal_forms_agree_with_the_scalar_codec(case, data) -> None:
    col, vals = case
    p, s = col.meta[0], col.meta[1]
    bound = bind_column(col)
    encoded = [bound.encode(v) for v in vals]
    assert {len(b) for b in encoded} == {decimal_size(p, s)}
    for v, b in zip(vals, encoded, strict=True):
        back, end = bound.decode(b, 0)
        assert back == v and end == len(b) and back.as_tuple().exponent == -s
    # the array encoder (int64 units at the column's scale)
    units = [int(f"{'-' if v.is_signed() else ''}{''.join(map(str, v.as_tuple().digits))}") for v in vals]
    if all(-(1 << 63) < u < 1 << 63 for u in units):
        out = bound.encode_array("dec", np.array(units, dtype=np.int64), s)
        if out is not None:
            assert [bytes(r) for r in out[0].data] == encoded
    # the compiled decoder, the canonical verifier and the Arrow builder, on the values and on
    # any bytes of the value's size (digit groups out of range, negative zero, …)
    size, holds = fixed_rule(col)
    junk = [data.draw(st.binary(min_size=size, max_size=size)) for _ in range(4)]
    # one digit group at 10^digits (just out of range) or every group at its largest, ±
    groups = digit_groups(p, s)
    over = data.draw(st.integers(0, len(groups)))
    x = sum((10 ** g.digits if k == over else 10 ** g.digits - 1) << g.shift for k, g in enumerate(groups))
    for mag in (x, 1 << groups[over % len(groups)].shift):
        pos = mag ^ (1 << (8 * size - 1))
        junk += [pos.to_bytes(size, "big"), (pos ^ ((1 << 8 * size) - 1)).to_bytes(size, "big")]
    for b in encoded + junk:
        _decoders_agree(col, b)
        assert holds(b) == _gives_back(col, b), (col, b.hex())
    _arrow_agrees(col, encoded)
    _arrow_agrees(col, junk[4:])


# -- DATETIME2 / TIMESTAMP2 / TIME2 --------------------------------------------------------------

TS_EDGES = [0, 1, (1 << 31) - 1, 1 << 31, (1 << 32) - 1]
"""TIMESTAMP2 seconds: the zero timestamp, the range's ends, the first seconds beyond it."""


def test_temporal_layout_vectors() -> None:
    """values.md §4, written out by hand: TIMESTAMP2 is 4 bytes big-endian seconds then
    ``(fsp + 1) // 2`` bytes of the fraction in units of 10^(6 - 2 * bytes) µs; DATETIME2 and
    TIME2 the same fraction after their integer parts."""
    assert [f.size for f in FRACTIONS] == [0, 1, 1, 2, 2, 3, 3]
    ts = dt.datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=dt.UTC)
    secs = "65937d25"  # 1704164645 seconds since the epoch
    # fsp, the microseconds it keeps, the stored fraction: 60 / 67 hundredths, 6780 / 678000
    for fsp, us, frac in ((0, 0, ""), (1, 600000, "3c"), (2, 670000, "43"), (3, 678000, "1a7c"),
                          (4, 678000, "1a7c"), (5, 678000, "0a5870"), (6, 678000, "0a5870")):
        got = bind_column(ColumnDesc(17, bytes((fsp,)))).encode(ts.replace(microsecond=us))
        assert got.hex() == secs + frac, fsp
    # DATETIME(3) 2024-01-02 03:04:05.678: ((2024 * 13 + 1) << 5 | 2) << 17 | 3 << 12 | 4 << 6 | 5, + 2^39
    ip = ((((2024 * 13 + 1) << 5) | 2) << 17) | (3 << 12) | (4 << 6) | 5
    got = bind_column(ColumnDesc(18, b"\x03")).encode(ts.replace(tzinfo=None))
    assert got == (ip + (1 << 39)).to_bytes(5, "big") + (6780).to_bytes(2, "big")
    # TIME(2) 12:34:56.78: (12 << 12 | 34 << 6 | 56) + 2^23, then 78 in one byte
    got = bind_column(ColumnDesc(19, b"\x02")).encode(dt.timedelta(hours=12, minutes=34, seconds=56,
                                                                   microseconds=780000))
    assert got == (((12 << 12) | (34 << 6) | 56) + (1 << 23)).to_bytes(3, "big") + bytes((78,))


@st.composite
def temporal_columns(draw) -> tuple[ColumnDesc, str, list[int]]:
    """DATETIME2 / TIMESTAMP2 / TIME2 of any fsp and microsecond values of its array kind,
    truncated to the fsp, edges included."""
    code = draw(st.sampled_from([17, 18, 19]))
    fsp = draw(st.integers(0, 6))
    unit = 10 ** (6 - fsp)
    if code == 17:
        secs = st.one_of(st.sampled_from([1, (1 << 31) - 1]), st.integers(1, (1 << 31) - 1))
        kind = "ts"
    elif code == 18:
        secs = st.one_of(st.sampled_from([-62135596800, 253402300799, 0]),
                         st.integers(-62135596800, 253402300799))
        kind = "dt"
    else:
        limit = 838 * 3600 + 59 * 60 + 59
        secs = st.one_of(st.sampled_from([0, limit, -limit, -1]), st.integers(-limit, limit))
        kind = "time"
    frac = st.one_of(st.sampled_from([0, 999_999]), st.integers(0, 999_999)).map(lambda f: f // unit * unit)
    vals = draw(st.lists(st.tuples(secs, frac), min_size=1, max_size=20))
    us = [s * 1_000_000 + (f if s >= 0 or code != 19 else -f) for s, f in vals]
    return ColumnDesc(code, bytes((fsp,)), table="t", name="c"), kind, us


def _value(code: int, us: int) -> object:
    if code == 17:
        return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=us)
    if code == 18:
        return dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=us)
    return dt.timedelta(microseconds=us)


@settings(max_examples=200, deadline=None)
@given(temporal_columns(), st.data())
def test_temporal_forms_agree_with_the_scalar_codec(case, data) -> None:
    col, kind, us = case
    code, fsp = col.type_code, col.meta[0]
    bound = bind_column(col)
    encoded = [bound.encode(_value(code, u)) for u in us]
    assert {len(b) for b in encoded} == {bound.fixed_size}
    out = bound.encode_array(kind, np.array(us, dtype=np.int64), None)
    if out is not None:
        assert [bytes(r) for r in out[0].data] == encoded
    size = bound.fixed_size
    assert size is not None
    junk = [data.draw(st.binary(min_size=size, max_size=size)) for _ in range(4)]
    frac = FRACTIONS[fsp]
    if frac.size:  # the fraction at its largest, one beyond, every bit set
        head = encoded[0][:size - frac.size]
        junk += [head + f.to_bytes(frac.size, "big") for f in (frac.limit, frac.limit + 1, (1 << 8 * frac.size) - 1)]
    if code == 17:  # seconds at and beyond the range's ends, any fraction
        junk += [s.to_bytes(4, "big") + data.draw(st.binary(min_size=size - 4, max_size=size - 4))
                 for s in TS_EDGES]
    fast = fast_temporal_decoder(code, fsp, bound.decode)
    rule = fixed_rule(col)
    for b in encoded + junk:
        _decoders_agree(col, b)
        try:
            want: object = bound.decode(b, 0)
        except BinlogError:
            want = BinlogError
        if fast is not None:
            try:
                have: object = fast(b, 0)
            except BinlogError:
                have = BinlogError
            assert have == want, (col, b.hex())
        if rule is not None:
            assert rule[1](b) == _gives_back(col, b), (col, b.hex())
    if code in (17, 18):
        _arrow_agrees(col, encoded)
        _arrow_agrees(col, junk[:4])
        _arrow_agrees(col, junk[4:])


def test_the_arrow_builders_take_their_fast_paths() -> None:
    """The builders above run their fast paths (not only the reference) on these columns."""
    assert ColumnBuilder(ColumnDesc(246, bytes((18, 4)))).build.__name__ == "_decimal"
    assert ColumnBuilder(ColumnDesc(17, b"\x03")).build.__name__ == "_timestamp"
    assert ColumnBuilder(ColumnDesc(18, b"\x06")).build.__name__ == "_datetime"
