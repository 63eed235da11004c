"""The whole-list string encoders (``Bound.encode_many`` of CHAR/BINARY, VARCHAR/VARBINARY
and TEXT/BLOB through ``_strings.text_bytes_many``, and the once-per-distinct-value
fallback ``row_many._encode_each``) write exactly the bytes of the scalar encoder value by
value, and refuse (None, or the same ValueEncodeError through ``encode_column_images``)
what it refuses: utf8mb4 text at and past its length limit, astral characters in utf8mb3,
non-ASCII in latin1 (cp1252 holes), lone surrogates, CHAR trailing spaces, BINARY trailing
0x00, repeated values, NULLs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.errors import ValueEncodeError
from binlogwriter.schema import parse_tables
from binlogwriter.values import encode_row_image
from binlogwriter.values.registry import bind_column
from binlogwriter.values.row import encode_column_images

CHARSETS = ["utf8mb4", "utf8mb3", "latin1", "ascii", "ucs2", "gbk", "binary"]
ALPHABET = st.sampled_from(list("ab ") + ["é", "€", "中", "😀", "\x00", "\ud800", "\x81"])


@st.composite
def columns(draw):
    kind = draw(st.sampled_from(["CHAR", "VARCHAR", "TINYTEXT", "TEXT"]))
    n = draw(st.sampled_from([1, 3, 10, 64, 255] + ([] if kind == "CHAR" else [300])))
    typ = f"{kind}({n})" if kind in ("CHAR", "VARCHAR") else kind
    return typ, draw(st.sampled_from(CHARSETS)), n


def _value(draw, charset: str, n: int):
    if charset == "binary" and draw(st.booleans()):
        return draw(st.binary(max_size=n + 2)) + draw(st.sampled_from([b"", b"\x00", b"\x00\x00"]))
    size = draw(st.sampled_from([0, 1, max(0, n - 1), n, n + 1]))
    s = draw(st.text(alphabet=ALPHABET, min_size=min(size, 300), max_size=min(size, 300)))
    return s + draw(st.sampled_from(["", " ", "  "]))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(col=columns(), flavor=st.sampled_from(["mysql80", "mariadb1011"]), data=st.data())
def test_text_encode_many_equals_scalar(col, flavor, data) -> None:
    typ, charset, n = col
    table = parse_tables(f"CREATE TABLE t (c {typ} CHARACTER SET {charset} NULL)", "d", flavor)[0]
    desc = table.column_descs(flavor)[0]
    bound = bind_column(desc)
    rows = data.draw(st.integers(1, 40), label="rows")
    pool = [_value(data.draw, charset, n) for _ in range(data.draw(st.integers(1, 6)))]
    vals = [data.draw(st.sampled_from(pool)) for _ in range(rows)]  # repeats: the dedup path
    want = []
    err = None
    for v in vals:
        try:
            want.append(bound.encode(v))
        except ValueEncodeError as exc:
            err = exc
            break
    got = bound.encode_many(vals) if bound.encode_many is not None else None
    if err is not None:
        assert got is None
    elif got is not None:
        prefix, body = got
        lens = body.lengths
        flat = bytes(body.flat) if not isinstance(body.flat, bytes) else body.flat
        at = np.concatenate([[0], np.cumsum(lens)]).tolist()
        pieces = [bytes(prefix.data[r]) + flat[at[r]:at[r + 1]] for r in range(rows)]
        assert pieces == want
    # the whole image path, with NULLs: same bytes or the same error as row by row
    nulls = [data.draw(st.booleans()) and v is not None for v in vals]
    colvals = [None if z else v for v, z in zip(vals, nulls, strict=True)]
    scalar, serr = [], None
    for r, v in enumerate(colvals):
        try:
            scalar.append(encode_row_image([desc], [True], [v]))
        except ValueEncodeError as exc:
            serr = exc.located(row=r)
            break
    if serr is not None:
        with pytest.raises(ValueEncodeError) as got_err:
            encode_column_images([desc], [True], [colvals], rows)
        assert str(got_err.value) == str(serr)
        return
    buf, lens = encode_column_images([desc], [True], [colvals], rows)
    assert lens.tolist() == [len(x) for x in scalar]
    assert buf.tobytes() == b"".join(scalar)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(typ=st.sampled_from(["SET('a','b','c','d')", "ENUM('x','yy','zzz')", "CHAR(5) CHARACTER SET binary"]),
       flavor=st.sampled_from(["mysql80", "mariadb1011"]), data=st.data())
def test_repeated_values_encoded_once_equal_scalar(typ, flavor, data) -> None:
    """Columns without a whole-list encoder whose values repeat (SET frozensets, ENUM
    members, BINARY given as text) go through the once-per-distinct-value path: the same
    images as row by row, the same error for a value that does not fit."""
    table = parse_tables(f"CREATE TABLE t (c {typ} NULL)", "d", flavor)[0]
    desc = table.column_descs(flavor)[0]
    if typ.startswith("SET"):
        vals_st = st.frozensets(st.sampled_from("abcdq"), max_size=3)
    elif typ.startswith("ENUM"):
        vals_st = st.sampled_from(["x", "yy", "zzz", "w"])
    else:
        vals_st = st.text(alphabet="ab é", max_size=6)
    pool = data.draw(st.lists(vals_st, min_size=1, max_size=5))
    rows = data.draw(st.integers(1, 60))
    colvals = [None if data.draw(st.integers(0, 5)) == 0 else data.draw(st.sampled_from(pool)) for _ in range(rows)]
    scalar, serr = [], None
    for r, v in enumerate(colvals):
        try:
            scalar.append(encode_row_image([desc], [True], [v]))
        except ValueEncodeError as exc:
            serr = exc.located(row=r)
            break
    if serr is not None:
        with pytest.raises(ValueEncodeError) as got_err:
            encode_column_images([desc], [True], [colvals], rows)
        assert str(got_err.value) == str(serr)
        return
    buf, lens = encode_column_images([desc], [True], [colvals], rows)
    assert lens.tolist() == [len(x) for x in scalar]
    assert buf.tobytes() == b"".join(scalar)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(charset=st.sampled_from(CHARSETS + ["cp1251", "utf16"]),
       values=st.lists(st.text(alphabet=ALPHABET, max_size=12), max_size=30), bytes_too=st.booleans())
def test_joined_text_equals_values_encoded_one_by_one(charset: str, values: list, bytes_too: bool) -> None:
    """``text_joined_many`` (one encode of the joined text, byte lengths from the code points)
    gives the bytes, byte lengths and character counts of ``text_bytes_many`` value by value,
    and None exactly where it gives None (astral in utf8mb3, non-ASCII latin1, lone
    surrogates, a value that is not a ``str``)."""
    from binlogwriter.values._strings import Text, text_bytes_many, text_joined_many

    table = parse_tables(f"CREATE TABLE t (c TEXT CHARACTER SET {charset} NULL)", "d", "mysql80")[0]
    t = Text(table.column_descs("mysql80")[0])
    if bytes_too and values:
        values = [*values[:-1], values[-1].encode("utf-8", "surrogatepass")]
    want = text_bytes_many(t, values)
    got = text_joined_many(t, values)
    if want is None:
        assert got is None
        return
    assert got is not None
    datas, chars = want
    data, lengths, gchars = got
    assert data == b"".join(datas)
    assert lengths.tolist() == [len(d) for d in datas]
    assert gchars.tolist() == chars.tolist()
