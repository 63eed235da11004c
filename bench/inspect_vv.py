"""Benchmark ``binlogwriter inspect -vv`` and ``verify --roundtrip`` against ``mariadb-binlog -vv``
(issue 11: both >= 20 MB/s).

(Not named ``inspect.py``: a script's directory comes first on ``sys.path``, and the other
benchmarks import the standard library's ``inspect``.)

For each workload (sysbench, ecommerce, alltypes) × flavor (mysql80, mariadb1011) a binlog of
``--size`` is generated (or taken from ``--dir``: ``DIR/<workload>_<flavor>/binlog.000001``),
then listed to /dev/null, side by side in one run, by

* ``mariadb-binlog -vv --base64-output=decode-rows`` (C; MariaDB 10.11's client);
* ``binlogwriter inspect -vv`` and ``binlogwriter verify --roundtrip`` (this checkout, each
  a fresh process: interpreter start and imports included; the start-up alone is measured
  and printed too). The sources are compiled once first, as installing the package does (a
  checkout run with PYTHONDONTWRITEBYTECODE would compile ~150 modules on every start).

Times are the best of ``--repeat`` runs, CPU seconds (user + system of the child: the
machine is shared, wall time counts other people's work) and wall seconds; MB/s is file
size over CPU seconds. The load average is printed before and after. mariadb-binlog stops
(exit status 1) at the first MySQL column type it does not print (JSON, …): its MB/s is
then marked ``stopped`` and is not a full read. Usage::

    python bench/inspect_vv.py [--size 20MB] [--workloads sysbench,ecommerce,alltypes]
                            [--flavors mysql80,mariadb1011] [--repeat 2] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "TZ": "UTC"}


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(argv: list[str], repeat: int) -> tuple[float, float, int]:
    """(best CPU seconds, best wall seconds, exit status of the last run)."""
    best_cpu = best_wall = float("inf")
    rc = 0
    for _ in range(repeat):
        c0, w0 = _children_cpu(), time.perf_counter()
        with open(os.devnull, "wb") as null:
            rc = subprocess.run(argv, stdout=null, stderr=subprocess.DEVNULL, env=ENV, cwd=ROOT).returncode
        best_wall = min(best_wall, time.perf_counter() - w0)
        best_cpu = min(best_cpu, _children_cpu() - c0)
    return best_cpu, best_wall, rc


def generate(out: Path, workload: str, flavor: str, size: str) -> Path:
    f = out / "binlog.000001"
    if not f.exists():
        subprocess.run([sys.executable, "-m", "binlogwriter", "generate", "--workload", workload, "--flavor", flavor,
                        "--size", size, "--out", str(out), "--no-progress"], check=True, capture_output=True,
                       cwd=ROOT, env=ENV)
    return f


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="20MB")
    ap.add_argument("--workloads", default="sysbench,ecommerce,alltypes")
    ap.add_argument("--flavors", default="mysql80,mariadb1011")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--dir", default=None, help="where the generated files are (or go); kept afterwards")
    args = ap.parse_args()
    mariadb = shutil.which("mariadb-binlog") or shutil.which("mysqlbinlog")
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="bench-inspect-"))
    base.mkdir(parents=True, exist_ok=True)
    print(f"load average before: {os.getloadavg()}")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "binlogwriter")], check=False,
                   capture_output=True)
    start_cpu, start_wall, _ = timed([sys.executable, "-c", "import binlogwriter.cli, binlogwriter.text.listing, "
                                      "binlogwriter.read.fastverify"], args.repeat)  # what the two commands import
    print(f"binlogwriter start-up (interpreter + imports): {start_cpu:.2f} s CPU, {start_wall:.2f} s wall")
    print(f"{'file':26} {'MB':>6} {'mariadb-binlog -vv':>22} {'inspect -vv':>22} {'ours/theirs':>11} "
          f"{'verify --roundtrip':>22}")
    try:
        for w in args.workloads.split(","):
            for fl in args.flavors.split(","):
                f = generate(base / f"{w}_{fl}", w, fl, args.size)
                mb = f.stat().st_size / 1e6
                theirs = ""
                t_cpu = None
                if mariadb:
                    t_cpu, _t_wall, rc = timed([mariadb, "-vv", "--base64-output=decode-rows", str(f)], args.repeat)
                    theirs = f"{mb / t_cpu:7.1f} MB/s ({t_cpu:5.2f} s)" + (" stopped" if rc else "")
                o_cpu, _o_wall, rc = timed([sys.executable, "-m", "binlogwriter", "inspect", "-vv", str(f)],
                                           args.repeat)
                ours = f"{mb / o_cpu:7.1f} MB/s ({o_cpu:5.2f} s)" + (" FAILED" if rc else "")
                ratio = f"{t_cpu / o_cpu:11.2f}" if t_cpu else f"{'':11}"
                r_cpu, _r_wall, rc = timed([sys.executable, "-m", "binlogwriter", "verify", "--roundtrip", str(f)],
                                           args.repeat)
                rt = f"{mb / r_cpu:7.1f} MB/s ({r_cpu:5.2f} s)" + (" FAILED" if rc else "")
                print(f"{w + ' ' + fl:26} {mb:6.1f} {theirs:>22} {ours:>22} {ratio} {rt:>22}", flush=True)
    finally:
        if not args.dir:
            shutil.rmtree(base, ignore_errors=True)
    print(f"load average after: {os.getloadavg()}")
    print("ours/theirs: our inspect -vv speed as a fraction of mariadb-binlog's (CPU seconds); "
          "target: inspect -vv and verify --roundtrip >= 20 MB/s")


if __name__ == "__main__":
    main()
