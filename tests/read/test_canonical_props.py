"""``verify --roundtrip``'s byte rules (binlogwriter.read.canonical) agree with the codecs
(docs/design.md principle 5: a fast path is done only when a property test proves it).

1. DECIMAL (exact rule): for every precision, scale and signedness, on random bytes of the
   column's size and on the bytes of encoded values (negative zeros, groups out of range,
   negative values in UNSIGNED columns mixed in), ``holds(b)`` is True exactly when decoding
   ``b`` with the codec and encoding the value gives ``b`` back.
2. CHAR / VARCHAR / BLOB (sufficient rule): over charsets (utf8mb4, utf8mb3, latin1, ascii,
   binary, unknown, and ones the rule leaves to the codec) and byte strings (ASCII, UTF-8,
   padded, invalid, too long), ``holds(d)`` implies the codec gives ``d`` back; and the rule
   holds for the short ASCII values without pad of every column it covers (not vacuous).
3. Row images (the verifier as a whole): the compiled image verifier with the rules gives
   the same verdict as with them switched off (every value through its codec) on images of
   every column type, as written and with one byte changed.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.read import rowencode
from binlogwriter.read.canonical import decimal_rule, fixed_rule, string_rule
from binlogwriter.values import encode_row_image
from binlogwriter.values.base import ColumnDesc
from binlogwriter.values.registry import bind_column
from tests.read.test_rowdecode_props import images


def _gives_back(col: ColumnDesc, b: bytes) -> bool:
    bound = bind_column(col)
    try:
        v, end = bound.decode(b, 0)
        return end == len(b) and bound.encode(v) == b
    except Exception:  # noqa: BLE001 - refused either way: not given back
        return False


# -- 1. decimal -----------------------------------------------------------------------

@st.composite
def decimal_cases(draw):
    p = draw(st.integers(1, 65))
    s = draw(st.integers(0, min(p, 30)))
    col = ColumnDesc(246, bytes((p, s)), unsigned=draw(st.booleans()), name="d", table="t")
    size, _ = decimal_rule(col)
    bound = bind_column(col)
    kind = draw(st.sampled_from(["random", "value", "value", "negzero", "flip"]))
    if kind == "random":
        b = draw(st.binary(min_size=size, max_size=size))
    else:
        digits = draw(st.integers(0, 10 ** min(p, 30) - 1))
        neg = draw(st.booleans()) and not col.unsigned
        v = Decimal(digits).scaleb(-s)
        b = bound.encode(-v if neg else v) if digits or kind != "negzero" else bound.encode(Decimal(0))
        if kind == "negzero":  # zero with the sign of a negative number: bytes complemented
            b = bytes(x ^ 0xFF for x in b)
        elif kind == "flip":
            i = draw(st.integers(0, size - 1))
            b = b[:i] + bytes((b[i] ^ (1 << draw(st.integers(0, 7))),)) + b[i + 1:]
    return col, b


@settings(max_examples=800, deadline=None)
@given(decimal_cases())
def test_decimal_rule_is_the_codec_verdict(case) -> None:
    col, b = case
    _, holds = decimal_rule(col)
    assert holds(b) == _gives_back(col, b)


def test_decimal_rule_examples() -> None:
    col = ColumnDesc(246, bytes((10, 2)), name="d", table="t")
    size, holds = decimal_rule(col)
    enc = bind_column(col).encode
    assert holds(enc(Decimal("26.12"))) and holds(enc(Decimal("-26.12"))) and holds(enc(Decimal(0)))
    assert not holds(bytes(x ^ 0xFF for x in enc(Decimal(0))))  # negative zero
    assert not holds(b"\x80\x00\x00\x00\x64")  # fraction digits 100 in a 2-digit field
    assert not decimal_rule(ColumnDesc(246, bytes((10, 2)), unsigned=True, name="d", table="t"))[1](
        enc(Decimal("-1.00")))


@st.composite
def temporal_cases(draw):
    """TIMESTAMP2 / DATETIME2 bytes: random, encoded values, and those with one field pushed
    out of range (fraction digits, seconds, hour, year, sign bit)."""
    import datetime as dt

    code = draw(st.sampled_from([17, 18]))
    fsp = draw(st.integers(0, 6))
    col = ColumnDesc(code, bytes((fsp,)), name="d", table="t")
    size, _ = fixed_rule(col)
    kind = draw(st.sampled_from(["random", "value", "flip", "edge"]))
    if kind == "random":
        return col, draw(st.binary(min_size=size, max_size=size))
    us = draw(st.integers(0, 999_999)) // 10 ** (6 - fsp) * 10 ** (6 - fsp)
    if code == 17:
        secs = draw(st.sampled_from([0, 1, 2**31 - 1, 2**31, 2**32 - 1, draw(st.integers(1, 2**31 - 1))]))
        b = secs.to_bytes(4, "big")
    else:
        v = draw(st.datetimes(min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31, 23, 59, 59)))
        y, m, d, h, mi, sec = v.year, v.month, v.day, v.hour, v.minute, v.second
        if kind == "edge":
            y, m, d, h, mi, sec = (draw(st.sampled_from([0, 9999, 10000, 10081])), draw(st.integers(0, 12)),
                                   draw(st.integers(0, 31)), draw(st.integers(0, 31)), draw(st.integers(0, 63)),
                                   draw(st.integers(0, 63)))
        ip = ((((y * 13 + m) << 5) | d) << 17) | (h << 12) | (mi << 6) | sec
        b = (ip + 0x8000000000).to_bytes(5, "big")
    fb = (fsp + 1) // 2
    frac = [0, us // 10000, us // 100, us][(fsp + 1) // 2]
    if kind == "edge" and fb:
        frac = draw(st.sampled_from([frac + 1, 99, 100, 9999, 10000, 999999, 10**6]))
    b += (frac % (1 << (8 * fb))).to_bytes(fb, "big") if fb else b""
    if kind == "flip":
        i = draw(st.integers(0, size - 1))
        b = b[:i] + bytes((b[i] ^ (1 << draw(st.integers(0, 7))),)) + b[i + 1:]
    return col, b


@settings(max_examples=800, deadline=None)
@given(temporal_cases())
def test_temporal_rules_are_the_codec_verdict(case) -> None:
    col, b = case
    _, holds = fixed_rule(col)
    assert holds(b) == _gives_back(col, b), (col.type_code, col.meta, b.hex())


# -- 2. char / blob -------------------------------------------------------------------

_COLLATIONS = [255, 45, 46, 33, 83, 8, 47, 11, 63, 28, 35, 54, 60, None]
"""utf8mb4 (0900, general, bin), utf8mb3 (general, bin), latin1 (swedish, bin), ascii,
binary, gbk, ucs2, utf16, utf32, unknown."""

_TEXTS = st.one_of(
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40),
    st.text(max_size=20),
    st.text(alphabet=st.characters(min_codepoint=0x80, max_codepoint=0x10FFFF, exclude_categories=("Cs",)),
            max_size=8),
)


@st.composite
def string_cases(draw):
    code = draw(st.sampled_from([254, 15, 252]))
    coll = draw(st.sampled_from(_COLLATIONS))
    flavor = draw(st.sampled_from(["mysql80", "mariadb1011"]))
    if code == 254:
        n = draw(st.integers(1, 1020))
        meta = bytes((0xFE ^ ((n >> 4) & 0x30), n & 0xFF))  # real type 254, length n (values.md §5)
    elif code == 15:
        meta = draw(st.integers(1, 1200)).to_bytes(2, "little")
    else:
        meta = bytes((draw(st.integers(1, 4)),))
    col = ColumnDesc(code, meta, collation=coll, name="s", table="t", flavor=flavor)
    kind = draw(st.sampled_from(["text", "text", "bytes", "padded"]))
    if kind == "bytes":
        d = draw(st.binary(max_size=60))
    else:
        enc = "utf-8" if coll not in (8, 47, 11, 28, 35, 54, 60) else {8: "cp1252", 47: "cp1252", 11: "ascii",
                                                                         28: "gbk", 35: "utf-16-be",
                                                                         54: "utf-16-be", 60: "utf-32-be"}[coll]
        d = draw(_TEXTS).encode(enc, errors="ignore")
        if kind == "padded":
            d += draw(st.sampled_from([b" ", b"\x00", b"  "]))
    return col, d


def _prefixed(lb: int, d: bytes) -> bytes | None:
    if len(d) >= 1 << (8 * lb):
        return None
    return len(d).to_bytes(lb, "little") + d


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(string_cases())
def test_string_rule_implies_the_codec_gives_the_bytes_back(case) -> None:
    col, d = case
    rule = string_rule(col)
    if rule is None:
        return
    b = _prefixed(rule.lb, d)
    if b is None:
        return
    if rule.holds(d):
        assert _gives_back(col, b), (col, d)


@pytest.mark.parametrize("coll", [255, 45, 33, 8, 11, 63, None])
@pytest.mark.parametrize("code,meta", [(254, b"\xfe\x28"), (15, b"\x90\x01"), (252, b"\x02")])
def test_string_rule_covers_short_ascii(coll, code, meta) -> None:
    col = ColumnDesc(code, meta, collation=coll, name="s", table="t")
    rule = string_rule(col)
    assert rule is not None
    for d in (b"", b"abc", b"676-cours", b"x" * 9):
        assert rule.holds(d) and _gives_back(col, len(d).to_bytes(rule.lb, "little") + d)
    if code == 254 and coll is not None:  # the pad the server strips is never shown canonical
        assert not rule.holds(b"abc " if coll != 63 else b"abc\x00")


# -- 3. whole images --------------------------------------------------------------------

def _verdict(cols, present, b: bytes) -> int:
    ver = rowencode.image_verifier(cols, present)
    try:
        return ver(b, 0)
    except Exception:  # noqa: BLE001 - not shown: the declarative check decides
        return -1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(images(), st.data())
def test_image_verifier_with_rules_equals_without(case, data) -> None:
    cols, rows = case
    for present, vals, pad in rows:
        try:
            b = encode_row_image(cols, present, vals, pad)
        except Exception:  # noqa: BLE001 - a refused value: nothing to verify
            continue
        if data.draw(st.booleans(), label="mutate") and b:
            i = data.draw(st.integers(0, len(b) - 1), label="at")
            b = b[:i] + bytes((b[i] ^ (1 << data.draw(st.integers(0, 7), label="bit")),)) + b[i + 1:]
        with_rules, without = _with_and_without(cols, present, b)
        assert with_rules == without


def _with_and_without(cols, present, b: bytes) -> tuple[bool, bool]:
    rowencode.table_encoder(cols).verifiers.clear()
    with_rules = _verdict(cols, present, b)
    rowencode.table_encoder(cols).verifiers.clear()
    saved = rowencode.fixed_rule, rowencode.string_rule
    rowencode.fixed_rule = rowencode.string_rule = lambda col: None
    try:
        without = _verdict(cols, present, b)
    finally:
        rowencode.fixed_rule, rowencode.string_rule = saved
        rowencode.table_encoder(cols).verifiers.clear()
    return with_rules == len(b), without == len(b)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(string_cases(), decimal_cases(), temporal_cases()), st.integers(0, 3))
def test_compiled_rules_equal_the_codecs_on_any_value_bytes(case, lead) -> None:
    """The rules as compiled into the verifier, on value bytes no encoder writes (padded,
    too long, out of range), after ``lead`` integer columns: same verdict as the codecs."""
    col, d = case
    cols = tuple(ColumnDesc(3, b"", name=f"i{j}", table="t") for j in range(lead)) + (col,)
    if col.type_code in (17, 18, 246):
        value = d
    else:
        rule = string_rule(col)
        lb = rule.lb if rule is not None else (col.meta[0] if col.type_code == 252 else 1)
        value = _prefixed(lb, d)
        if value is None:
            return
    b = bytes(1) + bytes(4 * lead) + value  # no NULLs, then the values
    with_rules, without = _with_and_without(cols, (True,) * len(cols), b)
    assert with_rules == without
