"""Paths that are not readable binlogs give typed errors naming the file, never an OSError."""

from __future__ import annotations

from pathlib import Path

import pytest

from binlogwriter.errors import BinlogError, TruncatedError, UnreadableFileError
from binlogwriter.read.framing import scan_file
from binlogwriter.reader import BinlogReader


@pytest.mark.parametrize("make", ["missing", "directory"])
def test_unreadable_path_is_a_typed_error(tmp_path: Path, make: str) -> None:
    path = tmp_path / "binlog.000001"
    if make == "directory":
        path.mkdir()
    with pytest.raises(UnreadableFileError) as info:
        list(BinlogReader([path]))
    assert isinstance(info.value, BinlogError) and not isinstance(info.value, OSError)
    assert f"{path}:0" in str(info.value)


def test_magic_alone_fails_verification(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    path.write_bytes(b"\xfebin")
    res = scan_file(path)
    assert res.events == 0
    assert res.failures and "FORMAT_DESCRIPTION_EVENT missing" in res.failures[0]
    assert f"{path}:4" in res.failures[0]
    assert issubclass(TruncatedError, BinlogError)
