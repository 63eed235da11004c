"""``generate --engine spark`` killed with SIGKILL leaves nothing at ``--out`` that looks
complete, and the next run into ``--out`` removes what the killed one staged (issue 15).

Real kills of a real ``python -m binlogwriter generate --engine spark`` (its JVM goes with
it), at seeded random moments while it plans and writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _generate(out: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, "-m", "binlogwriter", "generate", "--out", str(out), "--no-progress",
                             *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


def _staged(tmp_path: Path) -> set[str]:
    return {p.name for p in tmp_path.iterdir() if p.name.startswith(".out.tmp-")}


def test_sigkill_of_a_spark_run(tmp_path: Path) -> None:
    """Each kill lands at a seeded random moment after the run has begun staging (waited for,
    so the test does not depend on how fast the machine is): while its Spark jobs run."""
    rng = random.Random(1515)
    out = tmp_path / "out"
    for _ in range(2):
        before = _staged(tmp_path)
        proc = _generate(out, "--engine", "spark", "--partitions", "2", "--transactions", "60000")
        end = time.monotonic() + 240
        while not (_staged(tmp_path) - before) and proc.poll() is None:
            assert time.monotonic() < end, "the Spark run never staged"
            time.sleep(0.05)
        time.sleep(rng.uniform(0.0, 2.0))
        finished = proc.poll() is not None
        proc.send_signal(signal.SIGKILL)  # the driver only, as a crash would; its JVM follows it
        proc.communicate(timeout=60)
        if finished:
            assert proc.returncode == 0 and (out / "manifest.json").is_file(), "the run beat the kill"
            return
        if out.exists():
            # the kill came after the run's last rename (between its commit and its exit): what
            # is at --out must then be the whole run, every file as its manifest lists it
            manifest = json.loads((out / "manifest.json").read_text())
            for f in manifest["files"]:
                data = (out / f["name"]).read_bytes()
                assert len(data) == f["bytes"] and hashlib.sha256(data).hexdigest() == f["sha256"], f["name"]
            return
    staged = [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.tmp-")]
    assert staged, "no kill landed while the run was staging: the test tests little"
    time.sleep(3)  # the killed driver's JVM and Python workers notice their parent is gone
    rerun = _generate(out, "--transactions", "200")
    _, stderr = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, stderr.decode()
    assert (out / "manifest.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"], "a killed run's temporary directory is left"


def test_sigterm_of_a_spark_run(tmp_path: Path) -> None:
    """SIGTERM to the driver while its jobs run: Spark's jobs are cancelled, the staged run
    removed, one line, exit status 143; nothing stays beside --out."""
    out = tmp_path / "out"
    # big enough that the jobs are still running when the signal comes, however fast they got
    proc = _generate(out, "--engine", "spark", "--partitions", "2", "--transactions", "200000")
    end = time.monotonic() + 240
    while not any(p.name.startswith(".out.tmp-") for p in tmp_path.iterdir()):
        assert proc.poll() is None, proc.communicate()[1].decode()
        assert time.monotonic() < end, "the Spark run never staged"
        time.sleep(0.1)
    time.sleep(1.5)  # inside the jobs
    assert proc.poll() is None, "the run ended before the signal: the test tests nothing"
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=120)
    text = stderr.decode()
    assert proc.returncode == 143, text
    assert text.strip().splitlines()[-1] == f"binlogwriter generate: interrupted by SIGTERM (nothing was left at {out})"
    # pyspark's own worker daemon may print a BrokenPipeError traceback when its tasks are
    # cancelled under it (Spark's noise, not ours); no traceback may come from our code.
    assert not re.search(r'File "[^"]*/(binlogwriter|generators|spark_gen)/', text), text
    assert text.count("Traceback") <= text.count("BrokenPipeError"), text
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "the run must remove its own temporary directory"


def test_failed_spark_job_is_one_cli_line(tmp_path: Path) -> None:
    """A task failing on every attempt (as on a full executor disk): the CLI's last line is
    one line with the task's error, status 1, the staged run removed."""
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    # the CLI as ``python -m binlogwriter`` runs it, with the job's test seam set first: every
    # attempt of partition 0's write task fails
    code = ("import sys, spark_gen.job as j; j._TEST_FAIL = ('write!', 0); sys.argv[0] = 'binlogwriter'; "
            "from binlogwriter.cli import main; main()")
    proc = subprocess.run([sys.executable, "-c", code, "generate", "--out", str(out), "--no-progress",
                           "--engine", "spark", "--partitions", "2", "--transactions", "200"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("binlogwriter generate: failed: a Spark job failed: ") and "injected failure" in last, last
    assert last.endswith(f"(nothing was left at {out})"), last
    assert "Traceback" not in proc.stderr.split("ERROR TaskSetManager")[-1], proc.stderr[-3000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == []
