"""The datetime bit layout's one home (values/temporal_layout.py, issue #30): ``datetime_parts`` inverts
``datetime_int`` on every valid field tuple, the source text the compiled decoders inline computes
exactly what ``datetime_parts`` computes on any integer (negative and oversized ones included: the
decoders test validity after taking the parts), and numpy arrays give what ints give; the same for
TIME's ``time_hms``."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from binlogwriter.values.temporal_layout import (
    DATETIME2_BIAS,
    datetime_from_packed,
    datetime_int,
    datetime_packed,
    datetime_parts,
    datetime_parts_source,
    time_from_packed,
    time_hms,
    time_packed,
)

FIELDS = st.tuples(st.integers(0, 9999), st.integers(0, 12), st.integers(0, 31), st.integers(0, 23),
                   st.integers(0, 59), st.integers(0, 59))


@given(FIELDS)
def test_parts_invert_the_integer(f: tuple) -> None:
    ip = datetime_int(*f)
    assert 0 <= ip < DATETIME2_BIAS
    assert datetime_parts(ip) == f


@given(FIELDS, st.integers(0, 999_999))
def test_packed_longlong_is_the_integer_over_microseconds(f: tuple, us: int) -> None:
    assert datetime_packed(*f, us) == datetime_int(*f) * (1 << 24) + us
    assert datetime_from_packed(datetime_packed(*f, us)) == (*f, us)


@given(st.integers(-(1 << 41), 1 << 41))
def test_inlined_source_equals_the_function(ip: int) -> None:
    assert eval(f"({datetime_parts_source('v')})", {}, {"v": ip}) == datetime_parts(ip)


@given(st.lists(st.integers(-(1 << 41), 1 << 41), min_size=1, max_size=50))
def test_arrays_equal_ints(ips: list[int]) -> None:
    arr = datetime_parts(np.array(ips, dtype=np.int64))
    assert [tuple(int(a[i]) for a in arr) for i in range(len(ips))] == [datetime_parts(x) for x in ips]


def test_a_known_value() -> None:
    # '2024-02-29 13:45:59': (2024 * 13 + 2) << 22 | 29 << 17 | 13 << 12 | 45 << 6 | 59, by hand
    assert datetime_int(2024, 2, 29, 13, 45, 59) == (26314 << 22) + (29 << 17) + (13 << 12) + (45 << 6) + 59


@given(st.integers(0, 838 * 3600 + 59 * 60 + 59), st.integers(0, 999_999), st.booleans())
def test_time_packed_is_the_hms_layout(secs: int, us: int, neg: bool) -> None:
    # hour << 12 | minute << 6 | second (values.md §4), written out here, not through time_hms
    hms = (secs // 3600) * 4096 + (secs // 60 % 60) * 64 + secs % 60
    signed = -(secs * 1_000_000 + us) if neg else secs * 1_000_000 + us
    assert time_packed(signed) == (-1 if neg else 1) * (hms * (1 << 24) + us)
    assert time_from_packed(time_packed(signed)) == signed
    arr = time_hms(np.array([secs], dtype=np.int64))
    assert int(arr[0]) == time_hms(secs) == hms
