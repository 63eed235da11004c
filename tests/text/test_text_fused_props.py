"""The ``###`` text printed straight from row bytes (binlogwriter.text.fused, the fast path of
``inspect -v/-vv``) is exactly the reference's: the declarative row codec (values/row.py)
decodes each image, the line-by-line printer (``_ImagePrinter.lines``) prints the values.

* Random tables of every column type (binlogwriter.strategies.codec.ALL_COLUMNS) × MySQL /
  MariaDB printing × ``-v`` / ``-vv`` × nullable flags × present-column bitmaps × NULLs ×
  WRITE/DELETE and UPDATE (two bitmaps), several rows per event, text memos warm or cold.
* Arbitrary bytes: for any rows part (cut or changed bytes, raw bytes of the fixed-size
  temporal and DECIMAL columns whose text is built from the bytes), the compiled printer
  either raises (the listing then takes the reference path) or prints what the reference
  prints; it never prints where the reference fails.
* ``quote_bytes`` equals its byte-by-byte definition (``my_b_write_quoted``).
"""

from __future__ import annotations

from decimal import Context, Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.read.rowdecode import TableDecoder, table_decoder
from binlogwriter.strategies.codec import (
    ALL_COLUMNS,
    blobs,
    chars,
    col,
    decimals,
    geometries,
    jsons,
    varchars,
)
from binlogwriter.text.columns import field_metadata
from binlogwriter.text.fused import compile_rows_text
from binlogwriter.text.rows import ImagePrinter
from binlogwriter.values import decode_row_image, encode_row_image
from binlogwriter.values._text import quote_bytes

PRE, MID = "### UPDATE `d`.`t`\n### WHERE", "\n### SET"
SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def printer(cols, nullable, verbose, family) -> ImagePrinter:
    types = [c.type_code for c in cols]
    metas = [field_metadata(c.type_code, bytes(c.meta)) for c in cols]
    return ImagePrinter(cols, types, metas, nullable, verbose, family)


def reference(cols, pr: ImagePrinter, present, after, buf: bytes) -> list[str]:
    """The text of each row: the declarative decoder, then the line-by-line printer."""
    out, pos = [], 0
    while pos < len(buf):
        values, _, pos = decode_row_image(cols, present, buf, pos)
        text = PRE + "".join("\n" + line for line in pr.lines(present, values))
        if after is not None:
            values, _, pos = decode_row_image(cols, after, buf, pos)
            text += MID + "".join("\n" + line for line in pr.lines(after, values))
        out.append(text)
    return out


def compare(cols, pr, present, after, buf: bytes) -> None:
    """Fused text == reference text; the fused printer raises where the reference does, also
    when the rows part is framed by other bytes (an event's header and CRC32 footer)."""
    try:
        want = reference(cols, pr, present, after, buf)
    except Exception:  # noqa: BLE001 - the reference refuses: the fused printer must too
        want = None
    try:
        fn = compile_rows_text(table_decoder(cols), pr, present, after)
    except ValueError:  # a type the printer does not print (it refuses every row of it)
        with pytest.raises(ValueError):
            for i, p in enumerate(present):
                if p or (after is not None and after[i]):
                    pr._column(i)
        return
    for framed in (buf, b"\x00\x17" + buf + b"\xff\xee\x01\x02"):  # as in an event: bytes around
        start = 0 if framed is buf else 2
        try:
            got = fn(framed, start, start + len(buf), PRE, MID)
        except Exception:  # noqa: BLE001 - the listing would take the reference path
            assert want is None, "the compiled printer refused bytes the reference prints"
            continue
        assert want is not None, "the compiled printer printed bytes the reference refuses"
        assert got == want


def _case(draw, cols: list, value, null_one_in: int):
    """A case over ``cols``: the listing's family and verbosity, nullability, the column
    bitmaps and 1–3 rows of images, column ``i`` NULL one time in ``null_one_in``, else
    ``value(i)``."""
    n = len(cols)
    family = draw(st.sampled_from(("mariadb", "mysql")))
    verbose = draw(st.sampled_from((1, 2)))
    nullable = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    present = tuple(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    after = tuple(draw(st.lists(st.booleans(), min_size=n, max_size=n))) if draw(st.booleans()) else None
    rows = []
    for _ in range(draw(st.integers(1, 3))):
        for bitmap in (present, after) if after is not None else (present,):
            vals = tuple(None if draw(st.integers(0, null_one_in - 1)) == 0 else value(i) for i in range(n))
            rows.append(encode_row_image(cols, bitmap, vals, 0))
    return cols, printer(cols, nullable, verbose, family), present, after, b"".join(rows)


@st.composite
def events(draw, max_columns: int = 8):
    drawn = draw(st.lists(ALL_COLUMNS, min_size=1, max_size=max_columns))
    cols = [c for c, _, _ in drawn]
    return _case(draw, cols, lambda i: drawn[i][1], 4)


@SETTINGS
@given(events())
def test_fused_text_equals_the_reference(case) -> None:
    cols, pr, present, after, buf = case
    try:
        want = reference(cols, pr, present, after, buf)
    except ValueError:  # a type the printer refuses: the compiled printer refuses it too
        with pytest.raises(ValueError):
            compile_rows_text(table_decoder(cols), pr, present, after)(buf, 0, len(buf), PRE, MID)
        return
    fn = compile_rows_text(table_decoder(cols), pr, present, after)
    assert fn(buf, 0, len(buf), PRE, MID) == want
    assert fn(buf, 0, len(buf), PRE, MID) == want  # again, from the warm text memos
    assert fn(b"\x05" + buf + b"\x00\x00\x00\x00", 1, 1 + len(buf), PRE, MID) == want  # inside an event


_INTS = st.sampled_from((1, 2, 3, 8, 9)).flatmap(
    lambda code: st.booleans().map(lambda u: col(code, unsigned=u)))


@st.composite
def wide_events(draw):
    """Tables wider than one bitmap byte: runs of integer columns (TINYINT printed from a
    table by its byte, struct runs whose NULL test spans bitmap bytes) between any columns."""
    n = draw(st.integers(9, 40))
    kinds = draw(st.lists(st.sampled_from(("int", "int", "int", "any")), min_size=n, max_size=n))
    cols, values = [], []
    for kind in kinds:
        if kind == "int":
            c = draw(_INTS)
            lo, hi = _int_range(c)
            cols.append(c)
            values.append(st.sampled_from((lo, hi, 0, -1 if lo < 0 else 1)) | st.integers(lo, hi))
        else:
            c, v, _ = draw(ALL_COLUMNS)
            cols.append(c)
            values.append(st.just(v))
    return _case(draw, cols, lambda i: draw(values[i]), 5)


def _int_range(c) -> tuple[int, int]:
    bits = {1: 8, 2: 16, 9: 24, 3: 32, 8: 64}[c.type_code]
    return (0, (1 << bits) - 1) if c.unsigned else (-(1 << bits - 1), (1 << bits - 1) - 1)


@SETTINGS
@given(wide_events())
def test_fused_text_of_wide_tables_equals_the_reference(case) -> None:
    cols, pr, present, after, buf = case
    compare(cols, pr, present, after, buf)
    compare(cols, pr, present, after, buf)  # again, from the warm text memos


@SETTINGS
@given(wide_events(), st.data())
def test_fused_text_of_wide_tables_on_changed_bytes(case, data) -> None:
    cols, pr, present, after, buf = case
    compare(cols, pr, present, after, _changed(buf, data))


_BYTES = (0x00, 0x20, 0x1F, 0x27, 0x5C, 0x7F, 0x80, 0xFF)
"""A CHAR's pad bytes, the escaped bytes, the sign and length edges."""


def _changed(buf: bytes, data) -> bytes:
    """``buf`` with up to four bytes replaced (edge bytes or any), then cut or not."""
    buf = bytearray(buf)
    for _ in range(data.draw(st.integers(0, 4))):
        if buf:
            buf[data.draw(st.integers(0, len(buf) - 1))] = data.draw(st.sampled_from(_BYTES) | st.integers(0, 255))
    cut = data.draw(st.integers(0, len(buf)))
    return bytes(buf[:cut]) if data.draw(st.booleans()) else bytes(buf)


@SETTINGS
@given(events(), st.data())
def test_fused_text_on_changed_bytes(case, data) -> None:
    cols, pr, present, after, buf = case
    compare(cols, pr, present, after, _changed(buf, data))


_FIXED = st.one_of(
    st.tuples(st.sampled_from((17, 18)), st.integers(0, 6)).map(lambda t: col(t[0], bytes([t[1]]))),
    st.tuples(st.integers(1, 65), st.integers(0, 30)).filter(lambda t: t[1] <= t[0])
    .map(lambda t: col(246, bytes(t))),
    st.just(col(10)), st.just(col(19, b"\x03")),
)


def edges(c, n: int):
    """Bytes at the edges of the text rules: TIMESTAMP2 seconds around 2^31 and 0, DATETIME2
    fields at the ends of their ranges (month 0 and 13, day 0 and 28–31, year 0 and 9999+); None
    for the other types (their edges are any bytes)."""
    fb = n - (4 if c.type_code == 17 else 5)
    frac = st.integers(0, (1 << 8 * fb) - 1) if fb > 0 else st.just(0)
    if c.type_code == 17:
        secs = st.sampled_from((0, 1, (1 << 31) - 1, 1 << 31, (1 << 31) + 1, (1 << 32) - 1))
        return st.tuples(secs, frac).map(lambda t: (t[0] << 8 * fb | t[1]).to_bytes(n, "big"))
    if c.type_code == 18:
        fields = st.tuples(st.sampled_from((0, 1, 2000, 2004, 2100, 9999, 10000)), st.integers(0, 14),
                           st.sampled_from((0, 1, 28, 29, 30, 31)), st.sampled_from((0, 23, 24, 31)),
                           st.sampled_from((0, 59, 60, 63)), st.sampled_from((0, 59, 60, 63)), frac,
                           st.booleans())

        def pack(t):
            y, mo, d, h, mi, sec, f, neg = t
            ip = (((y * 13 + mo) << 5 | d) << 17) | h << 12 | mi << 6 | sec
            ip = (ip if not neg else -ip) + (1 << 39)
            return ((ip & ((1 << 40) - 1)) << 8 * fb | f).to_bytes(n, "big")
        return fields.map(pack)
    return None


@SETTINGS
@given(st.lists(_FIXED, min_size=1, max_size=4), st.sampled_from(("mariadb", "mysql")), st.data())
def test_fixed_size_text_from_arbitrary_bytes(cols, family, data) -> None:
    """TIMESTAMP2, DATETIME2, DECIMAL, DATE, TIME2 from any bytes (zero and invalid dates,
    fractions of a second or more, seconds past 2^31, digit groups out of range)."""
    pr = printer(cols, [True] * len(cols), 2, family)
    present = (True,) * len(cols)
    # sizes from a decoder of its own, not the process-wide cache: what is drawn must not depend
    # on what other tests of this worker left there (hypothesis replays draws: FlakyStrategyDefinition)
    sizes = [TableDecoder(tuple(cols))._memo[i] or 8 for i in range(len(cols))]
    # per column two values differing in their last byte only: the text memos key on all bytes
    pools = []
    for c, n in zip(cols, sizes, strict=True):
        # no one_of of two binary(n): hypothesis caches strategies process-wide and one_of drops a
        # branch identical to another, so whether a branch index is drawn depended on that cache
        # (the FlakyStrategyDefinition "integer vs bytes" under xdist)
        edge = edges(c, n)
        v = data.draw(st.binary(min_size=n, max_size=n) if edge is None else st.binary(min_size=n, max_size=n) | edge)
        pools.append((v, v[:-1] + bytes([v[-1] ^ data.draw(st.integers(1, 255))])))
    rows = []
    for _ in range(data.draw(st.integers(1, 6))):
        rows.append(bytes([data.draw(st.integers(0, (1 << len(cols)) - 1))]))
        rows += [data.draw(st.sampled_from(pool)) for pool in pools]
    compare(cols, pr, present, None, b"".join(rows))


_WIDE = Context(prec=100)


@SETTINGS
@given(st.lists(decimals(), min_size=1, max_size=3), st.sampled_from(("mariadb", "mysql")), st.data())
def test_decimal_text_from_its_digit_groups(drawn, family, data) -> None:
    """DECIMAL printed from its digit groups (no Decimal built): every precision and scale,
    signs, zeros (negative zero too), values at the group limits, several rows."""
    cols = [c for c, _, _ in drawn]
    present = (True,) * len(cols)
    rows = []
    for _ in range(data.draw(st.integers(1, 6))):
        vals = []
        for c, v, _ in drawn:
            p, sc = c.meta[0], c.meta[1]
            edge = Decimal(data.draw(st.sampled_from(("0", "-0", "1", "-1", "9" * p)))).scaleb(-sc, _WIDE)
            vals.append(data.draw(st.sampled_from((v, edge, edge.copy_negate(), None))))
        rows.append(encode_row_image(cols, present, tuple(vals), 0))
    compare(cols, printer(cols, [True] * len(cols), 2, family), present, None, b"".join(rows))


@SETTINGS
@given(st.one_of(jsons(), chars(), varchars(), blobs(), geometries()), st.sampled_from(("mariadb", "mysql")),
       st.data())
def test_variable_size_text_near_values(case, family, data) -> None:
    """JSON, strings and GEOMETRY (printed from their stored bytes, JSON text memoised by
    them): a value, the same bytes with the last one changed, with a CHAR's pad byte appended
    (which the codec refuses), its first 0-3 bytes only (a GEOMETRY shorter than its SRID,
    which the codec refuses), in any order."""
    c, value, _ = case
    image = encode_row_image([c], (True,), (value,), 0)  # bitmap byte, then the value
    dec = table_decoder([c])
    lb = (dec._strings[0] or (dec._json[0] or (c.meta[0] if c.type_code == 255 else 0), None))[0]
    payload = image[1 + lb:] if lb else image[1:]
    pad = dec._pads[0]

    def stored(p: bytes) -> bytes:
        return b"\x00" + (len(p).to_bytes(lb, "little") + p if lb else p)
    pool = [image, stored(payload[:-1] + bytes([payload[-1] ^ data.draw(st.integers(1, 255))]))
            if payload else image]
    if lb and pad:
        pool.append(stored(payload + pad))
    if lb:
        pool.append(stored(payload[:data.draw(st.integers(0, 3))]))
    rows = [data.draw(st.sampled_from(pool)) for _ in range(data.draw(st.integers(1, 6)))]
    compare([c], printer([c], [True], 2, family), (True,), None, b"".join(rows))


@given(st.binary(max_size=64), st.sampled_from(("mariadb", "mysql")))
def test_quote_bytes_byte_by_byte(raw: bytes, family: str) -> None:
    special = set(range(0x20)) | (set() if family == "mariadb" else {0x27, 0x5C})
    want = b"".join(b"\\x%02x" % c if c in special else bytes([c]) for c in raw)
    assert quote_bytes(raw, family) == "'" + want.decode("utf-8", "surrogateescape") + "'"
