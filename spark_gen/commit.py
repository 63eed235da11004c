"""Commit: chunks -> final files. Readers never see a partial file under a final name.

Chunks live in directories unique to a task attempt, so a retried or speculative attempt
never touches another attempt's bytes; only the chunks of the attempt Spark reported as
successful are listed by the driver. :func:`concat` copies them in order into
``<name>.part`` beside the final name, syncs it and renames it (atomic on POSIX file
systems); running it twice gives the same bytes, so a retried commit task is harmless.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import shutil
from pathlib import Path
from typing import Any

from binlogwriter.format import BinlogFormat
from generators.manifest import count_events, file_sha256

__all__ = ["concat", "concat_binlog", "copy_file", "scan_chunk", "unlink_all", "merged_before"]


def concat(chunks: list[str], dest: str, *, head: str | None = None, tail: str | None = None) -> int:
    """Write ``head`` + chunks + ``tail`` to ``dest`` atomically; returns its size."""
    part = f"{dest}.part-{os.getpid()}"
    with open(part, "wb") as out:
        if head:
            out.write(head.encode("utf-8"))
        for c in chunks:
            with open(c, "rb") as f:
                shutil.copyfileobj(f, out, 1 << 22)
        if tail:
            out.write(tail.encode("utf-8"))
        out.flush()
        os.fsync(out.fileno())
    size = os.path.getsize(part)
    os.replace(part, dest)
    return size


def copy_file(src: Any, out: Any) -> None:
    """Append all of open file ``src`` to unbuffered ``out``: ``os.copy_file_range`` (the
    kernel copies the pages: no read into Python, no write back; a fraction of the CPU of
    ``read`` + ``write`` for the hundreds of MB of a binlog), or a plain copy where the
    file system or platform does not offer it."""
    size = os.fstat(src.fileno()).st_size
    done = 0
    try:
        while done < size:
            n = os.copy_file_range(src.fileno(), out.fileno(), size - done, done)
            if n == 0:
                break
            done += n
    except (AttributeError, OSError):  # no copy_file_range here (not Linux, another file system, ...)
        pass
    src.seek(done)
    while True:
        b = src.read(1 << 22)
        if not b:
            break
        view = memoryview(b)
        while view:  # a raw write may take fewer bytes than given
            view = view[out.write(view):]


def scan_chunk(path: str, begin: int, spans: list[tuple[int, int, int, int]] | None = None,
               base: int = 0) -> tuple[int, int | None, int | None]:
    """(events, first and last non-zero header timestamp) of a chunk whose events start at
    byte ``begin`` (4 after the magic of a file's first chunk, else 0): the manifest scan's
    walk (:func:`generators.manifest.count_events`) over one chunk, run by the task that
    wrote the chunk, so the commit only hashes and copies.

    ``spans``: the runs of events the batch path wrote into this file (``Run.spans``: first
    offset, end offset, events, offset of the last event — file offsets; the chunk holds the
    file from offset ``base``): a span whose first and last headers agree with it is counted
    without walking its events."""
    size = os.path.getsize(path)
    if size <= begin:
        return 0, None, None
    shifted = [(s - base, e - base, c, z - base) for s, e, c, z in (spans or ()) if s >= base]
    with open(path, "rb") as f:
        return count_events(f, begin, size, shifted, name=path)


def merged_before(dest: str, chunks: list[str]) -> bool:
    """A retried task whose first attempt got as far as removing its chunks: ``dest`` is in
    place (renamed there before any chunk is removed), so it is complete."""
    return os.path.exists(dest) and not all(os.path.exists(c) for c in chunks)


def unlink_all(paths: list[str]) -> None:
    """Remove ``paths`` (those already gone are fine)."""
    for p in paths:
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass


def _info(path: str, fmt: BinlogFormat, scans: list[tuple[int, int | None, int | None]] | None,
          sha256: str | None = None) -> dict[str, Any]:
    """The manifest scan of file ``path`` from its chunks' scans (``sha256`` given, or
    hashed here), or a full scan (generators.api.scan_file) without them."""
    if scans is None:
        from generators.api import scan_file

        return scan_file(Path(path), fmt)
    if sha256 is None:
        sha256 = file_sha256(Path(path))
    firsts = [x[1] for x in scans if x[1] is not None]
    lasts = [x[2] for x in scans if x[2] is not None]
    return {"bytes": os.path.getsize(path), "sha256": sha256, "events": sum(x[0] for x in scans),
            "first_timestamp": firsts[0] if firsts else None, "last_timestamp": lasts[-1] if lasts else None}


def concat_binlog(chunks: list[str], dest: str, fmt: BinlogFormat,
                  scans: list[tuple[int, int | None, int | None]] | None = None, *,
                  remove_chunks: bool = False) -> dict[str, Any]:
    """A binlog file from its chunks; returns the manifest scan (bytes, sha256, events,
    first/last timestamps) of the result. ``scans``: each chunk's :func:`scan_chunk` (made
    in parallel by the tasks that wrote them): the file is then hashed while it is copied,
    read once; without them it is scanned after the copy (generators.api.scan_file).

    ``remove_chunks``: the chunks are removed once ``dest`` is in place (here, in parallel
    with the other file tasks, instead of by the driver at the end of the run). A retried
    commit whose first attempt got that far finds ``dest`` and some chunks gone: ``dest`` is
    then the complete file (it is renamed into place before any chunk is removed) and is
    only scanned again."""
    if remove_chunks and merged_before(dest, chunks):
        return _info(dest, fmt, scans)
    part = f"{dest}.part-{os.getpid()}"
    if scans is None:
        concat(chunks, part)
        info = _info(part, fmt, None)
    else:
        h = hashlib.sha256()
        with open(part, "wb", buffering=0) as out:
            for c in chunks:
                with open(c, "rb") as f:
                    if os.fstat(f.fileno()).st_size:  # hashed from the page cache, no copy into Python
                        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                            h.update(mm)
                    copy_file(f, out)
            os.fsync(out.fileno())
        info = _info(part, fmt, scans, h.hexdigest())
    os.replace(part, dest)
    if remove_chunks:
        unlink_all(chunks)
    return info
