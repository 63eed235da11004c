"""``binlogwriter generate`` against the server it stands in for, side by side in one run.

1. **Anchor**: a throwaway MariaDB 10.11 (tests/conformance/mariadb.py helpers: temp datadir,
   127.0.0.1, stopped after) with ``sysbench oltp_write_only`` on 2 threads for ``--seconds``;
   binlog bytes/s = growth of its binlog files over the run.
2. ``binlogwriter generate --workload sysbench --size S`` in one process (a subprocess, timed
   from start to exit; CPU time and peak RSS from ``wait4``), then ``ecommerce``,
   ``alltypes`` and ``custom`` — ``generate --schema bench/schemas/app.sql``, a user's own
   DDL (seven tables: JSON, DECIMAL, DATETIME(6), ENUM/SET, utf8mb4 TEXT, a composite key, a
   keyless table, a 100-column table; default mix): MB/s, MB per CPU-second (the machine may
   be shared), rows/s, peak RSS, and each one's ratio to the server. Default sizes
   (:data:`DEFAULT_SIZES`): 1 GB each — the throughput of a large binlog, what the tool is
   for (issue #28 measures 1 GB runs); ``--size`` / ``--sizes`` for quicker looks.
3. **CRC share**: the CRC32 of every event of the sysbench output by ``zlib.crc32`` (over the
   event without its footer), timed, as a share of that run's wall time: the physical limit.
   The writer calls zlib for rows events only and derives the others' CRCs from one event
   of their batch (binlogwriter/batch/columnar.py ``crc_by_difference``), so it spends less.

Prints each line and the ratio generate / server. Run by hand (not a test)::

    python bench/generate.py [--size 50MB] [--sizes sysbench=1GB,custom=200MB,...] [--only sysbench,custom] [--seconds 30] [--repeat 3] [--skip-server]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MB = 1024 * 1024
DEFAULT_SIZES = {"sysbench": "1GB", "ecommerce": "1GB", "alltypes": "1GB", "custom": "1GB"}
CUSTOM_SCHEMA = ROOT / "bench" / "schemas" / "app.sql"
"""The custom DDL the ``custom`` line generates from (``--schema``)."""
WORKLOADS = ("sysbench", "ecommerce", "alltypes", "custom")


def _binlog_bytes(paths) -> int:
    return sum(p.stat().st_size for p in paths if p.exists())


def server_rate(seconds: int, threads: int = 2, tables: int = 4, table_size: int = 10000) -> dict:
    """MariaDB + sysbench oltp_write_only: binlog bytes/s while the workload runs."""
    sys.path.insert(0, str(ROOT))
    from tests.conformance.mariadb import MariaDBServer, make_template

    tmp = Path(tempfile.mkdtemp(prefix="bench-mariadb-"))
    try:
        template = make_template(tmp / "template")
        with MariaDBServer(template, row_metadata="NO_LOG", annotate=True) as srv:
            srv.execute("CREATE DATABASE sbtest;")
            common = ["sysbench", "oltp_write_only", "--db-driver=mysql", f"--mysql-socket={srv.socket}",
                      "--mysql-user=root", "--mysql-db=sbtest", f"--tables={tables}", f"--table-size={table_size}",
                      f"--threads={threads}"]
            subprocess.run(common + ["prepare"], check=True, capture_output=True)
            srv.flush_logs()
            before = _binlog_bytes(srv.binlog_files())
            t0 = time.perf_counter()
            res = subprocess.run(common + [f"--time={seconds}", "--report-interval=0", "run"], check=True,
                                 capture_output=True, text=True)
            wall = time.perf_counter() - t0
            after = _binlog_bytes(srv.binlog_files())
            txn = next((ln.split()[1] for ln in res.stdout.splitlines() if "transactions:" in ln), "?")
        return {"bytes": after - before, "seconds": round(wall, 2), "MB/s": (after - before) / MB / wall,
                "transactions": txn}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_generate(workload: str, size: str, out: Path, extra: list[str]) -> dict:
    """One ``generate`` subprocess: wall seconds, bytes, rows, peak RSS."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as an installed package runs: bytecode cached (see main)
    source = ["--schema", str(CUSTOM_SCHEMA)] if workload == "custom" else ["--workload", workload]
    argv = [sys.executable, "-m", "binlogwriter", "generate", *source, "--size", size,
            "--out", str(out), *extra]
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"generate {workload} failed: {proc.stderr.read().decode()}")
    m = json.loads((out / "manifest.json").read_text())
    nbytes = m["totals"]["bytes"]
    rows = sum(sum(v.values()) for v in m["totals"]["rows"].values())
    cpu = ru.ru_utime + ru.ru_stime
    return {"seconds": round(wall, 2), "cpu_seconds": round(cpu, 2), "bytes": nbytes, "rows": rows,
            "MB/s": nbytes / MB / wall, "MB/cpu-s": nbytes / MB / cpu, "rows/s": rows / wall,
            "peak_rss_MB": ru.ru_maxrss / 1024}


def crc_seconds(out: Path) -> tuple[float, int]:
    """Time to CRC32 every event of the binlog files in ``out`` once (the writer's CRC work)."""
    events = []
    for p in sorted(out.glob("binlog.[0-9]*")):
        data = memoryview(p.read_bytes())
        pos = 4
        while pos < len(data):
            n = int.from_bytes(data[pos + 9:pos + 13], "little")
            events.append(data[pos:pos + n - 4])
            pos += n
    crc = zlib.crc32
    t0 = time.perf_counter()
    for e in events:
        crc(e)
    return time.perf_counter() - t0, len(events)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default=None, help="generate --size for every workload [sysbench 1GB, others 50MB]")
    ap.add_argument("--sizes", default="", help="per-workload sizes, e.g. sysbench=500MB,ecommerce=20MB")
    ap.add_argument("--seconds", type=int, default=30, help="sysbench run time")
    ap.add_argument("--skip-server", action="store_true")
    ap.add_argument("--only", default=",".join(WORKLOADS),
                    help=f"comma-separated workloads to generate (default: {','.join(WORKLOADS)})")
    ap.add_argument("--repeat", type=int, default=3,
                    help="sysbench generate runs (the machine's speed drifts): each is printed, the ratio "
                         "uses their median MB/s")
    ap.add_argument("--crc-only", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.crc_only:
        print(json.dumps(list(crc_seconds(Path(a.crc_only)))))
        return 0

    results: dict = {}
    # compile the sources once, as installing the package does: a run measures generation,
    # not the compiling of ~150 modules a checkout without __pycache__ repeats on every start
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "binlogwriter"), str(ROOT / "generators"),
                    str(ROOT / "spark_gen")],
                   check=False, capture_output=True)
    if not a.skip_server:
        results["mariadb+sysbench oltp_write_only (2 threads)"] = server_rate(a.seconds)
        print(f"server : {results['mariadb+sysbench oltp_write_only (2 threads)']}", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="bench-generate-"))
    try:
        for wl in [w for w in WORKLOADS if w in a.only.split(",")]:
            out = tmp / wl
            sizes = dict(x.split("=", 1) for x in a.sizes.split(",") if x)
            runs = []
            for _ in range(a.repeat if wl == "sysbench" else 1):
                shutil.rmtree(out, ignore_errors=True)
                runs.append(run_generate(wl, sizes.get(wl, a.size or DEFAULT_SIZES[wl]), out, []))
                if len(runs) > 1 or a.repeat > 1:
                    print(f"{wl:9s}  run {len(runs)}: {runs[-1]['MB/s']:7.2f} MB/s  {runs[-1]['seconds']} s  "
                          f"{runs[-1]['cpu_seconds']} CPU-s", flush=True)
            r = dict(sorted(runs, key=lambda x: x["MB/s"])[len(runs) // 2])  # the median run
            if len(runs) > 1:
                r["runs_MB/s"] = [round(x["MB/s"], 2) for x in runs]
            if wl == "sysbench":
                # in a child process: this one stays small, so the peak RSS of the next
                # generate subprocesses (forked from it) is theirs alone
                res = subprocess.run([sys.executable, __file__, "--crc-only", str(out)], check=True,
                                     capture_output=True, text=True)
                cs, nev = json.loads(res.stdout)
                r["crc_seconds"] = round(cs, 3)
                r["crc_share"] = cs / r["seconds"]
                r["events"] = nev
            results[f"generate {wl}"] = r
            print(f"{wl:9s}: {r['MB/s']:7.2f} MB/s ({r['MB/cpu-s']:.2f} MB per CPU-second) "
                  f"{r['rows/s']:10.0f} rows/s  {r['seconds']} s  "
                  f"peak RSS {r['peak_rss_MB']:.0f} MB" + (f"  CRC share {r['crc_share']:.1%}" if "crc_share" in r
                                                           else ""), flush=True)
            shutil.rmtree(out, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    srv = results.get("mariadb+sysbench oltp_write_only (2 threads)")
    if srv:
        for wl in WORKLOADS:
            r = results.get(f"generate {wl}")
            if r is None:
                continue
            ratio = r["MB/s"] / srv["MB/s"]
            results[f"ratio generate {wl} / server"] = ratio
            print(f"ratio  : generate {wl:9s} / MariaDB+sysbench = {ratio:6.2f}x (wall); "
                  f"{r['MB/cpu-s'] / srv['MB/s']:.2f}x per CPU-second of ours", flush=True)
    print(json.dumps(results, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
