"""Scaling of ``generate --engine spark``: local[1] and local[2] beside the one-process engine.

One run of the same spec (``--workload``, default sysbench; ``--size``, default 500MB) by the one-process engine
(``generators.engine.generate``), then by Spark on a ``local[1]`` and on a ``local[2]``
session (the whole job: planning, both shuffles, both passes, commit, truth, manifest;
one untimed warm-up per session: JVM, Python workers, Faker pools). For each: wall time,
CPU time (this process and every process below it — the JVM, its Python workers — from
/proc), MB/s of binlog per wall second and per CPU second. Then the ratios the issue asks
for, side by side:

* ``local[2] / local[1]`` (wall): the scaling (target >= 1.8);
* per-core throughput of Spark against the one-process engine — MB per CPU second, and
  MB/s per core (wall, ``local[N]`` counts N cores) (target >= 0.70).

The load average (``/proc/loadavg``) before and after each run is printed: the machine may
be shared, and wall-clock ratios mean little when it is. ``--repeat N`` runs the three
engines N times in turn (one process, local[1], local[2], then again; both sessions stay
up) and takes each engine's fastest run (least disturbed by other work on the machine; all
runs are printed): load that comes and goes then hits every engine alike. The outputs must
be byte-identical (binlog files compared by sha256). Usage::

    python bench/spark_scaling.py [--workload ecommerce] [--size 500MB] [--tables 4] [--initial-rows 10000]
                                  [--partitions 8] [--skip-local1] [--stages] [--repeat N]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path


def _binlogs(out: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.glob("binlog.[0-9]*"))}


def _bytes(out: Path) -> int:
    return sum(p.stat().st_size for p in out.glob("binlog.[0-9]*"))


def _tree_cpu() -> dict[str, float]:
    """CPU seconds (user + system, with reaped children) of this process ("driver") and
    every live process below it: the JVM ("jvm") and Python workers ("workers")."""
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
        pid = int(d)
        stat[pid] = fields
        kids.setdefault(int(fields[2]), []).append(pid)
    out = {"driver": 0.0, "jvm": 0.0, "workers": 0.0}
    todo = [os.getpid()]
    while todo:
        pid = todo.pop()
        f = stat.get(pid)
        if f is not None:
            who = "driver" if pid == os.getpid() else "jvm" if f[0] == "java" else "workers"
            out[who] += sum(int(x) for x in f[12:16]) / tick  # utime stime cutime cstime
        todo.extend(kids.get(pid, []))
    return out


def _load() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def _session(master: str):
    from pyspark.sql import SparkSession

    from spark_gen.environment import builder_options, prepare_local

    prepare_local()
    b = SparkSession.builder.master(master).appName(f"spark-scaling-{master}").config("spark.ui.enabled", "false")
    for k, v in builder_options("ERROR", local=True).items():  # what generate --engine spark gets (spark_gen/job.py)
        b = b.config(k, v)
    s = b.getOrCreate()
    s.sparkContext.setLogLevel("ERROR")
    return s


def _timed(fn) -> tuple[float, float, str]:
    """(wall s, CPU s, load averages before -> after); prints the CPU split."""
    load0 = _load()
    c, t = _tree_cpu(), time.perf_counter()
    fn()
    wall = time.perf_counter() - t
    c1 = _tree_cpu()
    split = {k: c1[k] - c[k] for k in c}
    print("  CPU s: " + ", ".join(f"{k} {v:.1f}" for k, v in split.items()), flush=True)
    return wall, sum(split.values()), f"{load0} -> {_load()}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="500MB")
    ap.add_argument("--workload", default="sysbench", choices=("sysbench", "ecommerce", "alltypes"),
                    help="built-in workload (issue #28 measures 500 MB of ecommerce)")
    ap.add_argument("--tables", type=int, default=4)
    ap.add_argument("--initial-rows", type=int, default=10000)
    ap.add_argument("--partitions", type=int, default=8)
    ap.add_argument("--skip-local1", action="store_true", help="only the one-process engine and local[2]")
    ap.add_argument("--stages", action="store_true",
                    help="also print each timed Spark run's CPU per stage (spark_gen/timing.py)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run the engines N times in turn; each engine's fastest run is compared")
    a = ap.parse_args(argv)

    from generators.api import generate
    from generators.spec import Spec
    from spark_gen.job import generate_spark

    tables = {"tables": a.tables} if a.workload == "sysbench" else {}
    spec = Spec.from_dict(dict(workload=a.workload, size=a.size, initial_rows=a.initial_rows, seed=1, **tables))
    warm = Spec.from_dict(dict(workload=a.workload, transactions=300, initial_rows=100, seed=2, **tables))
    tmp = Path(tempfile.mkdtemp(prefix="bench-spark-"))
    runs: dict[str, list[tuple[int, float, float, str]]] = {}
    sessions = {}
    try:
        print(f"uptime: {os.popen('uptime').read().strip()}  (cores: {os.cpu_count()})", flush=True)
        masters = [(m, c) for m, c in (("local[1]", 1), ("local[2]", 2)) if not (a.skip_local1 and c == 1)]
        want: dict[str, str] = {}
        nbytes = 0
        for _ in range(a.repeat):
            shutil.rmtree(tmp / "local", ignore_errors=True)
            wall, cpu, load = _timed(lambda: generate(spec, tmp / "local"))
            nbytes = _bytes(tmp / "local")
            want = _binlogs(tmp / "local")
            runs.setdefault("one process", []).append((1, wall, cpu, load))
            print(f"one process: {nbytes / 1e6:.1f} MB in {wall:.1f} s wall, {cpu:.1f} s CPU (load {load})", flush=True)
            for master, cores in masters:
                s = sessions.get(master)
                if s is None:
                    for other in list(sessions):  # one session at a time: a new one needs the JVM's gateway
                        sessions.pop(other).stop()
                    s = sessions[master] = _session(master)
                    shutil.rmtree(tmp / f"warm-{cores}", ignore_errors=True)
                    generate_spark(warm, tmp / f"warm-{cores}", partitions=a.partitions, spark=s, parquet=False)
                if a.stages:
                    os.environ["BINLOGWRITER_SPARK_TIMING"] = "stderr"
                wall, cpu, load = _timed(lambda m=master, s=s: generate_spark(spec, tmp / m, partitions=a.partitions,
                                                                         spark=s, parquet=False))
                os.environ.pop("BINLOGWRITER_SPARK_TIMING", None)
                if _binlogs(tmp / master) != want:
                    print(f"{master}: binlogs differ from the one-process engine's", file=sys.stderr)
                    return 1
                shutil.rmtree(tmp / master, ignore_errors=True)
                runs.setdefault(master, []).append((cores, wall, cpu, load))
                print(f"{master}: {wall:.1f} s wall, {cpu:.1f} s CPU (load {load})", flush=True)
        for s in sessions.values():
            s.stop()
        sessions.clear()
        # each engine's fastest run (wall; its own CPU and load beside it)
        rows = [(name, *min(lst, key=lambda x: x[1])) for name, lst in runs.items()]
        print()
        print(f"{'engine':12s} {'cores':>5s} {'wall s':>8s} {'CPU s':>8s} {'MB/s':>8s} {'MB/s/core':>10s} "
              f"{'MB/CPU-s':>9s}  load avg")
        rate = {}
        for name, cores, wall, cpu, load in rows:
            rate[name] = (nbytes / wall / 1e6, nbytes / wall / 1e6 / cores, nbytes / cpu / 1e6)
            r = rate[name]
            print(f"{name:12s} {cores:5d} {wall:8.1f} {cpu:8.1f} {r[0]:8.2f} {r[1]:10.2f} {r[2]:9.2f}  {load}")
        print(f"\n{nbytes / 1e6:.1f} MB of binlog, byte-identical across engines"
              + (f" (fastest of {a.repeat} runs each)" if a.repeat > 1 else ""))
        one = rate["one process"]
        if "local[1]" in rate:
            print(f"scaling local[2] / local[1] (wall MB/s):             {rate['local[2]'][0] / rate['local[1]'][0]:.2f}"
                  "  (target >= 1.8)")
            print(f"per core local[1] / one process (MB per CPU second): {rate['local[1]'][2] / one[2]:.2f}")
        print(f"per core local[2] / one process (MB per CPU second): {rate['local[2]'][2] / one[2]:.2f}"
              "  (target >= 0.70)")
        print(f"per core local[2] / one process (wall MB/s per core): {rate['local[2]'][1] / one[1]:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
