"""Benchmark `binlogwriter generate` on a sysbench workload against a baseline.

Prints MB/s and rows/s of:

* ``generate``  — the whole single-process engine (plan, pure values, rows, writer with its
  fast paths, truth/final, manifest) for a sysbench run of N transactions;
* ``baseline``  — the declarative construct path alone: the same run's events, decoded
  beforehand, encoded again with ``encode_event`` one event at a time (no value generation,
  no batch encoder, no file I/O) in the same process;

and their ratio. Usage: ``python bench/generate.py [--transactions N] [--tables T]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--transactions", type=int, default=5000)
    ap.add_argument("--tables", type=int, default=1)
    ap.add_argument("--flavor", default="mysql80")
    a = ap.parse_args(argv)

    from binlogwriter.events import encode_event
    from binlogwriter.reader import BinlogReader
    from generators.engine import generate
    from generators.pools import pool
    from generators.spec import Spec

    pool("word")  # pools are built once per process; keep that out of the timing
    tmp = Path(tempfile.mkdtemp(prefix="bench-generate-"))
    try:
        spec = Spec.from_dict({"workload": "sysbench", "transactions": a.transactions, "tables": a.tables,
                               "initial_rows": 10_000, "flavor": a.flavor})
        t0 = time.perf_counter()
        res = generate(spec, tmp / "out")
        gen_s = time.perf_counter() - t0
        m = res.manifest
        nbytes = m["totals"]["bytes"]
        nrows = sum(sum(v.values()) for v in m["totals"]["rows"].values())

        events = []
        reader = BinlogReader([tmp / "out" / f["name"] for f in m["files"]])
        for rec in reader.records():
            events.append((reader.decode(rec), rec.fmt))
        t0 = time.perf_counter()
        base_bytes = 0
        for ev, fmt in events:
            base_bytes += len(encode_event(ev, fmt))
        base_s = time.perf_counter() - t0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    mb = 1024 * 1024
    rows = {
        "generate": {"seconds": round(gen_s, 3), "MB/s": round(nbytes / mb / gen_s, 2),
                     "rows/s": round(nrows / gen_s), "bytes": nbytes, "rows": nrows},
        "baseline (declarative construct encode only)": {
            "seconds": round(base_s, 3), "MB/s": round(base_bytes / mb / base_s, 2),
            "rows/s": round(nrows / base_s), "bytes": base_bytes, "rows": nrows},
    }
    print(f"sysbench, {a.transactions} transactions, {a.tables} table(s), flavor {a.flavor}")
    for name, r in rows.items():
        print(f"  {name:46s} {r['MB/s']:8.2f} MB/s {r['rows/s']:10d} rows/s  ({r['seconds']} s)")
    print(f"  generate speed / baseline speed: {base_s / gen_s:.2f}x")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
