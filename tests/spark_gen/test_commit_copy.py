"""spark_gen.commit.copy_file: the kernel copy and its plain fallback append the same bytes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from spark_gen.commit import copy_file


@pytest.mark.parametrize("kernel", [True, False])
def test_copy_file_appends_every_byte_from_the_start(tmp_path: Path, monkeypatch, kernel: bool) -> None:
    a = tmp_path / "a"
    a.write_bytes(os.urandom(5_000_003))
    b = tmp_path / "b"
    b.write_bytes(b"xyz")
    (tmp_path / "empty").write_bytes(b"")
    if not kernel:
        def refuse(*_a, **_k):
            raise OSError(18, "Invalid cross-device link")
        monkeypatch.setattr(os, "copy_file_range", refuse)
    with open(tmp_path / "out", "wb", buffering=0) as out:
        for p in (a, b, tmp_path / "empty", a):
            with open(p, "rb") as f:
                f.read(100)  # the source's position does not matter: the whole file is copied
                copy_file(f, out)
    assert (tmp_path / "out").read_bytes() == a.read_bytes() + b"xyz" + a.read_bytes()


@pytest.mark.parametrize("gone", [1, 2])
def test_a_retried_commit_after_its_chunks_went_gives_the_same_scan(tmp_path: Path, gone: int) -> None:
    """concat_binlog(remove_chunks=True) removes the chunks once the file is in place; a
    retry that finds the file and some chunks gone (the first attempt died while removing
    them) gives the same manifest scan and leaves the file as it was."""
    from spark_gen.commit import concat_binlog

    chunks = []
    for k, data in enumerate((b"\xfebin" + os.urandom(1000), os.urandom(77))):
        p = tmp_path / f"c{k}"
        p.write_bytes(data)
        chunks.append(str(p))
    want = b"".join(Path(c).read_bytes() for c in chunks)
    scans = [(3, 10, 20), (2, None, 30)]
    fmt = None  # read only without scans
    dest = str(tmp_path / "binlog.000001")
    first = concat_binlog(chunks, dest, fmt, scans, remove_chunks=True)
    assert not any(os.path.exists(c) for c in chunks)
    if gone == 1:
        Path(chunks[1]).write_bytes(b"stale")  # one chunk not removed yet
    again = concat_binlog(chunks, dest, fmt, scans, remove_chunks=True)
    assert again == first and Path(dest).read_bytes() == want
    assert first["bytes"] == len(want) and first["events"] == 5 and (first["first_timestamp"], first["last_timestamp"]) == (10, 30)
