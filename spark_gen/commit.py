"""Commit: chunks -> final files. Readers never see a partial file under a final name.

Chunks live in directories unique to a task attempt, so a retried or speculative attempt
never touches another attempt's bytes; only the chunks of the attempt Spark reported as
successful are listed by the driver. :func:`concat` copies them in order into
``<name>.part`` beside the final name, syncs it and renames it (atomic on POSIX file
systems); running it twice gives the same bytes, so a retried commit task is harmless.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from binlogwriter.format import BinlogFormat

__all__ = ["concat", "concat_binlog"]


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


def concat_binlog(chunks: list[str], dest: str, fmt: BinlogFormat) -> dict[str, Any]:
    """A binlog file from its chunks; returns the manifest scan (bytes, sha256, events,
    first/last timestamps) of the result."""
    from generators.api import scan_file

    part = f"{dest}.part-{os.getpid()}"
    concat(chunks, part)
    info = scan_file(Path(part), fmt)
    os.replace(part, dest)
    return info
