"""The worker thread that builds the batch path's change records and writes the truth's
Parquet row groups while the run goes on (part of generators/changes_truth.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class Sink:
    """Jobs run by one worker thread, in the order they are given: the records of a batch
    (:meth:`ChangesRecorder._later`) and the row groups they fill. Parquet encoding,
    compression and most of the numpy work run without the GIL, so the truth is built and
    written while the next batch is generated. At most ``depth`` jobs wait (each holds a
    batch's arrays or a row group)."""

    def __init__(self, depth: int = 1) -> None:
        import queue

        self._q: Any = queue.Queue(maxsize=depth)
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="truth-changes-writer", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while True:
            job = self._q.get()
            try:
                if job is None:
                    return
                if self.error is None:
                    job()
            except BaseException as e:  # noqa: BLE001 - raised in the caller's thread by submit/close
                self.error = e
            finally:
                self._q.task_done()

    def _check(self) -> None:
        if self.error is not None:
            err, self.error = self.error, None
            raise err

    def submit(self, job: Callable[[], None]) -> None:
        """Queue ``job``; a job given by a job (this thread) runs at once, in its place."""
        if self._thread is threading.current_thread():
            job()
            return
        self._check()
        self._q.put(job)

    def drain(self) -> None:
        self._q.join()
        self._check()

    def close(self) -> None:
        """Wait for every job, stop the thread; the first error of a job is raised here."""
        self._q.put(None)
        self._thread.join()
        self._check()
