"""The export's Parquet writes on a second thread (binlogwriter/read/exportparquet.py
``_Writer``): batches written in the order given, the first failing write's error raised in
the caller with its part, nothing written after it, and a failing export ending the thread."""

from __future__ import annotations

import threading

import pytest

from binlogwriter.read import exportparquet


class _Part:
    """A ParquetWriter stand-in: records the batches, fails on the one named ``bad``."""

    def __init__(self, log: list, bad: object = None, gate: threading.Event | None = None) -> None:
        self.log, self.bad, self.gate = log, bad, gate
        self.started = threading.Event()  # set when a write is under way

    def write_batch(self, batch: object) -> None:
        self.started.set()
        if self.gate is not None:
            self.gate.wait(10)
        if batch == self.bad:
            raise OSError(27, "File too large")
        self.log.append(batch)


def test_batches_are_written_in_order() -> None:
    log: list = []
    w = exportparquet.Writer()
    where: list[str] = []
    a, b = _Part(log), _Part(log)
    for i in range(50):
        w.write(a if i % 3 else b, i, "p", where)
    w.stop(where)
    assert log == list(range(50)) and not w._thread.is_alive()


def test_a_failed_write_is_raised_with_its_part_and_stops_the_writing() -> None:
    log: list = []
    gate = threading.Event()
    w = exportparquet.Writer()
    where: list[str] = []
    w.write(_Part(log, gate=gate), 1, "t/part-00000.parquet", where)  # held until 2 and 3 are queued
    w.write(_Part(log, bad=2), 2, "u/part-00000.parquet", where)
    threading.Timer(0.3, gate.set).start()
    w.write(_Part(log), 3, "v/part-00000.parquet", where)
    with pytest.raises(OSError, match="File too large"):
        w.wait(where)
    assert where == ["u/part-00000.parquet"]
    assert log == [1]
    with pytest.raises(OSError, match="File too large"):
        w.write(_Part(log), 4, "v/part-00000.parquet", where)
    w.abandon()
    assert not w._thread.is_alive() and log == [1]


def test_abandon_waits_for_the_write_under_way_and_skips_the_rest() -> None:
    log: list = []
    gate = threading.Event()
    w = exportparquet.Writer()
    where: list[str] = []
    part = _Part(log, gate=gate)
    w.write(part, 1, "p", where)
    w.write(part, 2, "p", where)
    assert part.started.wait(10)  # write 1 is under way (else abandon rightly skips it too)
    threading.Timer(0.2, gate.set).start()
    w.abandon()
    assert not w._thread.is_alive() and log == [1]
