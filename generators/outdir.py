"""Crash safety of a run's output directory (docs/generate.md): a run is written into
``.OUT.tmp-XXXX`` beside ``out``, held by an ``flock`` while its process lives; the next run
into ``out`` removes the temporary directories of runs that were killed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["lock_dir", "sweep_stale_tmp", "tmp_prefix"]


def tmp_prefix(out: Path) -> str:
    """Name prefix of the temporary directories of runs into ``out`` (crash safety)."""
    return f".{out.name}.tmp-"


def lock_dir(path: Path) -> int | None:
    """An fd holding an exclusive ``flock`` on directory ``path``, or None when another
    live process holds it. The kernel drops the lock when its process dies, even by
    SIGKILL: a temporary directory nobody holds belongs to a run that is gone."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no sweeping, nothing locked
        return -1
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def sweep_stale_tmp(out: Path) -> list[Path]:
    """Remove the temporary directories (``.OUT.tmp-*`` beside ``out``) of earlier runs into
    ``out`` that were killed (SIGKILL, power loss) before they could clean up; a directory
    whose run is still alive (it holds its lock) is left alone. Returns what was removed."""
    parent = out.absolute().parent
    prefix = tmp_prefix(out)
    removed = []
    try:
        candidates = [p for p in parent.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return removed
    for p in candidates:
        if not p.is_dir() or p.is_symlink():
            continue
        fd = lock_dir(p)
        if fd is None:
            continue  # a live run's
        try:
            shutil.rmtree(p, ignore_errors=True)
        finally:
            if fd >= 0:
                os.close(fd)
        removed.append(p)
    return removed
