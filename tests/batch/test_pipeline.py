"""binlogwriter/batch/pipeline.py: jobs written in the order handed, every other sink call
after them, and a failed job's error raised on the caller's thread with nothing written
after it."""

from __future__ import annotations

import threading

import pytest

from binlogwriter.batch.pipeline import PipelinedSink
from binlogwriter.errors import OutputError


class Recorder:
    """A sink that records its calls (and the thread of each write)."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.calls: list[tuple] = []
        self.fail_at = fail_at
        self.threads: set[str] = set()
        self.attempts = 0

    def open(self, name: str, offset: int) -> None:
        self.calls.append(("open", name, offset))

    def write(self, data: bytes) -> None:
        self.threads.add(threading.current_thread().name)
        self.attempts += 1
        if self.attempts - 1 == self.fail_at:  # this write fails, later ones would not
            raise OutputError("cannot write x.part: No space left on device", file="x.part")
        self.calls.append(("write", data))

    def set_final(self, pos: int, data: bytes) -> None:
        self.calls.append(("final", pos, data))

    def finish(self):
        self.calls.append(("finish",))
        return "x"

    def suspend(self) -> None:
        self.calls.append(("suspend",))

    def abort(self) -> None:
        self.calls.append(("abort",))


@pytest.mark.parametrize("depth", [1, 2, 5])
def test_order_is_kept(depth: int) -> None:
    rec = Recorder()
    p = PipelinedSink(rec, depth=depth)
    p.open("f", 0)
    for i in range(20):
        if i % 7 == 3:
            p.write(b"direct%d" % i)  # a plain write comes after the jobs handed before it
        else:
            p.write_later(lambda i=i: b"job%d" % i)
        if i == 10:
            p.write_later(bytes)  # an empty job writes nothing
    assert p.finish() == "x"
    p.close()
    want = [("open", "f", 0)] + [("write", (b"direct%d" if i % 7 == 3 else b"job%d") % i) for i in range(20)]
    assert rec.calls == want + [("finish",)]
    assert any(t.startswith("binlog-encode") for t in rec.threads)


def test_a_failed_job_raises_on_the_caller_and_nothing_follows_it() -> None:
    rec = Recorder(fail_at=3)
    p = PipelinedSink(rec, depth=4)
    p.open("f", 0)
    gate = threading.Event()
    p.write_later(lambda: (gate.wait(5), b"a")[1])
    for k in (b"b", b"c", b"d"):  # d fails; e and f are handed before the caller learns it
        p.write_later(lambda k=k: k)
    with pytest.raises(OutputError, match="No space left"):
        gate.set()
        p.write_later(lambda: b"e")
        p.write_later(lambda: b"f")
        rec_done = threading.Event()
        p._pool.submit(rec_done.set)
        rec_done.wait(5)  # the worker has reached every job: e and f ran (or were skipped)
        p.drain()
    p.abort()
    p.close()
    writes = [c[1] for c in rec.calls if c[0] == "write"]
    assert writes == [b"a", b"b", b"c"]
    assert rec.calls[-1] == ("abort",)
