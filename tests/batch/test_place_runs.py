"""``place_runs`` (binlogwriter/batch/columnar.py) writes each run's bytes where a plain
slice assignment per run writes them, for dense and sparse runs alike, and touches
nothing else."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.batch.columnar import place_runs


@settings(max_examples=300, deadline=None)
@given(size=st.integers(1, 3000), runs=st.lists(st.tuples(st.integers(0, 200), st.integers(0, 40)), max_size=30),
       seed=st.integers(0, 2**32 - 1))
def test_place_runs_equals_slices(size, runs, seed) -> None:
    dest, lens, at = [], [], 0
    for gap, n in runs:  # ascending, non-overlapping runs inside the buffer
        if at + gap + n > size:
            break
        dest.append(at + gap)
        lens.append(n)
        at += gap + n
    rng = np.random.default_rng(seed)
    src = rng.integers(0, 256, sum(lens), dtype=np.uint8)
    out = rng.integers(0, 256, size, dtype=np.uint8)
    want = out.copy()
    o = 0
    for d, n in zip(dest, lens, strict=True):
        want[d:d + n] = src[o:o + n]
        o += n
    place_runs(out, np.array(dest, dtype=np.int64), np.array(lens, dtype=np.int64), src)
    assert out.tobytes() == want.tobytes()
