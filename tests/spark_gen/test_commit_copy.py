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
