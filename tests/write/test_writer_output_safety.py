"""BinlogWriter's files on disk: an existing binlog file is never overwritten unless asked,
and a write that fails (a full disk) leaves no ``.part`` behind and raises one typed error
naming the file (issue 15, crash safety).

A full disk is real, not mocked: the ``.part`` is a symlink to ``/dev/full``, whose every
write fails with ENOSPC.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.errors import BinlogError, OutputError, OutputExistsError
from binlogwriter.format import BinlogFormat
from binlogwriter.schema import Table
from binlogwriter.sinks import FileSink
from binlogwriter.write.writer import BinlogWriter

T = Table.from_sql("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(200))", database="db")


def _write(out: Path, rows: int = 3, **kw) -> list[Path]:
    with BinlogWriter(out, BinlogFormat.mysql80(), **kw) as w:
        w.ddl("CREATE DATABASE db")
        with w.transaction() as tx:
            tx.insert(T, [(i, "x" * 200) for i in range(rows)])
    return w.files


def test_existing_binlog_is_not_overwritten(tmp_path: Path) -> None:
    _write(tmp_path, rows=1)
    before = (tmp_path / "binlog.000001").read_bytes()
    with pytest.raises(OutputExistsError) as info:
        _write(tmp_path, rows=5)
    assert str(tmp_path / "binlog.000001") in str(info.value)
    assert "overwrite=True" in str(info.value)
    assert isinstance(info.value, BinlogError)
    assert (tmp_path / "binlog.000001").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["binlog.000001", "binlog.index"]


def test_existing_second_file_is_not_overwritten(tmp_path: Path) -> None:
    """The check holds for every file the writer opens, also after a rotation."""
    (tmp_path / "binlog.000002").write_bytes(b"not ours")
    with pytest.raises(OutputExistsError, match="binlog.000002"):
        with BinlogWriter(tmp_path, BinlogFormat.mariadb1011(), max_binlog_size=4096) as w:
            for i in range(40):
                with w.transaction() as tx:
                    tx.insert(T, [(i, "y" * 200)])
    assert (tmp_path / "binlog.000002").read_bytes() == b"not ours"
    assert not list(tmp_path.glob("*.part"))


def test_overwrite_true_replaces(tmp_path: Path) -> None:
    _write(tmp_path, rows=1)
    small = (tmp_path / "binlog.000001").stat().st_size
    _write(tmp_path, rows=5, overwrite=True)
    assert (tmp_path / "binlog.000001").stat().st_size > small


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("rows", [1, 2000])  # buffered (fails at close) and large (fails in write)
def test_full_disk_removes_part_and_raises_one_error(tmp_path: Path, rows: int) -> None:
    (tmp_path / "binlog.000001.part").symlink_to("/dev/full")
    with pytest.raises(OutputError) as info:
        _write(tmp_path, rows=rows)
    msg = str(info.value)
    assert "binlog.000001.part" in msg and "No space left on device" in msg, msg
    assert "\n" not in msg
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "the .part must be removed"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_full_disk_on_the_index(tmp_path: Path) -> None:
    (tmp_path / "binlog.index.part").symlink_to("/dev/full")
    with pytest.raises(OutputError, match=r"binlog\.index\.part.*No space left"):
        _write(tmp_path)
    assert not (tmp_path / "binlog.index.part").exists()
    assert not (tmp_path / "binlog.index").exists()


def test_existing_index_is_not_overwritten(tmp_path: Path) -> None:
    """An index of another file set (its binlogs moved away) is refused before anything is
    written; overwrite=True replaces it."""
    (tmp_path / "binlog.index").write_text("./binlog.000007\n")
    with pytest.raises(OutputExistsError, match=r"binlog\.index exists"):
        _write(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["binlog.index"]
    assert (tmp_path / "binlog.index").read_text() == "./binlog.000007\n"
    _write(tmp_path, overwrite=True)
    assert (tmp_path / "binlog.index").read_text() == "./binlog.000001\n"


def test_full_disk_in_write_leaves_no_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ENOSPC raised by the file's own write (fault injection at the write layer, after some
    bytes went through): one OutputError naming the .part, nothing left, the writer closed."""
    import errno
    import io

    written = [0]
    real_write = io.BufferedWriter.write

    class Full(io.BufferedWriter):
        def write(self, data) -> int:
            written[0] += len(data)
            if written[0] > 30_000:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real_write(self, data)

    import binlogwriter.appendfile as amod  # FileSink's AppendFile opens new .part files
    import binlogwriter.sinks as wmod  # FileSink opens resumed ones

    real_open = open

    def fake_open(path, mode="r", *a, **kw):
        fh = real_open(path, mode, *a, **kw)
        if "b" in mode and str(path).endswith(".part"):
            raw = fh.detach()
            return Full(raw)
        return fh

    monkeypatch.setattr(wmod, "open", fake_open, raising=False)
    monkeypatch.setattr(amod, "open", fake_open, raising=False)
    with pytest.raises(OutputError) as info:
        _write(tmp_path, rows=2000)
    msg = str(info.value)
    assert "binlog.000001.part" in msg and "No space left on device" in msg and "\n" not in msg
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["mysql80", "mariadb1011"]), st.integers(1, 60), st.sampled_from([4096, 20_000, 1 << 30]),
       st.booleans())
def test_digest_while_writing_is_the_file_sha256(flavor: str, txns: int, max_size: int, staged: bool) -> None:
    """``FileSink(digest=True)`` gives the sha256 of every complete file as it ends on disk
    (the FDE's in-use flag cleared), computed while it is written, across rotations, per
    group or staged."""
    import hashlib
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        out = Path(d)
        sink = FileSink(out, digest=True)
        with BinlogWriter(out, getattr(BinlogFormat, flavor)(), max_binlog_size=max_size, sink=sink,
                          stage_bytes=(1 << 20) if staged else 0) as w:
            for i in range(txns):
                with w.transaction() as tx:
                    tx.insert(T, [(i, "z" * (i % 200))])
        assert sink.digests and sorted(sink.digests) == sorted(p.name for p in w.files)
        for p in w.files:
            assert sink.digests[p.name] == hashlib.sha256(p.read_bytes()).hexdigest(), p.name


def test_resumed_file_has_no_digest_and_suspend_stops_hashing(tmp_path: Path) -> None:
    """A file continued by another writer was not seen whole by its sink: no digest for it
    (the caller reads the file), the files that sink wrote whole still have theirs."""
    import hashlib

    fmt = BinlogFormat.mysql80()
    first = FileSink(tmp_path, digest=True)
    w = BinlogWriter(tmp_path, fmt, sink=first)
    with w.transaction() as tx:
        tx.insert(T, [(1, "a")])
    state = w.suspend()
    assert first.digests == {}
    second = FileSink(tmp_path, digest=True)
    w2 = BinlogWriter.resume(tmp_path, fmt, state, sink=second, max_binlog_size=4096)
    for i in range(40):
        with w2.transaction() as tx:
            tx.insert(T, [(i + 2, "b" * 200)])
    w2.close()
    names = [p.name for p in w2.files]
    assert names[0] not in second.digests
    assert sorted(second.digests) == names[1:]
    for n in names[1:]:
        assert second.digests[n] == hashlib.sha256((tmp_path / n).read_bytes()).hexdigest()
