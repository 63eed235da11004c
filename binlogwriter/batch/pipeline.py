"""A :class:`~binlogwriter.sinks.Sink` wrapper that builds and writes planned batches on a
worker thread, so that the caller makes the next batch meanwhile.

:meth:`GroupsMixin.write_planned <binlogwriter.write.groups.GroupsMixin.write_planned>`
hands a sink with ``write_later`` the function :meth:`RowsPlan.encode_later
<binlogwriter.batch.columnar_encode.RowsPlan.encode_later>` returns: the ids are taken on
the caller's thread (so the writer's GTID bookkeeping, offsets and rotations stay where
they were), only the bytes — header/template placement, row images, CRC32s — and the file
write move to the worker. numpy's copy kernels, ``zlib.crc32`` on large buffers and file
writes release the GIL, so they overlap the caller's Python work. Bytes are the same
(each job runs in order, one at a time, on one thread). Every other sink call first waits
for the jobs handed before it (:meth:`drain`), and re-raises the first error one of them
raised (e.g. an :class:`~binlogwriter.errors.OutputError` from a full disk, after the
wrapped sink dropped its ``.part``): a killed or failed run never leaves a file under its
final name, as with the plain sink (docs/output.md).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

__all__ = ["PipelinedSink"]


class PipelinedSink:
    """Wraps ``sink``; at most ``depth`` batches wait or run on the worker (their buffers
    are what the wrapper holds in memory beyond the caller's)."""

    def __init__(self, sink: Any, depth: int = 2) -> None:
        self.sink = sink
        self.depth = depth
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="binlog-encode")
        self._jobs: deque[Future] = deque()
        self._failed = False  # a job raised: the jobs after it do nothing

    def write_later(self, build: Callable[[], bytes | memoryview]) -> None:
        """Append ``build()``'s bytes, built and written on the worker thread."""
        while len(self._jobs) >= self.depth:
            self._wait_one()
        self._jobs.append(self._pool.submit(self._run, build))

    def _run(self, build: Callable[[], bytes | memoryview]) -> None:
        if self._failed:  # nothing after a failed job: its bytes would follow a gap
            return
        try:
            data = build()
            if data:
                self.sink.write(data)
        except BaseException:
            self._failed = True
            raise

    def _wait_one(self) -> None:
        try:
            self._jobs[0].result()
        except BaseException:
            for f in self._jobs:
                f.cancel()
            self._settle()
            raise
        self._jobs.popleft()

    def _settle(self) -> None:
        """Wait for the job that may be running and forget the rest (errors dropped)."""
        for f in self._jobs:
            if not f.cancelled():
                try:
                    f.result()
                except BaseException:  # noqa: S110 - the first error is the one raised
                    pass
        self._jobs.clear()

    def drain(self) -> None:
        """Wait until every job handed so far is written; raise the first error."""
        while self._jobs:
            self._wait_one()

    def close(self) -> None:
        """Wait for the jobs (their errors dropped: call :meth:`drain` first to see them)
        and stop the worker."""
        self._settle()
        self._pool.shutdown(wait=True)

    # the Sink protocol: each call after the jobs handed before it
    def open(self, name: str, offset: int) -> None:
        self.drain()
        self.sink.open(name, offset)

    def write(self, data: bytes) -> None:
        self.drain()
        self.sink.write(data)

    def set_final(self, pos: int, data: bytes) -> None:
        self.drain()
        self.sink.set_final(pos, data)

    def finish(self) -> Path:
        self.drain()
        return self.sink.finish()

    def suspend(self) -> None:
        self.drain()
        self.sink.suspend()

    def abort(self) -> None:
        self._settle()
        self.sink.abort()
