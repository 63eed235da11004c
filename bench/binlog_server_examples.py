"""Seconds per property-test example against a served consumer (issue #31 §3): the
``binlog_server`` fixture's two modes, timed around what one example does.

Sets are drawn with ``binlogwriter.strategies.binlogs("mariadb1011", "FULL", metadata="FULL")``
(hypothesis ``find``-free: ``example()`` under a fixed seed), written once, untimed. Then for
each mode of :class:`binlogwriter.pytest_plugin.BinlogServer` — ``thread`` (one in-process
server re-pointed per set) and ``process`` (a ``binlogwriter serve`` subprocess per set) — and
each set: ``serve(set)`` then python-mysql-replication reads every rows event non-blocking
(a real consumer, the work of the example). Printed per mode: sets, total seconds, median and
max seconds per example, and the serve() part alone.

Usage: ``PYTHONPATH=$PWD python bench/binlog_server_examples.py [--sets 20]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import warnings
from pathlib import Path


def _draw(n: int, parent: Path) -> list:
    from hypothesis import HealthCheck, Phase, given, seed, settings

    from binlogwriter.strategies import binlogs

    out: list = []

    @seed(31)
    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(binlogs("mariadb1011", "FULL", metadata="FULL", directory=parent))
    def draw(case) -> None:
        out.append(case)

    draw()
    return out


def _read(served) -> int:
    from pymysqlreplication import BinLogStreamReader
    from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = BinLogStreamReader(connection_settings=served.settings, server_id=served.server_id, is_mariadb=True,
                               blocking=False, only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent])
        try:
            n = 0
            for ev in s:
                try:
                    n += len(ev.rows)
                except Exception:  # a value the library cannot decode: the example's own failure
                    n += 0
            return n
        finally:
            s.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", type=int, default=20)
    args = ap.parse_args()
    from binlogwriter.pytest_plugin import BinlogServer

    with tempfile.TemporaryDirectory(prefix="bench-binlog-server-") as d:
        cases = _draw(args.sets, Path(d) / "sets")
        for mode in ("thread", "process"):
            server = BinlogServer(Path(d) / mode, mode)
            per, serve_only = [], []
            started = time.perf_counter()
            try:
                for case in cases:
                    t0 = time.perf_counter()
                    served = server.serve(case)
                    t1 = time.perf_counter()
                    _read(served)
                    per.append(time.perf_counter() - t0)
                    serve_only.append(t1 - t0)
            finally:
                server.close()
            total = time.perf_counter() - started
            print(f"{mode:8} {len(cases)} sets {total:7.2f} s  per example: median {statistics.median(per):.3f} s, "
                  f"max {max(per):.3f} s; serve() alone median {statistics.median(serve_only) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
