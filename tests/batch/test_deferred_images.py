"""``DeferredImages`` (binlogwriter/batch/columnar_encode.py): ``array()`` gives the images
back to back as a naive copy does, and ``place_range`` writes a range of events' row data
straight into their bodies with exactly the bytes ``place_runs`` of ``array()``'s slice
writes — for random image lengths (one width or varying), pieces (before / after images of
subsets of the changes), events (changes split into consecutive chunks, gaps between) and
event ranges."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.batch.columnar_encode import DeferredImages
from binlogwriter.batch.scatter import place_runs


@st.composite
def _case(draw):
    n = draw(st.integers(1, 40))
    fixed = draw(st.booleans())
    w = draw(st.integers(1, 9))
    lb = np.array([draw(st.sampled_from([0, w] if fixed else [0, 1, 3, 8])) for _ in range(n)], dtype=np.int64)
    la = np.array([draw(st.sampled_from([w] if fixed else [1, 2, 5])) for _ in range(n)], dtype=np.int64)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, draw(st.integers(1, 4)), n)  # which piece group each change is in
    op_len = lb + la
    start = np.cumsum(op_len) - op_len
    runs, naive = [], np.zeros(int(op_len.sum()), dtype=np.uint8)
    for g in np.unique(groups).tolist():
        ops = np.flatnonzero(groups == g)
        for side, ln in ((0, lb), (1, la)):
            sel = ops[ln[ops] > 0]
            if not len(sel):
                continue
            lens = ln[sel]
            buf = rng.integers(0, 256, int(lens.sum()), dtype=np.uint8)
            dest = start[sel] + (lb[sel] if side else 0)
            runs.append((dest, lens, buf))
            at = np.cumsum(lens) - lens
            for d, a, k in zip(dest.tolist(), at.tolist(), lens.tolist(), strict=True):
                naive[d:d + k] = buf[a:a + k]
    cuts = sorted(set(rng.integers(1, n, draw(st.integers(0, n - 1))).tolist())) if n > 1 else []
    first = np.array([0, *cuts], dtype=np.int64)  # first change of each event
    end = np.append(first[1:], n)
    dstart = start[first]
    dlen = start[end - 1] + op_len[end - 1] - dstart
    e0 = draw(st.integers(0, len(first) - 1))
    e1 = draw(st.integers(e0 + 1, len(first)))
    gaps = rng.integers(0, 30, len(first))
    return op_len, runs, naive, dstart, dlen, gaps, e0, e1


@settings(max_examples=300, deadline=None)
@given(_case())
def test_place_range_equals_place_runs_of_array(case) -> None:
    op_len, runs, naive, dstart, dlen, gaps, e0, e1 = case
    di = DeferredImages(int(op_len.sum()), runs)
    assert np.array_equal(di.array(), naive)
    ds, dl, gp = dstart[e0:e1], dlen[e0:e1], gaps[e0:e1]
    body = np.cumsum(gp + dl) - dl  # where each event's row data goes
    size = int(body[-1] + dl[-1]) + 3
    d0, d1 = int(ds[0]), int(ds[-1] + dl[-1])
    want = np.full(size, 0xEE, dtype=np.uint8)
    place_runs(want, body, dl, naive[d0:d1])
    got = np.full(size, 0xEE, dtype=np.uint8)
    DeferredImages(int(op_len.sum()), runs).place_range(got, d0, d1, ds, body - ds)
    assert np.array_equal(got, want)
