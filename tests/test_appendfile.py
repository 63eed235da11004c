"""binlogwriter/appendfile.py: a file written through the page cache and then with O_DIRECT
holds exactly the bytes written, whatever the write sizes, the switch point and the stage
size; O_DIRECT is really used where the file system takes it; FileSink files (binlogs) are
the same bytes either way, with the in-use flag cleared by set_final."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter import appendfile
from binlogwriter.appendfile import BLOCK, AppendFile
from binlogwriter.sinks import FileSink


def _direct_supported(directory: Path) -> bool:
    """Whether this file system opens files with O_DIRECT (tmpfs before Linux 6.6 does not)."""
    flag = getattr(os, "O_DIRECT", 0)
    if not flag:
        return False
    probe = directory / ".probe"
    probe.write_bytes(b"")
    try:
        os.close(os.open(probe, os.O_WRONLY | flag))
    except OSError as exc:
        assert exc.errno == errno.EINVAL
        return False
    finally:
        probe.unlink()
    return True


_SIZES = st.lists(st.one_of(st.integers(0, 40), st.integers(0, 3 * BLOCK + 7), st.integers(0, 40_000)),
                  max_size=25)


@settings(max_examples=60, deadline=None)
@given(sizes=_SIZES, after=st.one_of(st.none(), st.integers(0, 20_000)), stage_blocks=st.integers(1, 5),
       kinds=st.lists(st.sampled_from(["bytes", "memoryview", "numpy", "bytearray"]), min_size=1),
       flushes=st.sets(st.integers(0, 24)), seed=st.integers(0, 2**32 - 1))
def test_bytes_are_what_was_written(tmp_path_factory: pytest.TempPathFactory, sizes: list[int],
                                    after: int | None, stage_blocks: int, kinds: list[str],
                                    flushes: set[int], seed: int) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(appendfile, "STAGE", stage_blocks * BLOCK)  # wrap the stage often
        _check_writes(tmp_path_factory.mktemp("append"), sizes, after, kinds, flushes, seed)


def _check_writes(d: Path, sizes: list[int], after: int | None, kinds: list[str], flushes: set[int],
                  seed: int) -> None:
    rng = np.random.default_rng(seed)
    expect = bytearray()
    f = AppendFile(d / "f.bin", direct_after=after)
    for i, n in enumerate(sizes):
        data = rng.integers(0, 256, size=n, dtype=np.uint8)
        kind = kinds[i % len(kinds)]
        arg = {"bytes": data.tobytes(), "memoryview": memoryview(data.tobytes()).toreadonly(),
               "numpy": data, "bytearray": bytearray(data.tobytes())}[kind]
        assert f.write(arg) == n
        expect += data.tobytes()
        if i in flushes:
            f.flush()
    f.close()
    f.close()  # idempotent
    assert f.size == len(expect)
    assert (d / "f.bin").read_bytes() == bytes(expect)
    if after is None or len(expect) <= after:
        assert not f.direct
    elif len(expect) >= after + BLOCK:  # a write reached a block boundary past ``after``
        assert f.direct == _direct_supported(d)


def test_large_file_goes_direct_and_small_one_does_not(tmp_path: Path) -> None:
    if not _direct_supported(tmp_path):
        pytest.fail(f"{tmp_path}: this file system refuses O_DIRECT; run the tests on one that takes it")
    data = np.random.default_rng(1).integers(0, 256, size=3 * appendfile.STAGE + 12_345, dtype=np.uint8)
    with AppendFile(tmp_path / "big", direct_after=appendfile.STAGE + 1) as big:
        for i in range(0, len(data), 1_000_003):
            big.write(memoryview(data)[i:i + 1_000_003])
    with AppendFile(tmp_path / "small") as small:  # the default threshold
        small.write(data[:100_000])
    assert big.direct and not small.direct
    assert (tmp_path / "big").read_bytes() == data.tobytes()
    assert (tmp_path / "small").read_bytes() == data[:100_000].tobytes()


@pytest.mark.parametrize("after", [None, 0, 5_000])
def test_filesink_final_bytes_and_digest_do_not_depend_on_direct(tmp_path: Path, after: int | None) -> None:
    import hashlib

    data = np.random.default_rng(2).integers(0, 256, size=200_000, dtype=np.uint8).tobytes()
    sink = FileSink(tmp_path / str(after), digest=True, direct_after=after)
    sink.open("binlog.000001", 0)
    sink.set_final(21, b"\0\0")  # as the writer does: before the bytes, so the digest sees them
    for i in range(0, len(data), 7_777):
        sink.write(data[i:i + 7_777])
    path = sink.finish()
    want = data[:21] + b"\0\0" + data[23:]
    assert path.read_bytes() == want
    assert sink.digests["binlog.000001"] == hashlib.sha256(want).hexdigest()
    assert not (tmp_path / str(after) / "binlog.000001.part").exists()


class _Os:
    """``os`` for binlogwriter/appendfile.py with its direct writes failing (``errno``) once
    ``after`` bytes went through (buffered writes do not go through ``os.write``)."""

    def __init__(self, err: int, after: int) -> None:
        self.err, self.after, self.sent = err, after, 0

    def __getattr__(self, name: str):
        return getattr(os, name)

    def write(self, fd: int, data) -> int:
        if self.sent + len(data) > self.after:
            raise OSError(self.err, os.strerror(self.err))
        self.sent += len(data)
        return os.write(fd, data)


@pytest.mark.parametrize("chunk", [1_000, 3 * BLOCK, 100_000])
@pytest.mark.parametrize("size", [20_000, 50_000])  # refused at close (the padded tail) / in a write
def test_a_refused_first_direct_write_falls_back_to_the_page_cache(tmp_path: Path, chunk: int, size: int,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(appendfile, "STAGE", 4 * BLOCK)
    monkeypatch.setattr(appendfile, "os", _Os(errno.EINVAL, 0))
    data = np.random.default_rng(3).integers(0, 256, size=size, dtype=np.uint8).tobytes()
    with AppendFile(tmp_path / "f", direct_after=10_000) as f:
        for i in range(0, len(data), chunk):
            f.write(data[i:i + chunk])
    assert not f.direct
    assert (tmp_path / "f").read_bytes() == data


def test_full_disk_in_a_direct_write_is_one_error_and_no_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from binlogwriter.errors import OutputError

    if not _direct_supported(tmp_path):
        pytest.fail(f"{tmp_path}: this file system refuses O_DIRECT")
    monkeypatch.setattr(appendfile, "STAGE", 4 * BLOCK)
    monkeypatch.setattr(appendfile, "os", _Os(errno.ENOSPC, 8 * BLOCK))
    sink = FileSink(tmp_path, direct_after=0)
    sink.open("binlog.000001", 0)
    with pytest.raises(OutputError) as info:
        for _ in range(100):
            sink.write(bytes(5_000))
    msg = str(info.value)
    assert "binlog.000001.part" in msg and "No space left on device" in msg and "\n" not in msg
    assert list(tmp_path.iterdir()) == []


def test_environment_turns_direct_io_off(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = "from binlogwriter.appendfile import DIRECT_AFTER; print(DIRECT_AFTER)"
    env = dict(os.environ)
    env.pop("BINLOGWRITER_DIRECT_IO", None)
    on = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    off = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**env, "BINLOGWRITER_DIRECT_IO": "0"})
    assert on.stdout.strip() == str(64 << 20) and off.stdout.strip() == "None"
