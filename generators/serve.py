"""``binlogwriter serve --generate SPEC``: the generator's side of a generated stream.

The codec's server (binlogwriter/serve/generated.py) finds :func:`open_stream` through the
``binlogwriter.streams`` entry point (binlogwriter/plugins.py) and gives each dump's run a
:class:`~binlogwriter.write.writer.BinlogWriter` whose sink sends the bytes to the client. Here a
spec becomes that run with the steps ``generate`` takes (generators/engine.py ``Run.run``:
the initial state, the DDL and initial rows with ``ddl_in_binlog``, then ``Run._loop``, the
batch engine of generators/run_batched.py: ``apply_batch`` -> ``rows_batch`` ->
``writer.plan_rows`` -> ``write_segments``), so every client gets the bytes ``generate``
writes, a batch at a time. The only difference is where the bytes go: no file is written,
so the ``--size`` limit counts the bytes of the completed files as the sink reports them
(:meth:`StreamingRun._bytes`) instead of their sizes on disk.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from binlogwriter.serve.packets import EventRun
from binlogwriter.write.writer import BinlogWriter
from generators.engine import Run
from generators.errors import SpecError
from generators.spec_file import read_spec_file

__all__ = ["SpecStream", "RunStream", "StreamingRun", "open_stream"]


@dataclass
class StreamingRun(Run):
    """A :class:`~generators.engine.Run` whose files are not on disk: ``written()`` gives the
    bytes of the files the writer completed (the sink counts them), and the per-file
    bookkeeping the manifest would need (``spans``, ``file_info``) is dropped once a file is
    complete, so an endless stream holds no growing state but the key space."""

    written: Callable[[], int] = field(default=lambda: 0)

    def _bytes(self, writer: BinlogWriter, closed: list[int]) -> int:
        """The run's bytes so far (what ``generate``'s ``--size`` rule compares): the
        completed files' sizes plus the open file's position."""
        return self.written() + writer.position

    def write_segments(self, writer: BinlogWriter, plan: Any, ab: Any, n: int,
                       cut_at: Callable[[int], int] | None = None) -> tuple[int, list[list[Any]]]:
        """:meth:`BatchedMixin.write_segments` with the plan's bytes handed to the sink with
        their event lengths (:class:`_LengthsPlan`), then the bookkeeping of complete files
        dropped."""
        out = super().write_segments(writer, _LengthsPlan(plan), ab, n, cut_at)
        cur = writer.current_file
        for d in (self.spans, self.file_info):
            for name in [k for k in d if k != cur]:
                del d[name]
        return out


class _LengthsPlan:
    """A :class:`~binlogwriter.batch.columnar_encode.RowsPlan` whose encoded groups come as
    an :class:`~binlogwriter.serve.packets.EventRun`: the same bytes, with the lengths of
    their events from the plan (``ev_len``), so the dump frames them without walking them.
    Everything else is the plan's."""

    def __init__(self, plan: Any) -> None:
        self._plan = plan

    def __getattr__(self, name: str) -> Any:
        return getattr(self._plan, name)

    def _lengths(self, lo: int, hi: int) -> Any:
        p = self._plan
        return p.ev_len[int(p.txn_first[lo]):int(p.txn_first[hi])]

    def encode(self, lo: int, hi: int, offset: int, ids: Any) -> EventRun:
        return EventRun(self._plan.encode(lo, hi, offset, ids), self._lengths(lo, hi))

    def encode_later(self, lo: int, hi: int, offset: int, ids: Any) -> Callable[[], EventRun]:
        build = self._plan.encode_later(lo, hi, offset, ids)
        lengths = self._lengths(lo, hi)
        return lambda: EventRun(build(), lengths)


class RunStream:
    """One client's run of the spec (:class:`binlogwriter.serve.generated.StreamRun`)."""

    def __init__(self, run: StreamingRun) -> None:
        self.run = run

    def writer_args(self) -> dict[str, Any]:
        s = self.run.spec
        return dict(basename=s.basename, server_id=s.server_id, max_binlog_size=s.max_binlog_size,
                    start_time=s.start_time, settings=self.run.session_settings())

    def generate(self, writer: BinlogWriter, written: Callable[[], int]) -> None:
        """Everything ``generate`` writes, into the open ``writer`` (left open: the caller
        closes it): the initial state (with ``ddl_in_binlog`` its DDL and rows in the binlog),
        then the transactions and their DDL through the engine's loop (the batch path, as
        ``generate``'s ``Run.run`` calls it) until the spec's limit, or forever.
        ``written()``: the bytes of the files the writer completed."""
        run = self.run
        run.written = written
        for rt in run.rows:
            rt.load_initial(run.initial_keys(rt))
        run.open_binlog(writer)
        run._loop(writer)


class SpecStream:
    """A spec as a generated stream (:class:`binlogwriter.serve.generated.StreamSource`):
    endless, or ``size`` bytes, or the spec's own ``transactions`` / ``size`` when it names one."""

    def __init__(self, spec_path: str | os.PathLike, size: int | None) -> None:
        from generators.cli import build_spec, setting_place

        sf = read_spec_file(spec_path)
        options = {"size": size} if size is not None else {}
        try:
            # the spec ``generate --spec SPEC [--size SIZE]`` runs (the same rule: generators/cli.py)
            spec = build_spec(sf, None, options)
            if size is None and "size" not in sf.data and "transactions" not in sf.data:
                spec = replace(spec, transactions=None, size=None)  # no limit named: endless
            probe = Run(spec, Path(os.devnull))
        except SpecError as e:  # located as ``generate`` locates it: SPEC:LINE of the setting
            where = setting_place(sf, e, options, None)
            if where is None:
                raise
            raise SpecError(f"{where}: {e}", setting=e.setting) from None
        self.limit_size = spec.size
        self.limit_transactions = spec.transactions
        self.spec = replace(probe.spec, transactions=spec.transactions, size=spec.size)
        self.fmt = probe.fmt
        self.basename = self.spec.basename
        self.server_id = self.spec.server_id
        self.gtid = self.spec.gtid

    def new_run(self) -> RunStream:
        run = StreamingRun(self.spec, Path(os.devnull))
        run.spec = self.spec  # resolve() gives an unlimited spec the default transactions
        return RunStream(run)


def open_stream(spec_path: str | os.PathLike, size: int | None) -> SpecStream:
    """Entry point ``binlogwriter.streams:generate``."""
    return SpecStream(spec_path, size)
