"""``binlogwriter generate`` killed at any moment leaves nothing at ``--out`` that looks
complete, and the next run into the same ``--out`` cleans up after it (issue 15).

The run is staged in ``.OUT.tmp-XXXX`` beside ``--out`` (locked with ``flock`` while its run
lives) and renamed to ``--out`` only once ``manifest.json`` is in it. The kills are real
SIGKILLs of a real ``python -m binlogwriter generate`` at seeded random moments.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from generators.engine import lock_dir, sweep_stale_tmp

ROOT = Path(__file__).resolve().parents[2]
KILLS = 10


def _generate(out: Path, size: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, "-m", "binlogwriter", "generate", "--out", str(out), "--size", size,
                             "--no-progress"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _stale(parent: Path, out: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith(f".{out.name}.tmp-"))


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX only")
def test_sigkill_leaves_nothing_complete_and_rerun_cleans_up(tmp_path: Path) -> None:
    rng = random.Random(15)
    out = tmp_path / "out"
    staged = 0  # kills that happened after the run had created its temporary directory
    for k in range(KILLS):
        earlier = set(_stale(tmp_path, out))
        proc = _generate(out, "1GB")  # longer than the 2 s a kill waits at most, on a fast machine too
        if k % 3:  # most kills once the run writes (a loaded machine starts slowly), some at once
            end = time.monotonic() + 60
            while not set(_stale(tmp_path, out)) - earlier and proc.poll() is None and time.monotonic() < end:
                time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 2.0))
        finished = proc.poll() is not None
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        if finished:  # the whole run beat the kill: then it must be complete
            assert proc.returncode == 0 and (out / "manifest.json").is_file()
            break
        if out.exists():  # killed after its rename to --out (the commit point), before it exited
            assert (out / "manifest.json").is_file(), f"kill {k}: a killed run left {sorted(os.listdir(out))} at --out"
            assert not list(out.glob("*.part")), f"kill {k}: a complete run holds a .part: {sorted(os.listdir(out))}"
            break
        staged += bool(set(_stale(tmp_path, out)) - earlier)
        # a killed run's temporary directory is swept by the next one, not accumulated
        assert len(_stale(tmp_path, out)) <= 1, _stale(tmp_path, out)
    assert staged >= KILLS // 2, "too few kills landed while the run was writing: the test tests little"
    proc = _generate(out, "1MB")
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr.decode()
    assert (out / "manifest.json").is_file() and (out / "binlog.000001").is_file()
    assert _stale(tmp_path, out) == [], "the rerun must remove the killed runs' temporary directories"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_sweep_leaves_a_live_runs_directory(tmp_path: Path) -> None:
    """A temporary directory whose run holds its lock is another live run's: kept."""
    out = tmp_path / "out"
    live, dead = tmp_path / ".out.tmp-live", tmp_path / ".out.tmp-dead"
    other = tmp_path / ".other.tmp-x"
    for d in (live, dead, other):
        (d / "truth").mkdir(parents=True)
        (d / "binlog.000001.part").write_bytes(b"x")
    fd = lock_dir(live)
    assert fd is not None
    try:
        assert sweep_stale_tmp(out) == [dead]
    finally:
        os.close(fd)
    assert live.is_dir() and other.is_dir() and not dead.exists()
    assert sweep_stale_tmp(out) == [live]


def test_full_disk_is_one_line_and_cleans_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli) -> None:
    """ENOSPC in the middle of a binlog file: one line on stderr, status 1 (not the user's
    fault, docs/generate.md), and nothing left at --out or beside it."""
    import errno

    from binlogwriter.sinks import FileSink

    calls = [0]  # bytes written

    # the file object fails, as a real one does (FileSink turns its OSError into OutputError)
    class FullFile:
        def __init__(self, fh) -> None:
            self.fh = fh

        def write(self, data: bytes) -> int:
            calls[0] += len(data)
            if calls[0] > 200_000:  # the disk is full after 200 kB
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return self.fh.write(data)

        def __getattr__(self, name: str):
            return getattr(self.fh, name)

    real_open = FileSink.open

    def open_(self, name: str, offset: int) -> None:
        real_open(self, name, offset)
        self._fh = FullFile(self._fh)

    monkeypatch.setattr(FileSink, "open", open_)
    out = tmp_path / "out"
    result = run_cli("--out", str(out), "--transactions", "500", "--no-progress")
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines() if hasattr(result, "stderr") else result.output.strip().splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0] and "binlog.000001.part" in lines[0], lines
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def _wait_staged(proc: subprocess.Popen, parent: Path, out: Path, timeout: float = 60) -> None:
    """Until the run has created its temporary directory (the kill lands mid-run)."""
    end = time.monotonic() + timeout
    while not _stale(parent, out):
        assert proc.poll() is None, proc.communicate()[1].decode()
        assert time.monotonic() < end, "the run never staged"
        time.sleep(0.05)


@pytest.mark.skipif(not hasattr(signal, "SIGTERM"), reason="POSIX only")
@pytest.mark.parametrize(("sig", "status", "name"), [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "SIGINT")])
def test_sigterm_and_sigint_clean_up(tmp_path: Path, sig: int, status: int, name: str) -> None:
    """A polite kill: one line, the temporary directory removed by the run itself, exit
    status 128 + signal (as a shell reports it); a rerun into the same --out works."""
    out = tmp_path / "out"
    proc = _generate(out, "200MB")
    _wait_staged(proc, tmp_path, out)
    time.sleep(0.5)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=60)
    lines = stderr.decode().strip().splitlines()
    assert proc.returncode == status, lines
    assert lines == [f"binlogwriter generate: interrupted by {name} (nothing was left at {out})"], lines
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "the run must remove its own temporary directory"
    rerun = _generate(out, "1MB")
    _, stderr = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, stderr.decode()
    assert (out / "manifest.json").is_file()
