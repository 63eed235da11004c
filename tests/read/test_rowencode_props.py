"""The compiled row encoder (binlogwriter.read.rowencode) writes exactly what the declarative
row codec writes (docs/design.md principle 5: a fast path is done only when a property test
proves it).

Row images over every column type (tests/values strategies, MariaDB old temporals) × flavor ×
random present-columns bitmap × random NULLs × padding bits, with some values replaced by
ones the codecs refuse (out of range, wrong type, ABSENT, NULL in a NOT NULL column):
``TableEncoder.image(present)(compact values, pad)`` gives the bytes of
``encode_row_image`` or raises the same ValueEncodeError; and values read back by the
compiled decoder re-encode to the declarative encoder's bytes.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.errors import BinlogError
from binlogwriter.read.rowdecode import table_decoder
from binlogwriter.read.rowencode import table_encoder
from binlogwriter.values import ABSENT, encode_row_image
from tests.read.test_rowdecode_props import images

_BAD = st.sampled_from([2**70, -(2**70), 300, -1, "x" * 300, b"\xff" * 70000, 1.5, float("nan"), ABSENT,
                        None, object(), True])


def _ref(cols, present, vals, pad):
    try:
        return encode_row_image(cols, present, vals, pad), None
    except BinlogError as exc:
        return None, (type(exc), str(exc))


def _fast(enc, present, vals, pad):
    try:
        return enc.image(present)(tuple(v for v, p in zip(vals, present, strict=True) if p), pad), None
    except BinlogError as exc:
        return None, (type(exc), str(exc))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(images(), st.data())
def test_compiled_encoder_equals_declarative(case, data) -> None:
    cols, rows = case
    enc = table_encoder(cols)
    dec = table_decoder(cols)
    for present, vals, pad in rows:
        ref = _ref(cols, present, vals, pad)
        assert _fast(enc, present, vals, pad) == ref
        if ref[0] is not None:
            # what the compiled decoder reads re-encodes as the declarative encoder writes it
            got, rpad, end = dec.image(present)(ref[0], 0)
            assert end == len(ref[0])
            full = [ABSENT] * len(cols)
            for v, i in zip(got, [i for i, p in enumerate(present) if p], strict=True):
                full[i] = v
            assert enc.image(present)(got, rpad) == _ref(cols, present, full, rpad)[0]
        # a refused value: the same typed error (or the same bytes when the codec takes it)
        if any(present):
            i = data.draw(st.sampled_from([i for i, p in enumerate(present) if p]))
            bad = list(vals)
            bad[i] = data.draw(_BAD)
            assert _fast(enc, present, bad, pad) == _ref(cols, present, bad, pad)


def test_wrong_width_is_the_declarative_error() -> None:
    from binlogwriter.values import ColumnDesc

    cols = (ColumnDesc(3, b"", name="a", table="db.t"), ColumnDesc(3, b"", name="b", table="db.t"))
    enc = table_encoder(cols).image((True, True))
    with pytest.raises(BinlogError):
        enc((1,), 0)
    assert enc((1, 2), 0) == encode_row_image(cols, (True, True), (1, 2), 0)
