"""Benchmark ``binlogwriter serve`` streaming to a client that discards bytes, against a real
MariaDB 10.11 serving the same files.

A sysbench-shaped MariaDB-flavor run (small events) is generated into a temporary directory.
Then, for each server in turn:

* ``serve``   — ``binlogwriter serve DIR`` (a subprocess);
* ``mariadb`` — a throwaway ``mariadbd`` restarted on the same files (the tests' helper,
  tests/conformance/binlog_serving.py), unless ``--no-mariadb``;

a client logs in (PyMySQL), sends a non-blocking COM_BINLOG_DUMP from the first file and
reads the stream with ``recv`` into one buffer, discarding it, until the server ends the dump;
the time is from the dump request to the end of the stream (login excluded).
Printed per server: bytes, seconds, MB/s, the server process' CPU time per MB
(``/proc/PID/stat`` utime + stime; MB per CPU second is what one free core would stream) and
the discarding client's, best of ``--repeat`` runs; then the ratio serve/mariadb. On a shared,
loaded machine the wall-clock MB/s is bounded by the CPU share both processes get: compare CPU
per MB.

``--generate`` measures ``binlogwriter serve --generate SPEC --size S`` instead (issue #28: the
stream made by the generator's batch engine while it is sent, nothing on disk) for two specs —
``sysbench`` (the built-in workload) and ``custom`` (the custom DDL ``bench/schemas/app.sql``
through a spec file's ``schema_file``) — each beside ``binlogwriter serve DIR`` serving the same
bytes from files (``binlogwriter generate --spec SPEC --size S`` first, untimed): per spec and
server the line above, a check that both sent the same number of bytes, and the ratio
generated/files of MB/s and of CPU per MB. The goals: sysbench >= 100 MB/s, custom >= 50 MB/s.

Usage: ``python bench/serve.py [--transactions N] [--repeat R] [--no-mariadb]``;
``python bench/serve.py --generate [--sysbench-size 500MB] [--custom-size 100MB] [--flavor F]
[--repeat R] [--only sysbench|custom]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
USER, PASSWORD = "bench", "bench-pw"


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu_split(pid: int) -> tuple[float, float]:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / os.sysconf("SC_CLK_TCK"), int(fields[12]) / os.sysconf("SC_CLK_TCK")


def _discard_dump(port: int) -> tuple[int, float]:
    """Log in, ask for a non-blocking dump of everything, read and discard until the end;
    returns the bytes read and the seconds from the dump request to the end of the stream."""
    import pymysql

    conn = pymysql.connect(host="127.0.0.1", port=port, user=USER, password=PASSWORD)
    with conn.cursor() as cur:
        cur.execute("SET @master_binlog_checksum = @@global.binlog_checksum")
        cur.execute("SET @mariadb_slave_capability = 4")
    name = b""
    payload = b"\x12" + struct.pack("<IHI", 4, 0x01, 77) + name
    t0 = time.perf_counter()
    conn._write_bytes(struct.pack("<I", len(payload)) + payload)
    sock = conn._sock
    buf = bytearray(1 << 20)
    total = 0
    tail = b""
    while True:
        n = sock.recv_into(buf)
        if n == 0:
            break
        total += n
        tail = (tail + bytes(buf[max(0, n - 9):n]))[-9:]
        if tail[-9:-4] == b"\x05\x00\x00" + tail[-6:-5] + b"\xfe" and len(tail) == 9:
            break  # the EOF packet ending a non-blocking dump (a real server keeps the socket)
    dt = time.perf_counter() - t0
    sock.close()
    return total, dt


def _measure(port: int, pid: int, repeat: int) -> tuple[int, float, float, float]:
    best = None
    for _ in range(repeat):
        c0 = _cpu(pid)
        k0 = time.process_time()
        n, dt = _discard_dump(port)
        cpu = _cpu(pid) - c0
        client = time.process_time() - k0
        if best is None or dt < best[1]:
            best = (n, dt, cpu, client)
    assert best is not None
    return best


def _report(label: str, n: int, dt: float, cpu: float, client: float) -> float:
    mb = n / 1e6
    print(f"{label:8s} {n:>13,d} bytes  {dt:7.3f} s  {mb / dt:8.1f} MB/s  "
          f"server {cpu / mb * 1000:6.2f} ms CPU/MB (= {mb / max(cpu, 1e-9):6.0f} MB per CPU second)  "
          f"client {client / mb * 1000:6.2f} ms CPU/MB", flush=True)
    return mb / dt


class _Serve:
    """``binlogwriter serve ARGS`` as a subprocess on a free port (stopped by its pid on exit)."""

    def __init__(self, *args: str) -> None:
        self.args = args

    def __enter__(self) -> _Serve:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen([sys.executable, "-m", "binlogwriter", "serve", *self.args, "--port", "0",
                                      "--user", USER, "--password", PASSWORD, "--auth-plugin",
                                      "mysql_native_password", "-q"], stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stderr.readline()
        self.port = int(line.split("listening on ")[1].split()[0].rsplit(":", 1)[1])
        return self

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        self.proc.wait()


def _spec_text(kind: str, flavor: str) -> str:
    common = f"flavor: {flavor}\nseed: 7\nmax_binlog_size: 64MB\n"
    if kind == "sysbench":
        return "workload: sysbench\ntables: 4\ninitial_rows: 1000\n" + common
    return f"schema_file: {ROOT / 'bench' / 'schemas' / 'app.sql'}\ninitial_rows: 200\n" + common


def bench_generate(kind: str, size: str, flavor: str, repeat: int, tmp: Path) -> None:
    """One spec: ``serve DIR`` (files made by ``generate``) and ``serve --generate``."""
    spec = tmp / f"{kind}.yaml"
    spec.write_text(_spec_text(kind, flavor))
    out = tmp / f"{kind}-run"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "binlogwriter", "generate", "--spec", str(spec), "--size", size,
                    "--out", str(out)], check=True, env=env, stdout=subprocess.DEVNULL)
    gen_s = time.perf_counter() - t0
    files = [out / line.strip()[2:] for line in (out / "binlog.index").read_text().splitlines()]
    total = sum(f.stat().st_size for f in files)
    print(f"== {kind} ({flavor}, --size {size}): generate wrote {len(files)} files, {total / 1e6:.1f} MB "
          f"in {gen_s:.1f} s (with its truth)", flush=True)
    with _Serve(str(out)) as srv:
        nf, df, cf, kf = _measure(srv.port, srv.proc.pid, repeat)
    files_rate = _report("files", nf, df, cf, kf)
    with _Serve("--generate", str(spec), "--size", size) as srv:
        ng, dg, cg, kg = _measure(srv.port, srv.proc.pid, repeat)
    gen_rate = _report("generate", ng, dg, cg, kg)
    same = "same bytes count" if ng == nf else f"DIFFERENT byte counts ({ng} != {nf})"
    print(f"{kind}: generated/files {gen_rate / files_rate:.2f} x MB/s, "
          f"{(cg / ng) / max(cf / nf, 1e-12):.2f} x CPU per MB; {same}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--transactions", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-mariadb", action="store_true")
    ap.add_argument("--dir", type=Path, default=None, help="Serve this run instead of generating one.")
    ap.add_argument("--generate", action="store_true", help="Measure serve --generate (module docstring).")
    ap.add_argument("--sysbench-size", default="500MB")
    ap.add_argument("--custom-size", default="100MB")
    ap.add_argument("--flavor", default="mysql80")
    ap.add_argument("--only", choices=("sysbench", "custom"), default=None)
    a = ap.parse_args(argv)
    if a.generate:
        tmp = Path(tempfile.mkdtemp(prefix="bench-serve-gen-"))
        try:
            for kind, size in (("sysbench", a.sysbench_size), ("custom", a.custom_size)):
                if a.only in (None, kind):
                    bench_generate(kind, size, a.flavor, a.repeat, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return 0
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "tests"))
    from generators.engine import generate
    from generators.spec import Spec

    tmp = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    try:
        out = a.dir
        if out is None:
            out = tmp / "run"
            t0 = time.perf_counter()
            generate(Spec.from_dict(dict(workload="sysbench", flavor="mariadb1011", tables=4,
                                         transactions=a.transactions, initial_rows=1000,
                                         max_binlog_size=64 << 20)), out)
            print(f"generated {a.transactions} transactions in {time.perf_counter() - t0:.1f} s")
        files = [out / line.strip()[2:] for line in (out / "binlog.index").read_text().splitlines()]
        size = sum(f.stat().st_size for f in files)
        print(f"{len(files)} files, {size / 1e6:.1f} MB")

        env = dict(os.environ, PYTHONPATH=str(ROOT))
        proc = subprocess.Popen([sys.executable, "-m", "binlogwriter", "serve", str(out), "--port", "0",
                                 "--user", USER, "--password", PASSWORD, "--auth-plugin",
                                 "mysql_native_password", "-q"], stderr=subprocess.PIPE, text=True, env=env)
        try:
            line = proc.stderr.readline()
            port = int(line.split("listening on ")[1].split()[0].rsplit(":", 1)[1])
            ours = _report("serve", *_measure(port, proc.pid, a.repeat))
            user, system = _cpu_split(proc.pid)
            print(f"         serve process total: {user:.2f} s user, {system:.2f} s system")
        finally:
            proc.terminate()
            proc.wait()

        if not a.no_mariadb:
            from conformance.binlog_serving import ServingMariaDBServer
            from conformance.mariadb import make_template

            tpl = make_template(tmp / "tpl")
            with ServingMariaDBServer(tpl) as real:
                real.serve_binlogs(files)
                real.create_replication_user(USER, PASSWORD)
                pid = int((real.datadir.parent / "mariadbd.pid").read_text())
                theirs = _report("mariadb", *_measure(real.port, pid, a.repeat))
            print(f"ratio serve/mariadb: {ours / theirs:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
