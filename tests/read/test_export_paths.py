"""Folder names of the Parquet export (issue 27, binlogwriter/read/exportpaths.py): a
database or table name is data, never a path. Each name is percent-encoded outside
``[A-Za-z0-9_-]``; the folder name is one ASCII path component, decodes back to both names,
and distinct tables never share one.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.read.exportpaths import MAX_DIR_NAME, encode_name, table_dir, table_of_dir

# expected folder names worked out by hand from the rule in docs/read.md
EXAMPLES = [
    (("d", "t"), "d.t"),
    (("sbtest", "sbtest1"), "sbtest.sbtest1"),
    (("/tmp/abs", "../../y"), "%2Ftmp%2Fabs.%2E%2E%2F%2E%2E%2Fy"),
    (("C:\\x", "a/b"), "C%3A%5Cx.a%2Fb"),
    (("a\x00b", "t"), "a%00b.t"),
    ((b"d", b"t\xff"), "d.t%FF"),
    (("d", "t\udcff"), "d.t%FF"),  # the reader's surrogate escape of the byte 0xFF
    (("café", "%41"), "caf%C3%A9.%2541"),
    (("CON", "nul"), "%43ON.%6Eul"),
    (("Com1", "LPT9"), "%43om1.%4CPT9"),
    (("CONSOLE", "COM10"), "CONSOLE.COM10"),  # not device names
    (("", ""), "%.%"),
    (("", "t"), "%.t"),
    (("..", "."), "%2E%2E.%2E"),
    (("a.b", "c"), "a%2Eb.c"),
    (("a", "b.c"), "a.b%2Ec"),
    (("sp ace", "new\nline"), "sp%20ace.new%0Aline"),
]


@pytest.mark.parametrize(("names", "folder"), EXAMPLES, ids=[repr(e[0]) for e in EXAMPLES])
def test_folder_names(names: tuple, folder: str) -> None:
    assert table_dir(*names) == folder
    want = tuple(n if isinstance(n, bytes) else n.encode("utf-8", "surrogateescape") for n in names)
    assert table_of_dir(folder) == want


def test_long_names_are_shortened_with_a_hash() -> None:
    db, table = "é" * 64, "ü" * 64  # MariaDB's longest names: 64 characters
    full = f"{'%C3%A9' * 64}.{'%C3%BC' * 64}"
    got = table_dir(db, table)
    assert len(full) == 769 and len(got) <= MAX_DIR_NAME
    head, digest = got.split("~")
    assert full.startswith(head) and len(head) >= 190 and not head.endswith(("%", "%C"))
    assert len(digest) == 32 and set(digest) <= set(string.hexdigits.lower())
    assert table_dir(db, "ü" * 63 + "u") != got  # the same first 200 characters
    with pytest.raises(ValueError):
        table_of_dir(got)
    assert table_dir("a" * 100, "b" * 100) == "a" * 100 + "." + "b" * 100  # short enough: in full


@pytest.mark.parametrize("bad", ["", ".", "..", "a.b.c", "a", "a.%2", "a.%2f", "a.b/c", "a."])
def test_names_the_export_does_not_write_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        table_of_dir(bad)


names = st.one_of(st.binary(max_size=80), st.text(max_size=70))


def _bytes(n: str | bytes) -> bytes:
    return n if isinstance(n, bytes) else n.encode("utf-8", "surrogateescape")


@settings(max_examples=400, deadline=None)
@given(names, names)
def test_any_names_give_one_safe_folder_name(db: str | bytes, table: str | bytes) -> None:
    folder = table_dir(db, table)
    assert folder.isascii() and folder.isprintable()
    assert 3 <= len(folder) <= MAX_DIR_NAME
    assert folder not in (".", "..") and not folder.startswith(".")
    assert not set(folder) & set('/\\:*?"<>|\x00 ')  # no separator or character Windows refuses
    assert folder.split(".")[0].upper() not in ("CON", "PRN", "AUX", "NUL")
    if "~" not in folder:
        assert table_of_dir(folder) == (_bytes(db), _bytes(table))


@settings(max_examples=400, deadline=None)
@given(names, names, names, names)
def test_distinct_tables_get_distinct_folders(
    a: str | bytes, b: str | bytes, c: str | bytes, d: str | bytes
) -> None:
    if (_bytes(a), _bytes(b)) != (_bytes(c), _bytes(d)):
        assert table_dir(a, b) != table_dir(c, d)


@given(st.text(alphabet="AaCcOoNnUuLlPpRrXxMmTt0123456789", min_size=1, max_size=5))
def test_device_names_any_case(name: str) -> None:
    enc = encode_name(name)
    assert enc.upper() not in {
        "CON",
        "PRN",
        "AUX",
        "NUL",
        *(f"COM{i}" for i in range(10)),
        *(f"LPT{i}" for i in range(10)),
    }
    assert table_of_dir(f"{enc}.t") == (name.encode(), b"t")
