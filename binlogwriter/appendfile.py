"""A new file written front to back: through the page cache for its first bytes, then with
``O_DIRECT`` (Linux) from a block boundary on.

A binlog of gigabytes written through the page cache costs one kernel copy of every byte
into freshly allocated cache pages, and it leaves gigabytes of dirty cache behind: the
kernel then writes them back while the run goes on. On the 2-core VMs the benchmarks run on,
that copy took 0.4-4 CPU-seconds per GB (its cost depends on whether the host has backed the
guest's free pages) against 0.2-0.3 s with ``O_DIRECT`` (``dd bs=8M``, 1 GB, measured side by
side; the figures are in issue #10's closing note). So :class:`AppendFile` writes the first
:data:`DIRECT_AFTER` bytes of a file as any file is written (small files, the ones tests and
fixtures read back at once, stay in the page cache), then stages the rest in an aligned
buffer and writes whole blocks with ``O_DIRECT`` (open(2): the buffer address, the length
and the file offset are multiples of the logical block size; :data:`BLOCK` = 4096 covers
512- and 4096-byte sectors). At :meth:`close` the last partial block is written padded
with zeros and the file truncated to its length. Where ``O_DIRECT`` is not available (not
Linux, or a file system that refuses it with EINVAL) the whole file goes through the page
cache. Linux keeps the two coherent: a direct write flushes and drops cached pages of its
own range, and the ranges here do not overlap. ``BINLOGWRITER_DIRECT_IO=0`` in the
environment turns ``O_DIRECT`` off (e.g. a slow disk, where a run that fits in the page
cache would otherwise wait for the device).
"""

from __future__ import annotations

import errno
import os

import numpy as np

__all__ = ["AppendFile", "write_at", "DIRECT_AFTER", "BLOCK", "STAGE"]

BLOCK = 4096  # alignment of O_DIRECT buffers, lengths and offsets
STAGE = 8 << 20  # bytes staged per direct write
DIRECT_AFTER: int | None = None if os.environ.get("BINLOGWRITER_DIRECT_IO", "1") == "0" else 64 << 20
"""Bytes of a file written through the page cache before ``O_DIRECT``; None (environment
``BINLOGWRITER_DIRECT_IO=0``): never."""

_O_DIRECT = getattr(os, "O_DIRECT", 0)


class AppendFile:
    """``open(path, "wb")`` for appending only: :meth:`write`, :meth:`flush`, :meth:`close`
    (and :attr:`size`, :attr:`direct`). ``direct_after``: bytes written through the page cache first (None:
    all of them, no ``O_DIRECT``). An ``OSError`` of the file system is raised as it comes."""

    def __init__(self, path: str | os.PathLike, direct_after: int | None = DIRECT_AFTER) -> None:
        self._path = os.fspath(path)
        self._fh = open(self._path, "wb")  # noqa: SIM115 - closed by close()
        self._after = direct_after if _O_DIRECT else None
        self.size = 0  # bytes written (the file's length once closed)
        self._fd: int | None = None  # the O_DIRECT descriptor, once switched
        self._stage: memoryview | None = None
        self._fill = 0  # bytes waiting in the stage
        self.direct = False  # True once bytes go with O_DIRECT
        self._sent = 0  # bytes written with O_DIRECT

    def write(self, data) -> int:
        mv = memoryview(data).cast("B")
        n = len(mv)
        if self._fd is None:
            if self._after is None or self.size + n <= self._after:
                self._fh.write(mv)
                self.size += n
                return n
            head = -self.size % BLOCK  # through the page cache up to a block boundary
            if head >= n:
                self._fh.write(mv)
                self.size += n
                return n
            if head:
                self._fh.write(mv[:head])
                self.size += head
            self._switch()
            if self._fd is None:  # O_DIRECT refused: the page cache it is
                self._fh.write(mv[head:])
                self.size += n - head
                return n
            mv = mv[head:]
        self.size += len(mv)
        at = 0
        while at < len(mv):
            k = min(len(mv) - at, STAGE - self._fill)
            self._stage[self._fill:self._fill + k] = mv[at:at + k]
            self._fill += k
            at += k
            if self._fill == STAGE:
                self._drain(STAGE)
                if self._fd is None:  # the first direct write was refused
                    self._fh.write(mv[at:])
                    break
        return n

    def _switch(self) -> None:
        self._fh.flush()
        try:
            fd = os.open(self._path, os.O_WRONLY | _O_DIRECT | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            if exc.errno == errno.EINVAL:  # the file system has no O_DIRECT
                self._after = None
                return
            raise
        buf = np.empty(STAGE + BLOCK, dtype=np.uint8)
        skip = -buf.ctypes.data % BLOCK
        self._stage = memoryview(buf[skip:skip + STAGE])
        os.lseek(fd, self.size, os.SEEK_SET)
        self._fd = fd
        self.direct = True

    def _drain(self, k: int) -> None:
        """Write the first ``k`` staged bytes (a multiple of :data:`BLOCK`) and move what is
        left to the front of the stage. A file system that opens with ``O_DIRECT`` but
        refuses the first such write (EINVAL) gets the staged bytes and the rest of the file
        through the page cache (:attr:`direct` is False again)."""
        at = 0
        while at < k:
            try:
                w = os.write(self._fd, self._stage[at:k])
            except OSError as exc:
                if exc.errno == errno.EINVAL and not self._sent:
                    os.close(self._fd)
                    self._fd, self._after, self.direct = None, None, False
                    self._fh.write(self._stage[:self._fill])
                    self._fill = 0
                    return
                raise
            if w <= 0 or w % BLOCK:
                raise OSError(errno.EIO, f"short direct write ({w} of {k - at} bytes)")
            at += w
            self._sent += w
        left = self._fill - k
        if left:
            self._stage[:left] = self._stage[k:self._fill]
        self._fill = left

    def flush(self) -> None:
        """Hand the bytes written so far to the kernel: all of them through the page cache,
        the whole staged blocks with ``O_DIRECT`` (a partial block waits for :meth:`close`)."""
        self._fh.flush()
        if self._fd is not None and self._fill >= BLOCK:
            self._drain(self._fill - self._fill % BLOCK)

    def close(self) -> None:
        """Write what is staged (the last block padded with zeros), cut the file to
        :attr:`size` and close it. Idempotent."""
        try:
            if self._fd is not None and self._fill:
                pad = -self._fill % BLOCK
                self._stage[self._fill:self._fill + pad] = bytes(pad)
                self._fill += pad
                self._drain(self._fill)
                if self._fd is not None:
                    os.ftruncate(self._fd, self.size)
                else:  # fell back with the padding: cut it
                    self._fh.flush()
                    self._fh.truncate(self.size)
        finally:
            try:
                if self._fd is not None:
                    fd, self._fd = self._fd, None
                    os.close(fd)
            finally:
                self._fh.close()

    def __enter__(self) -> AppendFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def write_at(path: str | os.PathLike, pieces: list[tuple[int, bytes]], *, fsync: bool = False) -> None:
    """Overwrite ``data`` at offset ``pos`` of the closed file ``path`` for every ``(pos, data)``
    of ``pieces`` (a binlog's finals: the FDE's in-use flag), through the page cache, and
    ``fsync`` it if asked. After :meth:`AppendFile.close` the file is complete on disk, so a
    piece written back into its direct part is coherent."""
    if not pieces and not fsync:
        return
    with open(path, "r+b") as f:
        for pos, data in pieces:
            f.seek(pos)
            f.write(data)
        if fsync:
            f.flush()
            os.fsync(f.fileno())
