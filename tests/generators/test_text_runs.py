"""ASCII text as byte runs, generator to row image (ColumnArray kind "runs", issue #28's
``serve --generate`` speed): word texts of VARCHAR columns made by numpy
(generators/columns/_vec.py ``joined_runs_array``, generators/columns/_strings.py
``words_runs``), encoded without a Python string (binlogwriter/values/char.py
``encode_runs_many``), compared for unchanged UPDATEs as runs (generators/noop.py
``_same_runs``); and every draw of many streams mixed at once (generators/hashing.py
``draws_matrix``).

Each fast path is checked against the scalar reference: the row function value by value
(``compute_scalar``) in tables of a few or 60–300 columns, keyless or keyed, utf8mb4 and
other charsets, NULLs, edge values and multilingual (charset-stress) values around them;
the scalar encoder of the same strings; :func:`generators.noop.same_value`; one
``draw_array`` per draw.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogwriter.errors import ValueEncodeError
from binlogwriter.schema import parse_tables
from binlogwriter.values.column_array import ColumnArray
from binlogwriter.values.row import encode_column_images
from generators.columns._vec import ascii_runs, joined_runs, joined_runs_array
from generators.hashing import draw_array, draws_matrix
from generators.noop import same_arrays, same_value
from generators.pools import pool
from tests.generators.test_speed_twins import FLAVORS, check_rows, table_rows, tables

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))

WORD_TEXT = st.builds(lambda t, n, cs: f"{t}({min(n, 255) if t == 'CHAR' else n}){cs}", st.sampled_from(["VARCHAR", "CHAR"]),
                      st.one_of(st.integers(12, 80), st.integers(81, 400)),
                      st.sampled_from(["", " CHARACTER SET utf8mb4", " CHARACTER SET latin1", " CHARACTER SET ascii",
                                       " CHARACTER SET utf8mb3", " CHARACTER SET ucs2", " CHARACTER SET gbk",
                                       " CHARACTER SET utf32", " CHARACTER SET utf16", " CHARACTER SET sjis"]))


@SETTINGS
@given(typ=WORD_TEXT, null=st.sampled_from(["", " NULL", " NOT NULL"]), seed=st.integers(0, 2**40), flavor=FLAVORS,
       edge=st.sampled_from([None, 0.0, 0.5]), stress=st.sampled_from([None, 0.0, 0.3, 1.0]), data=st.data())
def test_word_text_runs_equal_scalar(typ, null, seed, flavor, edge, stress, data) -> None:
    """Word texts (VARCHAR of two words or more) as runs: the scalar row function's values,
    and the bytes its Python values encode to, among wide / keyless tables' columns."""
    ddl = data.draw(tables(typ + null), label="ddl")
    rt = table_rows(ddl, seed, flavor, None, edge, stress)
    check_rows(rt, data)


def test_word_text_is_runs() -> None:
    """The path the property test checks is the one taken: a VARCHAR of words gives runs
    (under edge and stress values: runs under an "edged" column), in a charset that writes
    ASCII in more bytes too (ucs2: each word character fits) and in a CHAR (without its
    trailing spaces)."""
    ddl = ("CREATE TABLE w (id INT PRIMARY KEY, t VARCHAR(40) CHARACTER SET utf8mb4 NULL, "
           "u VARCHAR(30) CHARACTER SET ucs2, c CHAR(20)) DEFAULT CHARSET=utf8mb4;")
    keys = np.arange(200, dtype=np.int64)
    got = table_rows(ddl, 1, "mysql80", None, None, 0.0).column_at(1, keys, keys)
    assert isinstance(got, ColumnArray) and got.kind == "runs"
    stressed = table_rows(ddl, 1, "mysql80", None, None, 0.3).column_at(1, keys, keys)
    assert stressed.kind == "edged" and stressed.meta[1].kind == "runs"
    plain = table_rows(ddl, 1, "mysql80", None, None, 0.0)
    for i in (2, 3):
        got = plain.column_at(i, keys, keys)
        assert isinstance(got, ColumnArray) and got.kind == "runs"
    assert not any(v.endswith(" ") for v in plain.column_at(3, keys, keys).tolist() if v is not None)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=st.lists(st.tuples(st.lists(st.integers(0, 1023), max_size=8), st.integers(0, 90)), max_size=40))
def test_joined_runs_array_equals_the_join(rows) -> None:
    """Row ``r`` of the runs is ``" ".join(words)[:cut]``; :func:`joined_runs` reads the same."""
    runs = ascii_runs(pool("word"))
    assert runs is not None and not runs.long
    picks = np.full((len(rows), 8), -1, dtype=np.int64)
    for r, (p, _) in enumerate(rows):
        picks[r, :len(p)] = p
    cut = np.array([c for _, c in rows], dtype=np.int64)
    want = [" ".join(runs.entries[x] for x in p)[:c] for p, c in rows]
    at, flat = joined_runs_array(runs, picks, cut)
    assert [flat[a:a + n].tobytes().decode("ascii") for a, n in at.tolist()] == want
    assert ColumnArray("runs", at, None, None, flat).tolist() == want
    assert joined_runs(runs, picks, cut) == want


def _desc(ddl_type: str):
    (t,) = parse_tables(f"CREATE TABLE x (v {ddl_type}) DEFAULT CHARSET=utf8mb4;")
    return tuple(t.column_descs("mysql80"))


def _runs(values: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``values`` as runs in a shuffled buffer (starts not in row order, bytes between)."""
    chunks, at, pos = [], [], 0
    for v in reversed(values):
        b = v.encode("utf-8") + b"#"
        chunks.append(b)
        at.append((pos, len(v.encode("utf-8"))))
        pos += len(b)
    return np.array(at[::-1], dtype=np.int64).reshape(-1, 2), np.frombuffer(b"".join(chunks), dtype=np.uint8)


TEXT_VALUE = st.one_of(st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=300),
                       st.sampled_from(["", " ", "trailing ", "é", "中文", "x" * 256, "y" * 300]))


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(typ=st.sampled_from(["VARCHAR(10)", "VARCHAR(40) CHARACTER SET utf8mb4", "VARCHAR(255) CHARACTER SET latin1",
                            "VARCHAR(300) CHARACTER SET ascii", "VARCHAR(70) CHARACTER SET utf8mb3",
                            "VARCHAR(20) CHARACTER SET ucs2", "CHAR(12)", "CHAR(200) CHARACTER SET utf8mb4"]),
       values=st.lists(TEXT_VALUE, min_size=1, max_size=30), nulls=st.lists(st.booleans(), min_size=30, max_size=30),
       pad=st.sampled_from([0, -1]))
def test_runs_encode_as_the_strings(typ, values, nulls, pad) -> None:
    """A "runs" column encodes to the bytes of its Python strings (or raises their error),
    NULLs among them, whatever the charset, length, or a non-ASCII / trailing-space value."""
    descs = _desc(typ + " NULL")
    n = len(values)
    nul = np.array(nulls[:n], dtype=bool)
    at, flat = _runs(values)
    col = ColumnArray("runs", at, nul if nul.any() else None, None, flat)
    strings = [None if z else v for v, z in zip(values, nul.tolist(), strict=True)]
    try:
        want, want_len = encode_column_images(descs, [True], [strings], n, pad)
    except ValueEncodeError as exc:
        with pytest.raises(ValueEncodeError) as got:
            encode_column_images(descs, [True], [col], n, pad)
        assert str(got.value) == str(exc)
        return
    got, got_len = encode_column_images(descs, [True], [col], n, pad)
    assert got_len.tolist() == want_len.tolist()
    assert bytes(got) == bytes(want)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs=st.lists(st.tuples(st.one_of(st.none(), TEXT_VALUE.filter(str.isascii)),
                                st.one_of(st.none(), TEXT_VALUE.filter(str.isascii))), min_size=1, max_size=30),
       same=st.lists(st.booleans(), min_size=30, max_size=30),
       typ=st.sampled_from(["VARCHAR(300)", "CHAR(30)"]))
def test_same_runs_equals_same_value(pairs, same, typ) -> None:
    """Unchanged-UPDATE comparison of two "runs" columns: :func:`same_value` row by row (or
    None: the caller compares the values)."""
    (t,) = parse_tables(f"CREATE TABLE x (v {typ});")
    col = t.columns[0]
    a = [p[0] for p in pairs]
    b = [p[0] if s else p[1] for p, s in zip(pairs, same, strict=False)]

    def arr(vals):
        at, flat = _runs(["" if v is None else v for v in vals])
        nul = np.array([v is None for v in vals], dtype=bool)
        return ColumnArray("runs", at, nul if nul.any() else None, None, flat)
    got = same_arrays(col, arr(a), arr(b))
    if typ.startswith("CHAR"):
        assert got is None
        return
    assert got is not None
    assert got.tolist() == [same_value(col, x, y) for x, y in zip(a, b, strict=True)]


@settings(max_examples=100, deadline=None)
@given(h=st.lists(st.integers(0, 2**64 - 1), max_size=40), k=st.integers(0, 20))
def test_draws_matrix_is_each_draw(h, k) -> None:
    """Column ``t`` of :func:`draws_matrix` is draw ``t + 1`` (``draw_array``)."""
    arr = np.array(h, dtype=np.uint64)
    got = draws_matrix(arr, k)
    assert got.shape == (len(h), k) and got.dtype == np.uint64
    for t in range(k):
        assert got[:, t].tolist() == draw_array(arr, t + 1).tolist()


FIT_TYPES = st.permutations(["VARCHAR(8)", "VARCHAR(8) CHARACTER SET latin1", "VARCHAR(8) CHARACTER SET ascii",
                              "CHAR(8)", "VARCHAR(8) CHARACTER SET ucs2", "VARCHAR(8) CHARACTER SET utf8mb3",
                              "VARCHAR(30)", "TINYTEXT", "VARCHAR(3) CHARACTER SET gbk", "CHAR(2) CHARACTER SET utf32",
                              "VARCHAR(2) CHARACTER SET utf8mb4", "CHAR(2) CHARACTER SET latin1"])


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(types=FIT_TYPES, cap=st.one_of(st.none(), st.integers(0, 12)),
       flavor=FLAVORS, which=st.sampled_from(["word", "stress", "mixed"]))
def test_fitted_pool_is_each_fit(types, cap, flavor, which) -> None:
    """The memoised fitted pool of each column (columns of every other type fitted before
    it in some order, the same entries: same lengths, other charsets) is the column's own
    fit of every entry."""
    from generators.columns._fit import fit_text, fitted_pool
    from generators.columns._stress import STRESS

    entries = {"word": pool("word"), "stress": STRESS,
               "mixed": ("abc def", "Zoë ✓ 中文", "trailing  ", "\U0001f600 x", "")}[which]
    (t,) = parse_tables("CREATE TABLE x (" + ", ".join(f"c{i} {ty}" for i, ty in enumerate(types)) + ")"
                        " DEFAULT CHARSET=utf8mb4;")
    for col in t.columns:
        want = tuple(fit_text(e[:cap] if cap is not None and len(e) > cap else e, col, flavor) for e in entries)
        assert fitted_pool(entries, col, flavor, cap) == want
