"""``truth/final`` sorted column by column (generators/final_sort.py ``sorted_jsonl_rows``: ranks
per column and one ``np.lexsort``, lines from ``object_lines``) writes the bytes of the
row-by-row reference kept here (``canonical_key`` per row, ``json.dumps`` per line, sorted
runs merged by ``heapq.merge``), and yields the rows the file holds in its order (what
``truth/final/parquet`` is written from; the file read back is the reference). Drawn: wide
rows, NULLs, integers past 2^53 beside equal floats, ``-0.0``, booleans, multibyte and
line-separator text, ``%`` and quotes in names and values, duplicate rows (keyless tables),
and chunk sizes that spill and merge. (No NaN: no column holds one, and it has no order.)"""

from __future__ import annotations

import heapq
import json
import os
import tempfile
from pathlib import Path
from typing import Any
from unittest.mock import patch

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generators import final_sort
from generators.changes_jsonl import read_jsonl_rows
from generators.final_sort import sorted_jsonl_rows, write_sorted_jsonl
from generators.truth import canonical_key, dumps_line


def _reference(path: Path, names: list[str], rows: list[list], chunk: int) -> None:
    """The row-by-row sort this project wrote ``truth/final`` with before (bounded memory:
    sorted runs of ``chunk`` rows spilled and merged)."""
    runs: list[str] = []
    buf: list[tuple[tuple, str]] = []

    def spill() -> str:
        buf.sort(key=lambda x: x[0])
        fd, name = tempfile.mkstemp(dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.writelines(line + "\n" for _, line in buf)
        return name
    for vals in rows:
        buf.append((canonical_key(vals), dumps_line(names, vals)))
        if len(buf) >= chunk:
            runs.append(spill())
            buf = []
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        if not runs:
            buf.sort(key=lambda x: x[0])
            out.writelines(line + "\n" for _, line in buf)
            return
        runs.append(spill())
        files = [open(r, encoding="utf-8") for r in runs]  # noqa: SIM115
        try:
            def keyed(f):
                for line in f:
                    yield canonical_key(json.loads(line).values()), line
            for _, line in heapq.merge(*(keyed(f) for f in files), key=lambda x: x[0]):
                out.write(line)
        finally:
            for f in files:
                f.close()
            for r in runs:
                os.unlink(r)


_TEXT = st.text(st.sampled_from(list("aAzZ0 %\"\\'é中🙂\u2028\u2029\x85\u0301\x00\t")), max_size=6)
_VALUE = st.one_of(
    st.none(), st.integers(-3, 3), st.integers(-(2**64), 2**64), st.sampled_from([2**53, 2**53 + 1, float(2**53)]),
    st.floats(allow_nan=False, width=64), st.sampled_from([0.0, -0.0, 1.0, 1, True, False]), _TEXT)


@st.composite
def _table(draw: Any) -> tuple[list[str], list[list]]:
    ncols = draw(st.one_of(st.integers(1, 5), st.integers(60, 300)), label="columns")
    names = draw(st.lists(st.text(st.sampled_from(list("ab%\"é中_")), min_size=1, max_size=4), min_size=ncols,
                          max_size=ncols, unique=True), label="names")
    # a column draws from a few values (ties), or from anything
    pools = [draw(st.lists(_VALUE, min_size=1, max_size=4)) for _ in range(min(ncols, 6))]
    nrows = draw(st.integers(0, 60 if ncols < 60 else 12), label="rows")
    rows = []
    for _ in range(nrows):
        row = [draw(st.sampled_from(pools[j % len(pools)])) if j % 3 else draw(_VALUE) for j in range(ncols)]
        rows.append(row)
    if rows and draw(st.booleans(), label="duplicates"):
        rows += [list(r) for r in rows[: draw(st.integers(1, len(rows)))]]
    return names, rows


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(table=_table(), chunk=st.sampled_from([1, 3, 7, 20_000]), block=st.integers(1, 50),
       fan_in=st.sampled_from([2, 3, 16]), sort_bytes=st.sampled_from([1, 300, 5_000, 64 << 20]))
def test_sorted_columns_write_the_reference_bytes(table: tuple[list[str], list[list]], chunk: int, block: int,
                                                  fan_in: int, sort_bytes: int, tmp_path_factory) -> None:
    """Also with runs cut by bytes (``SORT_BYTES``) and merged ``MERGE_FAN_IN`` at a time
    before the last merge: the bytes do not depend on where the runs split."""
    names, rows = table
    d = tmp_path_factory.mktemp("s")
    _reference(d / "want.jsonl", names, rows, chunk)
    blocks = [[[r[j] for r in rows[s:s + block]] for j in range(len(names))] for s in range(0, len(rows), block)]
    with patch.object(final_sort, "MERGE_FAN_IN", fan_in), patch.object(final_sort, "SORT_BYTES", sort_bytes):
        got_rows = list(sorted_jsonl_rows(d / "got.jsonl", names, blocks, chunk=chunk))
    want = (d / "want.jsonl").read_bytes()
    assert (d / "got.jsonl").read_bytes() == want
    back = list(read_jsonl_rows(d / "want.jsonl"))
    assert json.dumps(got_rows) == json.dumps(back)  # same values, same types (1 vs 1.0 vs true)
    assert write_sorted_jsonl(d / "rows.jsonl", names, iter(rows), chunk=chunk) == len(rows)
    assert (d / "rows.jsonl").read_bytes() == want
    assert sorted(os.listdir(d)) == ["got.jsonl", "rows.jsonl", "want.jsonl"]  # no run left behind


def test_runs_are_cut_by_bytes_and_merged_by_fan_in(tmp_path: Path) -> None:
    """Memory bounded by construction: a table of long texts spills a run as soon as its
    values reach ``SORT_BYTES`` (not after ``SORT_CELLS``; checked after each block given), and no more than ``MERGE_FAN_IN``
    spilled runs ever exist at once (so the last merge holds at most that many blocks)."""
    names = ["k", "doc"]
    rows = [[i % 97, "x" * 1000 + str(i)] for i in range(400)]
    live: list[int] = []
    real = tempfile.mkstemp

    def counting(*a: Any, **kw: Any) -> tuple[int, str]:
        got = real(*a, **kw)
        live.append(sum(1 for p in tmp_path.iterdir() if p.name.endswith(".run")))
        return got
    with patch.object(final_sort, "SORT_BYTES", 10_000), patch.object(final_sort, "MERGE_FAN_IN", 4), \
            patch.object(tempfile, "mkstemp", counting):
        blocks = [[[r[0] for r in rows[s:s + 5]], [r[1] for r in rows[s:s + 5]]] for s in range(0, len(rows), 5)]
        got = list(sorted_jsonl_rows(tmp_path / "got.jsonl", names, blocks, chunk=10**9))
    assert len(live) > 40  # ~10 rows a run: 40 runs and their merges, not one run of 400 rows
    assert max(live) <= 4 + 1  # run files once each is made: the fan-in's runs and the one they merge into
    assert got == sorted(rows, key=canonical_key)
    assert [p.name for p in tmp_path.iterdir()] == ["got.jsonl"]


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(table=_table(), chunk=st.sampled_from([1, 2, 3, 7]), block=st.integers(1, 50),
       fan_in=st.sampled_from([2, 3, 16]), swaps=st.lists(st.tuples(st.integers(0, 200), st.integers(0, 200)),
                                                          max_size=3))
def test_rows_given_in_order_write_the_reference_bytes(table: tuple[list[str], list[list]], chunk: int, block: int,
                                                       fan_in: int, swaps: list[tuple[int, int]],
                                                       tmp_path_factory) -> None:
    """Rows given in key order (ties included, as a leading key column gives them), or nearly
    (a few swapped): runs that follow one another are concatenated instead of merged row
    by row, and the file and the rows yielded are still the reference's."""
    names, rows = table
    rows = sorted(rows, key=canonical_key)  # stable: equal rows keep their order
    for i, j in swaps:
        if rows:
            i, j = i % len(rows), j % len(rows)
            rows[i], rows[j] = rows[j], rows[i]
    d = tmp_path_factory.mktemp("o")
    _reference(d / "want.jsonl", names, rows, chunk)
    blocks = [[[r[j] for r in rows[s:s + block]] for j in range(len(names))] for s in range(0, len(rows), block)]
    with patch.object(final_sort, "MERGE_FAN_IN", fan_in), patch.object(final_sort, "OUT_BLOCK", 5):
        got_rows = list(sorted_jsonl_rows(d / "got.jsonl", names, blocks, chunk=chunk))
    assert (d / "got.jsonl").read_bytes() == (d / "want.jsonl").read_bytes()
    assert json.dumps(got_rows) == json.dumps(list(read_jsonl_rows(d / "want.jsonl")))
    assert sorted(os.listdir(d)) == ["got.jsonl", "want.jsonl"]


def test_blocks_of_chained_runs_are_out_block_rows(tmp_path: Path) -> None:
    """Runs concatenated hand on blocks of ``OUT_BLOCK`` rows, the last one shorter, as the
    row-by-row merge does (what truth/final/parquet is typed from)."""
    rows = [[i, f"v{i}"] for i in range(23)]
    blocks = [[[r[0] for r in rows], [r[1] for r in rows]]]
    with patch.object(final_sort, "OUT_BLOCK", 5):
        got = list(final_sort.sorted_jsonl_blocks(tmp_path / "f.jsonl", ["k", "v"], blocks, chunk=4))
    assert [len(b[0]) for b in got] == [5, 5, 5, 5, 3]
    assert [x for b in got for x in b[0]] == list(range(23))
