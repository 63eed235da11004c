"""Benchmark reading, side by side in one run on the same files (issue 11).

For each workload (sysbench, ecommerce, alltypes) × flavor (mysql80, mariadb1011) a binlog
of ``--size`` is generated, then read by:

* ``mariadb-binlog -vv`` (C; text to /dev/null; wall time of the process);
* ``mysql-event-stream`` (C++ core; every change event materialised as a Python object);
Times are the best of two runs (one for the slow commands and the server stream).

* ``python-mysql-replication`` (pure Python; it reads only from a server: a throwaway
  MariaDB 10.11 on 127.0.0.1 serves the file, as tests/conformance does; MariaDB flavor
  only — a MariaDB server cannot serve MySQL binlogs); time of the stream alone, rows decoded;
* ours: ``verify`` (framing, log_pos, CRC32), ``changes()`` (every change as dicts),
  Arrow export (every table as Arrow record batches; also once through the per-row
  reference path, ``columnar=False``), the ``export --to parquet`` command (in process),
  ``verify --roundtrip`` and ``inspect -vv``.

Prints MB/s per reader (wall and CPU seconds) and the ratios the issue names, from CPU
seconds (this process and its children: the machine is shared, wall time counts other
people's work), but wall time for python-mysql-replication (its server's work is not ours
to count). Memory: the peak RSS of a child
process running ``verify``, ``changes()`` and the Parquet export on the sysbench file and on
one four times as large (a flat reader has the same peak). Usage::

    python bench/read.py [--size 10MB] [--workloads sysbench,ecommerce,alltypes]
                         [--flavors mysql80,mariadb1011] [--no-pmr] [--slow-size 2MB]

``--slow-size`` caps the bytes given to ``verify --roundtrip`` and ``inspect -vv`` (a prefix
of the file, through ``--stop-position``) so a run stays short; their MB/s is per byte read.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _size(text: str) -> int:
    t = text.strip().upper()
    for unit, mul in (("GB", 1 << 30), ("G", 1 << 30), ("MB", 1 << 20), ("M", 1 << 20), ("KB", 1 << 10)):
        if t.endswith(unit):
            return int(float(t[:-len(unit)]) * mul)
    return int(t)


def generate(out: Path, workload: str, flavor: str, size: str) -> Path:
    subprocess.run([sys.executable, "-m", "binlogwriter", "generate", "--workload", workload, "--flavor", flavor,
                    "--size", size, "--out", str(out), "--no-progress"], check=True, capture_output=True,
                   cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return out / "binlog.000001"


def _cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def timed(fn, repeat: int = 2) -> tuple[float, object]:
    """Best wall time of ``repeat`` runs (the machine is shared) and the last result; the
    best CPU time goes to ``LAST_CPU[0]``."""
    best = float("inf")
    best_cpu = float("inf")
    res = None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), _cpu()
        res = fn()
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, _cpu() - c0)
    LAST_CPU[0] = best_cpu
    return best, res


LAST_CPU = [float("nan")]


def run_mariadb_binlog(path: Path) -> tuple[float, str]:
    exe = shutil.which("mariadb-binlog")
    if exe is None:
        return float("nan"), float("nan"), "not installed"

    def go() -> subprocess.CompletedProcess:
        with open(os.devnull, "wb") as null:
            return subprocess.run([exe, "-vv", str(path)], stdout=null, stderr=subprocess.PIPE)

    d, p = timed(go)
    if p.returncode != 0:  # no speed for a file it cannot read (MySQL-only events)
        return float("nan"), float("nan"), f"exit {p.returncode}: {p.stderr.decode(errors='replace').strip()[:80]}"
    return d, LAST_CPU[0], ""


def run_mes(path: Path) -> tuple[float, str]:
    from mysql_event_stream import CdcEngine

    def go() -> int:
        eng = CdcEngine()
        data = path.read_bytes()[4:]
        n = pos = 0
        while pos < len(data):
            k = eng.feed(data[pos:pos + (1 << 20)])
            pos += k
            while (e := eng.next_event()) is not None:
                _ = (e.before, e.after)
                n += 1
            if k == 0:
                break
        while (e := eng.next_event()) is not None:
            n += 1
        eng.close()
        return n

    try:
        d, n = timed(go)
    except Exception as exc:  # noqa: BLE001 - report, do not stop the benchmark
        return float("nan"), float("nan"), f"{type(exc).__name__}: {str(exc)[:60]}"
    return d, LAST_CPU[0], f"{n} changes"


class _PMR:
    """A throwaway MariaDB serving files to python-mysql-replication."""

    def __init__(self) -> None:
        from tests.conformance.binlog_serving import ServingMariaDBServer
        from tests.conformance.mariadb import make_template

        self.tmp = Path(tempfile.mkdtemp(prefix="bench-read-pmr-"))
        template = make_template(self.tmp / "template")
        self.server = ServingMariaDBServer(template).start()
        self.server.create_replication_user("pmr", "pmr-pw")

    def read(self, path: Path) -> tuple[float, str]:
        import pymysql
        from pymysqlreplication import BinLogStreamReader
        from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

        from tests.conformance.test_python_mysql_replication import Connections

        served = self.tmp / "serve" / "binlog.000001"
        served.parent.mkdir(exist_ok=True)
        shutil.copyfile(path, served)
        self.server.serve_binlogs([served])
        conns = Connections()
        _ = pymysql
        stream = BinLogStreamReader(
            connection_settings={"host": "127.0.0.1", "port": self.server.port, "user": "pmr",
                                 "password": "pmr-pw", "read_timeout": 120},
            server_id=4242, blocking=False, is_mariadb=True, verify_checksum=True, enable_logging=False,
            only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent], pymysql_wrapper=conns)
        n = 0
        t0 = time.perf_counter()
        try:
            for ev in stream:
                n += len(ev.rows)
        finally:
            stream.close()
        return time.perf_counter() - t0, f"{n} changes (stream from the local server)"

    def close(self) -> None:
        self.server.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


def ours(path: Path, slow_bytes: int) -> dict[str, tuple[float, float, int, str]]:
    import pyarrow  # noqa: F401 - imports stay out of the timings

    from binlogwriter.cli import main as cli
    from binlogwriter.read.export import iter_table_batches
    from binlogwriter.read.framing import scan_file
    from binlogwriter.reader import BinlogReader

    size = path.stat().st_size
    out: dict[str, tuple[float, float, int, str]] = {}
    d, r = timed(lambda: scan_file(path))
    out["verify"] = (d, LAST_CPU[0], size, f"{r.events} events" + (f" FAILED {r.failures[0]}" if r.failures else ""))
    d, n = timed(lambda: sum(1 for _ in BinlogReader(path).changes()))
    out["changes()"] = (d, LAST_CPU[0], size, f"{n} changes")
    d, n = timed(lambda: sum(b.num_rows for _, b in iter_table_batches([path])))
    out["Arrow export"] = (d, LAST_CPU[0], size, f"{n} rows")
    d, n = timed(lambda: sum(b.num_rows for _, b in iter_table_batches([path], columnar=False)), repeat=1)
    out["Arrow export (reference)"] = (d, LAST_CPU[0], size, f"{n} rows, per-row path (columnar=False)")

    def parquet() -> int:  # the command: binlogwriter export FILE --to parquet DIR
        dest = Path(tempfile.mkdtemp(prefix="bench-read-pq-"))
        try:
            with redirect_stdout(io.StringIO()):
                try:
                    cli.main(["export", str(path), "--to", "parquet", str(dest / "out")], standalone_mode=False)
                except SystemExit as exc:
                    return int(exc.code or 0)
            return 0
        finally:
            shutil.rmtree(dest, ignore_errors=True)

    d, rc = timed(parquet)
    out["Parquet export"] = (d, LAST_CPU[0], size, f"rc {rc}")
    # the slow commands on a prefix: stop at the first event at or after slow_bytes
    stop = ["--stop-position", str(slow_bytes)] if slow_bytes < size else []
    read = min(size, slow_bytes)
    for label, args in (("verify --roundtrip", ["verify", "--roundtrip"]), ("inspect -vv", ["inspect", "-vv"])):
        if label.startswith("verify") and stop:  # verify has no --stop-position: cut a copy
            cut = _prefix(path, slow_bytes)
            argv = [*args, str(cut)]
            nbytes = cut.stat().st_size
        else:
            argv = [*args, *stop, str(path)]
            nbytes = read
        buf = io.StringIO()

        def go(argv=argv, buf=buf) -> int:
            with redirect_stdout(buf):
                try:
                    cli.main(argv, standalone_mode=False)
                except SystemExit as exc:
                    return int(exc.code or 0)
            return 0

        d, rc = timed(go, repeat=1)
        tail = buf.getvalue().strip().splitlines()[-1:] if label.startswith("verify") else []
        out[label] = (d, LAST_CPU[0], nbytes, f"rc {rc}" + (f" {tail[0]}" if tail else ""))
    return out


def _prefix(path: Path, nbytes: int) -> Path:
    """A copy of the file cut after the last whole event ending at or before ``nbytes``."""
    from binlogwriter.read.framing import iter_frames

    end = 4
    for off, data, _ in iter_frames(path, check_crc=False):
        if off + len(data) > nbytes:
            break
        end = off + len(data)
    cut = Path(tempfile.mkdtemp(prefix="bench-read-cut-")) / "binlog.000001"
    cut.write_bytes(path.read_bytes()[:end])
    return cut


_RSS = {
    "changes()": "from binlogwriter.reader import BinlogReader; n = sum(1 for _ in BinlogReader(p).changes())",
    "verify": "from binlogwriter.read.framing import scan_file; scan_file(p)",
    "parquet export": ("import tempfile; from binlogwriter.read.export import export_parquet; "
                       "export_parquet([p], tempfile.mkdtemp())"),
}


def peak_rss(path: Path, what: str) -> int:
    """Peak RSS (KB) of a child process doing ``what`` on ``path``."""
    # VmHWM is this process's own peak (ru_maxrss would start from the parent's at fork)
    code = f"import sys; p = sys.argv[1]; {_RSS[what]}; " \
           "print(next(x.split()[1] for x in open('/proc/self/status') if x.startswith('VmHWM')))"
    p = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    return int(p.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="10MB")
    ap.add_argument("--slow-size", default="2MB")
    ap.add_argument("--workloads", default="sysbench,ecommerce,alltypes")
    ap.add_argument("--flavors", default="mysql80,mariadb1011")
    ap.add_argument("--no-pmr", action="store_true", help="skip python-mysql-replication (needs MariaDB)")
    a = ap.parse_args(argv)
    slow = _size(a.slow_size)
    tmp = Path(tempfile.mkdtemp(prefix="bench-read-"))
    pmr = None
    try:
        if not a.no_pmr and "mariadb1011" in a.flavors:
            pmr = _PMR()
        for flavor in a.flavors.split(","):
            for workload in a.workloads.split(","):
                path = generate(tmp / f"{workload}-{flavor}", workload, flavor, a.size)
                mb = path.stat().st_size / 1e6
                print(f"\n== {workload} {flavor}: {mb:.1f} MB")
                res: dict[str, tuple[float, float, float, str]] = {}
                d, c, note = run_mariadb_binlog(path)
                res["mariadb-binlog -vv"] = (d, c, mb, note)
                d, c, note = run_mes(path)
                res["mysql-event-stream"] = (d, c, mb, note)
                if pmr is not None and flavor.startswith("mariadb"):
                    try:
                        d, note = pmr.read(path)
                    except Exception as exc:  # noqa: BLE001 - its decoder's own limits (utf32, …)
                        d, note = float("nan"), f"failed: {type(exc).__name__}: {str(exc)[:60]}"
                    # its decoding runs in this process but the server's work does not: wall time
                    res["python-mysql-replication"] = (d, d, mb, note + "; wall time")
                for k, (d, c, nbytes, note) in ours(path, slow).items():
                    res[k] = (d, c, nbytes / 1e6, note)
                # ratios from CPU seconds (the machine is shared: wall time counts others' work)
                speed = {k: (m / c if c == c and c > 0 else float("nan")) for k, (_, c, m, _) in res.items()}
                print(f"  {'reader':26s} {'wall s':>8s} {'cpu s':>8s} {'MB':>7s} {'MB/s wall':>10s} {'MB/s cpu':>9s}")
                for k, (d, c, m, note) in res.items():
                    w = m / d if d == d and d > 0 else float("nan")
                    print(f"  {k:26s} {d:8.3f} {c:8.3f} {m:7.2f} {w:10.1f} {speed[k]:9.1f}  {note}")

                wall = {k: (m / d if d == d and d > 0 else float("nan")) for k, (d, _, m, _) in res.items()}

                def ratio(a_: str, b_: str, speed: dict = speed) -> str:
                    if a_ not in speed or b_ not in speed or speed[b_] != speed[b_] or not speed[b_]:
                        return "n/a"
                    return f"{speed[a_] / speed[b_]:.2f}x"

                print(f"  changes() / python-mysql-replication = {ratio('changes()', 'python-mysql-replication', wall)}"
                      f" (target >= 10x; wall time both)")
                print(f"  changes() / mysql-event-stream       = {ratio('changes()', 'mysql-event-stream')}"
                      f" (target >= 1x)")
                print(f"  Arrow export / mariadb-binlog -vv    = {ratio('Arrow export', 'mariadb-binlog -vv')}"
                      f" (target >= 1x; per-row reference path "
                      f"{ratio('Arrow export (reference)', 'mariadb-binlog -vv')})")
                print(f"  Parquet export / mariadb-binlog -vv  = {ratio('Parquet export', 'mariadb-binlog -vv')}"
                      f" (target >= 1x; the export command, in process)")
                print(f"  verify {speed['verify']:.0f} MB/s (target >= 100); verify --roundtrip "
                      f"{speed['verify --roundtrip']:.1f}, inspect -vv {speed['inspect -vv']:.1f} MB/s (target >= 20)")
                if workload == "sysbench" and flavor == a.flavors.split(",")[0]:
                    big = generate(tmp / "big", workload, flavor, f"{4 * _size(a.size)}")
                    bmb = big.stat().st_size / 1e6
                    for what in _RSS:
                        print(f"  memory: {what} peak RSS {peak_rss(path, what)} KB on {mb:.1f} MB, "
                              f"{peak_rss(big, what)} KB on {bmb:.1f} MB")
    finally:
        if pmr is not None:
            pmr.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
