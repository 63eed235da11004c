"""Truth file names (binlogwriter/truth_names.py, docs/output.md "Truth file names"): a
(database, table) pair of any identifiers a server accepts (any character but NUL, up to 64
of them) is one file name that decodes back to the pair; distinct pairs never share one;
names without ``/``, ``\\``, ``.``, ``@`` or control characters keep their bytes; case is kept.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.truth_names import (
    LONGEST_SUFFIX,
    NAME_MAX,
    decode_identifier,
    too_long,
    truth_file,
    truth_stem,
    truth_table,
)

# worked out by hand from the rule in docs/output.md
EXAMPLES = [
    (("test", "sbtest1"), "test.sbtest1"),
    (("my_db$1", "Order-Items"), "my_db$1.Order-Items"),
    (("test", "a/b"), "test.a@002fb"),
    (("test", "a\\\\b.c"), "test.a@005c@005cb@002ec"),
    (("a.b", "c"), "a@002eb.c"),
    (("a", "b.c"), "a.b@002ec"),
    (("test", ".."), "test.@002e@002e"),
    (("test", "sp ace:*?"), "test.sp ace:*?"),
    (("test", "café"), "test.café"),
    (("test", "中"), "test.中"),
    (("test", "@0041"), "test.@00400041"),
    (("test", "\U0001f600"), "test.\U0001f600"),
    (("test", "tab\there"), "test.tab@0009here"),
    (("test", "Users"), "test.Users"),
    (("test", "users"), "test.users"),
]

# awkward identifier characters: the server's separators and wildcards, '@' (the escape),
# hex digits (what follows one), case pairs, non-ASCII letters, a character beyond the BMP
AWKWARD = st.sampled_from(list("/\\.:*?\"<>| @$-_~%'`\t\naA0fF") + ["é", "É", "ß", "€", "中", "\U0001f600", "\x01"])
IDENTS = st.lists(st.one_of(AWKWARD, st.characters(min_codepoint=1, max_codepoint=0x10FFFF,
                                                    blacklist_categories=("Cs",))),
                  min_size=1, max_size=64).map("".join)
ORDINARY = st.text(alphabet="abcxyzABCXYZ0189_$-", min_size=1, max_size=64)


@pytest.mark.parametrize(("names", "stem"), EXAMPLES, ids=[repr(e[0]) for e in EXAMPLES])
def test_examples(names: tuple[str, str], stem: str) -> None:
    assert truth_stem(*names) == stem
    assert truth_file(*names, ".jsonl") == stem + ".jsonl"
    assert truth_table(stem + ".jsonl", ".jsonl") == names


@settings(max_examples=300, deadline=None)
@given(IDENTS, IDENTS)
def test_round_trip(db: str, table: str) -> None:
    stem = truth_stem(db, table)
    assert "/" not in stem and "\\" not in stem and stem.count(".") == 1
    assert not any(ord(c) < 0x20 or c == "\x7f" for c in stem)
    assert truth_table(stem + ".parquet", ".parquet") == (db, table)
    if too_long(db, table):
        with pytest.raises(ValueError, match="over the 255"):
            truth_file(db, table, LONGEST_SUFFIX)
    else:
        assert len(truth_file(db, table, LONGEST_SUFFIX).encode("utf-8")) <= NAME_MAX


@settings(max_examples=300, deadline=None)
@given(st.tuples(IDENTS, IDENTS), st.tuples(IDENTS, IDENTS))
def test_distinct_tables_distinct_names(a: tuple[str, str], b: tuple[str, str]) -> None:
    assert (truth_stem(*a) == truth_stem(*b)) == (a == b)


@settings(max_examples=200, deadline=None)
@given(ORDINARY, ORDINARY)
def test_ordinary_names_keep_their_bytes(db: str, table: str) -> None:
    assert truth_file(db, table, ".jsonl") == f"{db}.{table}.jsonl"  # as before the rule
    assert truth_table(f"{db}.{table}.jsonl", ".jsonl") == (db, table)


def test_names_differing_in_case_or_by_a_dot_differ() -> None:
    assert truth_stem("test", "users") != truth_stem("test", "Users")
    assert truth_stem("a.b", "c") != truth_stem("a", "b.c")
    assert truth_stem("a", "b@002ec") != truth_stem("a", "b.c")


@pytest.mark.parametrize("bad", ["a.b.c.jsonl", "ab.jsonl", "a.b@002E.jsonl", "a.@0041.jsonl", "a.b@zz.jsonl",
                                 "a.b/c.jsonl", "a.b.parquet", "a.b@002.jsonl"])
def test_names_not_made_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        truth_table(bad, ".jsonl")


def test_decode_refuses_other_spellings() -> None:
    assert decode_identifier("a@002fb") == "a/b"
    with pytest.raises(ValueError):
        decode_identifier("@0061")  # "a" is written as itself, never @0061


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(IDENTS, IDENTS), min_size=1, max_size=6, unique=True))
def test_files_can_be_made_and_listed_back(tmp_path_factory, pairs: list[tuple[str, str]]) -> None:
    """Each name is a file a Linux file system takes, and a listing reads every pair back."""
    d: Path = tmp_path_factory.mktemp("names")
    pairs = [p for p in pairs if not too_long(*p)]
    for db, table in pairs:
        (d / truth_file(db, table, ".jsonl")).write_bytes(f"{db}\x00{table}".encode())
    back = {truth_table(n, ".jsonl") for n in os.listdir(d)}
    assert back == set(pairs)
    for db, table in pairs:
        assert (d / truth_file(db, table, ".jsonl")).read_bytes() == f"{db}\x00{table}".encode()
