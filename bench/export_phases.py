"""Where the export command's work goes, phase by phase, in user-space instructions (issue 30).

On a machine shared with other jobs, CPU seconds of one run vary by 10 % or more, more than
most single changes to the export gain; the number of instructions a run executes does not
(about 0.1 % between runs of one checkout, ``PYTHONHASHSEED=0``). Each phase runs in a
process of its own under ``valgrind --tool=cachegrind --cache-sim=no`` and is the difference
of two runs:

* ``imports``: the interpreter's start, the export's modules, numpy, pyarrow,
  pyarrow.parquet and click;
* ``framing``: :func:`binlogwriter.read.framing.iter_frames` over the file (CRC checked);
* ``loop``: the export's event loop beyond its framing, every buffer cleared where its
  batch would be made;
* ``batches``: the record batches made from those buffers;
* ``parquet``: writing them (the writer thread included).

Usage::

    python bench/export_phases.py FILE [--schema SQL] [--root DIR ...]

Several ``--root`` checkouts (main and a branch) are measured side by side.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import gc, shutil, sys
gc.set_threshold(50_000, 20, 100)  # as the export command (binlogwriter/cli.py EXPORT_GC)
import click, pyarrow.parquet
import binlogwriter.cli
import pyarrow as pa
from binlogwriter.format import ANNOTATE_ROWS_EVENT, ROWS_QUERY_LOG_EVENT
from binlogwriter.read.export import export_parquet, iter_table_batches
from binlogwriter.read.exportbatch import TableBuffer
from binlogwriter.read.framing import iter_frames
mode, path, schema, out = sys.argv[1:5]
schema = schema or None
if mode == "framing":  # as the export frames (ANNOTATE_ROWS / ROWS_QUERY checked, not handed on)
    for _ in iter_frames(path, skip=frozenset((ANNOTATE_ROWS_EVENT, ROWS_QUERY_LOG_EVENT))):
        pass
elif mode == "loop":
    stub = pa.record_batch([pa.nulls(1)], names=["x"])  # (pa.array of a list would import pandas)
    TableBuffer.batch = lambda self: (self.clear(), stub)[1]
    for _ in iter_table_batches([path], schemas=schema):
        pass
elif mode == "batches":
    for _ in iter_table_batches([path], schemas=schema):
        pass
elif mode == "export":
    export_parquet([path], out, schemas=schema)
if "pandas" in sys.modules:  # pa.array of a Python list imports it: about 1e9 instructions
    print("PANDAS IMPORTED", file=sys.stderr)
"""

_MODES = ("none", "framing", "loop", "batches", "export")
_PHASES = {"imports": ("none", None), "framing": ("framing", "none"), "loop": ("loop", "framing"),
           "batches": ("batches", "loop"), "parquet": ("export", "batches")}


def instructions(root: Path, mode: str, path: Path, schema: str) -> int:
    """User-space instructions of one child process running ``mode`` with ``root``'s code."""
    out = Path(tempfile.mkdtemp(prefix="export-phases-")) / "out"
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    try:
        subprocess.run([sys.executable, "-c", _CHILD, "none", str(path), schema, str(out)], env=env, check=True,
                       cwd=root)  # bytecode written once, outside the measured runs
        r = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                            sys.executable, "-c", _CHILD, mode, str(path), schema, str(out)],
                           env=env, cwd=root, capture_output=True, text=True, check=True)
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)
    if "PANDAS IMPORTED" in r.stderr:
        print(f"note: {root} {mode}: pandas was imported (its import is counted in the phase)")
    return _refs(r.stderr)


def _refs(stderr: str) -> int:
    """The ``I refs`` count cachegrind prints on stderr."""
    m = re.search(r"I\s+refs:\s+([\d,]+)", stderr)
    if m is None:
        raise RuntimeError(f"no instruction count from valgrind: {stderr[-500:]}")
    return int(m.group(1).replace(",", ""))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", type=Path)
    ap.add_argument("--schema", default="", help="CREATE TABLE file (binlogs without FULL row metadata)")
    ap.add_argument("--root", type=Path, action="append", help="checkout whose code runs (repeatable)")
    a = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind not installed")
        return 1
    roots = [r.resolve() for r in a.root or [ROOT]]
    counts = {r: {m: instructions(r, m, a.file.resolve(), a.schema) for m in _MODES} for r in roots}
    print(f"{a.file} — user-space instructions, millions")
    print(f"  {'phase':10s}" + "".join(f" {str(r)[-24:]:>24s}" for r in roots))
    for phase, (m, base) in _PHASES.items():
        row = [counts[r][m] - (counts[r][base] if base else 0) for r in roots]
        print(f"  {phase:10s}" + "".join(f" {v / 1e6:24.0f}" for v in row))
    print(f"  {'total':10s}" + "".join(f" {counts[r]['export'] / 1e6:24.0f}" for r in roots))
    exe = shutil.which("mariadb-binlog")
    if exe is not None:  # the figure issue 30 compares with
        r = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                            exe, "-vv", str(a.file)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        print(f"  mariadb-binlog -vv: {_refs(r.stderr) / 1e6:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
