"""``place_runs`` (binlogwriter/batch/columnar.py) writes each run's bytes where a plain
slice assignment per run writes them, for dense and sparse runs alike, and for runs of
one width at multiples of it (the row-matrix branch), and touches nothing else."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.batch.columnar import place_runs
from binlogwriter.batch.scatter import place_rows, take_runs


def _check_place_runs(size: int, dest: list[int], lens: list[int], seed: int) -> None:
    """place_runs of random bytes at ``dest``/``lens`` in a random buffer of ``size`` equals
    the same runs copied one slice at a time."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, 256, sum(lens), dtype=np.uint8)
    _place_like_slices(rng.integers(0, 256, size, dtype=np.uint8), dest, lens, src)


def _place_like_slices(out: np.ndarray, dest: list[int], lens: list[int], src: np.ndarray) -> None:
    """place_runs into ``out`` writes what copying the runs one slice at a time writes."""
    want = out.copy()
    o = 0
    for d, n in zip(dest, lens, strict=True):
        want[d:d + n] = src[o:o + n]
        o += n
    place_runs(out, np.array(dest, dtype=np.int64), np.array(lens, dtype=np.int64), src)
    assert out.tobytes() == want.tobytes()

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
    _check_place_runs(size, dest, lens, seed)


@settings(max_examples=300, deadline=None)
@given(width=st.integers(1, 40), slots=st.integers(1, 200), picks=st.lists(st.booleans(), max_size=200),
       tail=st.integers(0, 39), odd=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_place_runs_equal_width_slots(width, slots, picks, tail, odd, seed) -> None:
    """Runs of one width in slots of that width (some slots skipped, a tail after the last
    slot; ``odd``: one run a byte shorter or one slot shifted, so the branch must not apply)."""
    size = width * slots + tail
    dest = [i * width for i, p in enumerate(picks[:slots]) if p]
    lens = [width] * len(dest)
    if odd and dest:
        if width > 1 and len(dest) > 1:
            lens[0] = width - 1
        elif dest[-1] + width < size:
            dest[-1] += 1
    _check_place_runs(size, dest, lens, seed)


@settings(max_examples=300, deadline=None)
@given(width=st.integers(0, 40), gaps=st.lists(st.integers(0, 50), max_size=40), tail=st.integers(0, 30),
       shuffle=st.booleans(), broadcast=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_place_rows_equals_slices(width, gaps, tail, shuffle, broadcast, seed) -> None:
    """``place_rows`` writes row ``i`` at ``dest[i]`` as a slice assignment does, whatever
    the order of ``dest``, for a matrix or a broadcast row, and nothing else."""
    dest, at = [], 0
    for g in gaps:  # non-overlapping rows of ``width`` bytes
        dest.append(at + g)
        at += g + width
    size = at + tail
    rng = np.random.default_rng(seed)
    if shuffle:
        rng.shuffle(dest)
    rows = rng.integers(0, 256, (len(dest), width), dtype=np.uint8)
    if broadcast and width:
        rows = np.broadcast_to(rows[:1], (len(dest), width)) if len(dest) else rows
    out = rng.integers(0, 256, size, dtype=np.uint8)
    want = out.copy()
    for d, r in zip(dest, rows, strict=True):
        want[d:d + width] = r
    place_rows(out, np.array(dest, dtype=np.int64), rows)
    assert out.tobytes() == want.tobytes()


@settings(max_examples=200, deadline=None)
@given(runs=st.lists(st.tuples(st.integers(0, 60), st.one_of(st.integers(0, 40), st.integers(200, 2000))),
                     min_size=1, max_size=25),
       tail=st.integers(0, 30), view=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_place_runs_long_runs_equal_slices(runs, tail, view, seed) -> None:
    """Runs long enough on average for the slice-per-run branch (``LONG_PLACE``), mixed with
    short and empty ones, into a buffer or a contiguous view of one; ``src`` a view too."""
    dest, lens, at = [], [], 0
    for gap, n in runs:
        dest.append(at + gap)
        lens.append(n)
        at += gap + n
    rng = np.random.default_rng(seed)
    big = rng.integers(0, 256, sum(lens) + 7, dtype=np.uint8)
    src = big[3:3 + sum(lens)]
    whole = rng.integers(0, 256, at + tail + 5, dtype=np.uint8)
    _place_like_slices(whole[5:] if view else whole[:at + tail], dest, lens, src)


@settings(max_examples=200, deadline=None)
@given(lens=st.lists(st.one_of(st.integers(0, 40), st.integers(200, 3000)), min_size=1, max_size=30),
       data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_take_runs_equals_slices(lens, data, seed) -> None:
    """``take_runs`` (an index per byte, or slices joined for long runs) gives runs ``idx`` of
    the buffer in that order (repeats allowed), as slicing each does; the result is writable."""
    idx = data.draw(st.lists(st.integers(0, len(lens) - 1), max_size=40), label="idx")
    rng = np.random.default_rng(seed)
    buf = rng.integers(0, 256, sum(lens), dtype=np.uint8)
    starts = np.cumsum(lens) - np.array(lens)
    want = b"".join(buf[s:s + n].tobytes() for s, n in zip(starts[idx].tolist(), np.array(lens)[idx].tolist(),
                                                               strict=True)) if idx else b""
    got = take_runs(buf, np.array(lens, dtype=np.int64), np.array(idx, dtype=np.int64))
    assert got.dtype == np.uint8 and got.tobytes() == want
    if len(got):
        before = buf.tobytes()
        got[0] ^= 1  # writable, and a buffer of its own
        assert buf.tobytes() == before
