"""Debug mode: CPU seconds per stage of a Spark run, split driver / JVM / Python workers.

``BINLOGWRITER_SPARK_TIMING=1`` (or a file path) makes spark_gen/job.py mark the end of
each stage; at the end of the run a table goes to stderr (or is appended to that file).
CPU time is read from ``/proc`` (user + system, with reaped children) for this process
("driver"), every process below it named ``java`` ("jvm": the gateway JVM and its
executor threads in local mode) and every other process below it ("workers": the Python
workers that run the partition functions). Wall-clock figures mean little on a shared
machine; CPU per stage does not depend on the load, and the driver's share of the total
is the serial part of the job (Amdahl: with a serial share ``s``, N cores give at most
``1 / (s + (1 - s) / N)``).

On a cluster the executors are not below the driver: only the driver's and the local
JVM's figures are then meaningful. Without ``/proc`` (not Linux) nothing is measured.
"""

from __future__ import annotations

import os
import sys
import time

__all__ = ["StageTimer", "tree_cpu"]

_ENV = "BINLOGWRITER_SPARK_TIMING"


def tree_cpu() -> dict[str, float]:
    """CPU seconds (user + system, with reaped children) of this process ("driver"), the
    ``java`` processes below it ("jvm") and every other process below it ("workers")."""
    out = {"driver": 0.0, "jvm": 0.0, "workers": 0.0}
    if not os.path.isdir("/proc"):
        return out
    tick = os.sysconf("SC_CLK_TCK")
    kids: dict[int, list[int]] = {}
    stat: dict[int, list[str]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                s = f.read()
        except OSError:
            continue
        fields = [s[s.index("(") + 1:s.rindex(")")], *s[s.rindex(")") + 2:].split()]  # comm, state, ppid, ...
        stat[int(d)] = fields
        kids.setdefault(int(fields[2]), []).append(int(d))
    me = os.getpid()
    todo = [me]
    while todo:
        pid = todo.pop()
        f = stat.get(pid)
        if f is not None:
            who = "driver" if pid == me else "jvm" if f[0] == "java" else "workers"
            out[who] += sum(int(x) for x in f[12:16]) / tick  # utime stime cutime cstime
        todo.extend(kids.get(pid, []))
    return out


class StageTimer:
    """Marks stage ends (:meth:`mark`) and reports CPU per stage (:meth:`report`). Inert
    (no ``/proc`` reads) unless ``BINLOGWRITER_SPARK_TIMING`` is set."""

    def __init__(self) -> None:
        self.target = os.environ.get(_ENV, "")
        self.on = bool(self.target)
        self.rows: list[tuple[str, float, dict[str, float]]] = []
        if self.on:
            self._t, self._c = time.perf_counter(), tree_cpu()

    def mark(self, stage: str) -> None:
        if not self.on:
            return
        t, c = time.perf_counter(), tree_cpu()
        self.rows.append((stage, t - self._t, {k: c[k] - self._c[k] for k in c}))
        self._t, self._c = t, c

    def report(self) -> str:
        """The table (also written to stderr or appended to the file the variable names)."""
        if not self.on:
            return ""
        tot = {k: sum(r[2][k] for r in self.rows) for k in ("driver", "jvm", "workers")}
        lines = [f"{'stage':28s} {'wall s':>7s} {'driver':>7s} {'jvm':>7s} {'workers':>8s}"]
        for stage, wall, c in self.rows:
            lines.append(f"{stage:28s} {wall:7.2f} {c['driver']:7.2f} {c['jvm']:7.2f} {c['workers']:8.2f}")
        wall = sum(r[1] for r in self.rows)
        lines.append(f"{'total':28s} {wall:7.2f} {tot['driver']:7.2f} {tot['jvm']:7.2f} {tot['workers']:8.2f}")
        allc = sum(tot.values())
        if allc > 0:
            lines.append(f"driver (serial) share of CPU: {tot['driver'] / allc:.3f}")
        text = "\n".join(lines) + "\n"
        if self.target in ("1", "true", "yes", "stderr"):
            sys.stderr.write(text)
        else:
            with open(self.target, "a", encoding="utf-8") as f:
                f.write(text)
        return text
