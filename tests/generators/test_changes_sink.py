"""The truth writer thread (generators/changes_sink.py ``_Sink``) and the recorder's jobs on
it (``ChangesRecorder._later`` / ``_settle``): jobs run in the order given, a job given by a
job runs at once in its place (the batch path's records write the row groups they fill from
that thread), and an error of a job is raised in the caller's thread at the next submit,
drain or close, after which the jobs still queued do not run."""

from __future__ import annotations

import threading

import pytest

from generators.changes_sink import Sink


def test_jobs_run_in_order_nested_jobs_in_place() -> None:
    sink = Sink(2)
    done: list[str] = []
    main = threading.current_thread()

    def outer(k: int) -> None:
        assert threading.current_thread() is not main
        done.append(f"build {k}")
        sink.submit(lambda: done.append(f"write {k}"))  # from the sink's thread: runs here, now
        done.append(f"after {k}")

    for k in range(5):
        sink.submit(lambda k=k: outer(k))
    sink.drain()
    assert done == [x for k in range(5) for x in (f"build {k}", f"write {k}", f"after {k}")]
    sink.close()


def test_an_error_is_raised_in_the_callers_thread() -> None:
    sink = Sink(1)
    ran: list[int] = []
    go = threading.Event()

    def bad() -> None:
        go.wait()
        raise ValueError("boom")

    sink.submit(bad)
    sink.submit(lambda: ran.append(1))  # queued behind the error: skipped
    go.set()
    with pytest.raises(ValueError, match="boom"):
        sink.drain()
    assert ran == []
    sink.submit(lambda: ran.append(2))  # the error was raised once; later jobs run
    sink.close()
    assert ran == [2]
