"""Kill trial (issue 15, crash safety; run by hand): ``generate`` killed with SIGKILL at
seeded random moments leaves nothing at ``--out`` that looks complete, and a rerun into the
same ``--out`` succeeds and writes exactly the bytes of an uninterrupted run.

    python bench/kill_trial.py --engine local --kills 20 --size 200MB
    python bench/kill_trial.py --engine spark --kills 20 --size 200MB --partitions 2

For each engine: one uninterrupted reference run (its wall time bounds the kill moments),
then ``--kills`` trials: start ``binlogwriter generate`` into OUT, SIGKILL the driver at a
moment drawn from ``random.Random(seed)`` in ``[0, reference wall time)``, wait until every
process of its session is gone (Spark's JVM and Python workers follow their driver), check
OUT (absent, or holding no ``manifest.json``, no binlog under a final name, no index), then
rerun into the same OUT (every ``--rerun-every`` kills) and compare each file's sha256 with
the reference run's. Prints one line per kill and a summary; exit status 1 if any check
failed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_FINAL = re.compile(r"^binlog\.(\d{6}|index)$")


def _cmd(out: Path, args: argparse.Namespace) -> list[str]:
    cmd = [sys.executable, "-m", "binlogwriter", "generate", "--out", str(out), "--no-progress",
           "--seed", str(args.seed)]
    if args.engine == "spark":
        cmd += ["--engine", "spark", "--partitions", str(args.partitions)]
    if args.engine == "spark" and args.transactions:
        cmd += ["--transactions", str(args.transactions)]
    else:
        cmd += ["--size", args.size]
    return cmd


def _start(out: Path, args: argparse.Namespace) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen(_cmd(out, args), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)


def _group_gone(pgid: int, timeout: float) -> bool:
    """Wait until no process of session/group ``pgid`` is left; SIGKILL stragglers after ``timeout``."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return True
    time.sleep(1)
    return False


def _digest(out: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``out``; a Parquet directory written by
    Spark (part files named by a random job id, ``.crc`` and ``_SUCCESS`` beside them) counts
    by its rows, read in part order."""
    import pyarrow.parquet as pq

    res = {}
    spark_dirs = sorted({p.parent for p in out.rglob("_SUCCESS")})
    for d in spark_dirs:
        rows = [pq.read_table(p).to_pylist() for p in sorted(d.glob("part-*.parquet"))]
        res[str(d.relative_to(out)) + "/*"] = hashlib.sha256(repr(rows).encode()).hexdigest()
    for p in sorted(out.rglob("*")):
        if p.is_file() and p.parent not in spark_dirs:
            h = hashlib.sha256()
            with open(p, "rb") as f:
                for block in iter(lambda: f.read(1 << 22), b""):
                    h.update(block)
            res[str(p.relative_to(out))] = h.hexdigest()
    return res


def _complete_looking(out: Path) -> list[str]:
    """What at ``out`` would look like a finished run."""
    if not out.exists():
        return []
    return sorted(p.name for p in out.iterdir() if p.name == "manifest.json" or _FINAL.match(p.name))


def _run(out: Path, args: argparse.Namespace) -> tuple[float, str]:
    t0 = time.monotonic()
    proc = _start(out, args)
    _, err = proc.communicate()
    _group_gone(proc.pid, 30)
    if proc.returncode != 0:
        raise SystemExit(f"run into {out} failed ({proc.returncode}): {err.decode()[-2000:]}")
    return time.monotonic() - t0, err.decode()


def trial(args: argparse.Namespace) -> int:
    work = Path(tempfile.mkdtemp(prefix=f"kill-trial-{args.engine}-", dir=args.dir))
    ref, out = work / "ref", work / "out"
    wall, _ = _run(ref, args)
    want = _digest(ref)
    nbytes = sum((ref / n).stat().st_size for n in want if _FINAL.match(n) and not n.endswith("index"))
    print(f"[{args.engine}] reference: {wall:.1f} s, {len(want)} files, {nbytes / 1e6:.1f} MB of binlogs; "
          f"command: {' '.join(_cmd(out, args)[1:])}", flush=True)
    rng = random.Random(args.seed * 1000 + args.kills)
    bad = landed = equal = reruns = stragglers = staged_kills = 0
    for k in range(args.kills):
        at = rng.uniform(0.0, wall)
        earlier = {p.name for p in work.iterdir() if p.name.startswith(".out.tmp-")}
        proc = _start(out, args)
        time.sleep(at)
        finished = proc.poll() is not None
        proc.send_signal(signal.SIGKILL)  # the driver only, as a crash would
        _, err = proc.communicate()
        stragglers += not _group_gone(proc.pid, 30)
        staged = [p.name for p in work.iterdir() if p.name.startswith(".out.tmp-") and p.name not in earlier]
        looks = _complete_looking(out)
        if finished:
            verdict = f"finished before the kill (status {proc.returncode})"
            ok = proc.returncode == 0 and out.exists() and _digest(out) == want
            if proc.returncode != 0:
                verdict += ": " + err.decode(errors="replace").strip()[-300:].replace("\n", " | ")
            shutil.rmtree(out, ignore_errors=True)
        else:
            landed += 1
            staged_kills += bool(staged)
            ok = not looks
            verdict = f"killed, staged {len(staged)} tmp dir(s), at --out: {looks or 'nothing complete-looking'}"
        line = f"[{args.engine}] kill {k + 1:2d} at {at:6.2f} s: {verdict}"
        if ok and not finished and ((k + 1) % args.rerun_every == 0 or k + 1 == args.kills):
            reruns += 1
            took, _ = _run(out, args)
            same = _digest(out) == want
            left = [p.name for p in work.iterdir() if p.name.startswith(".out.tmp-")]
            equal += same and not left
            ok = same and not left
            line += f"; rerun {took:.1f} s, {'equal to the reference' if same else 'DIFFERENT BYTES'}" + \
                (f", tmp dirs left: {left}" if left else "")
            shutil.rmtree(out)
        bad += not ok
        print(line + ("" if ok else "  <-- FAIL"), flush=True)
    print(f"[{args.engine}] summary: {args.kills} kills, {landed} landed mid-run ({staged_kills} after staging), "
          f"{args.kills - bad}/{args.kills} passed, 0 complete-looking outputs: {bad == 0}; "
          f"{equal}/{reruns} reruns byte-equal to the reference; {stragglers} kill(s) needed the group killed",
          flush=True)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", choices=["local", "spark"], default="local")
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--size", default="200MB", help="--size of each run [200MB]")
    ap.add_argument("--transactions", type=int, default=0,
                    help="spark: --transactions of each run instead of --size")
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("--rerun-every", type=int, default=1, help="rerun into --out after every N kills [1]")
    ap.add_argument("--dir", default=None, help="where the runs go [the system temp dir]")
    ap.add_argument("--keep", action="store_true", help="keep the runs' directory")
    sys.exit(trial(ap.parse_args()))


if __name__ == "__main__":
    main()
