"""``binlogwriter serve --generate SPEC``: the generator's side of a generated stream.

The codec's server (binlogwriter/serve/generated.py) finds :func:`open_stream` through the
``binlogwriter.streams`` entry point (binlogwriter/plugins.py) and drives it transaction by
transaction into an in-memory writer; here a spec becomes that stream with the engine's own
steps (generators/engine.py ``Run``), so every client gets the bytes ``generate`` writes.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from binlogwriter.writer import BinlogWriter
from generators.engine import Run
from generators.plan import plan_transaction
from generators.spec import Spec, load_spec_file

__all__ = ["SpecStream", "RunStream", "open_stream"]


class RunStream:
    """One client's run of the spec (:class:`binlogwriter.serve.generated.StreamRun`)."""

    def __init__(self, run: Run) -> None:
        self.run = run

    def writer_args(self) -> dict[str, Any]:
        s = self.run.spec
        return dict(basename=s.basename, server_id=s.server_id, max_binlog_size=s.max_binlog_size,
                    start_time=s.start_time, settings=self.run.session_settings())

    def start(self, writer: BinlogWriter) -> None:
        """The initial state (the rows before the first event; with ``ddl_in_binlog`` also
        written into the open ``writer``)."""
        run = self.run
        for rt in run.rows:
            rt.load_initial(run.initial_keys(rt))
        if run.spec.ddl_in_binlog:
            run.initial_in_binlog(writer)

    def transaction(self, writer: BinlogWriter, i: int) -> None:
        """Planned transaction ``i`` (and the DDL that follows it)."""
        run = self.run
        plan = plan_transaction(run.spec, len(run.rows), i)
        run.transaction(writer, plan, run._apply(plan))


class SpecStream:
    """A spec as a generated stream (:class:`binlogwriter.serve.generated.StreamSource`):
    endless, or ``size`` bytes, or the spec's own ``transactions`` / ``size`` when it names one."""

    def __init__(self, spec_path: str | os.PathLike, size: int | None) -> None:
        data = load_spec_file(spec_path)
        spec = Spec.from_dict(data)
        self.limit_size = size if size is not None else (spec.size if "size" in data else None)
        self.limit_transactions = spec.transactions if size is None and "transactions" in data else None
        self.spec = replace(spec, size=None) if spec.size is not None else spec
        probe = Run(self.spec, Path(os.devnull))
        self.spec = probe.spec  # resolved: GTID source, defaults
        self.fmt = probe.fmt
        self.basename = self.spec.basename
        self.server_id = self.spec.server_id
        self.gtid = self.spec.gtid

    def new_run(self) -> RunStream:
        return RunStream(Run(self.spec, Path(os.devnull)))


def open_stream(spec_path: str | os.PathLike, size: int | None) -> SpecStream:
    """Entry point ``binlogwriter.streams:generate``."""
    return SpecStream(spec_path, size)
