"""The fuzzer's regression corpus and a short seeded fuzz run (docs/fuzzing.md).

Both run ``python -m tests.fuzz`` in a subprocess: the inputs run in its worker under the
fuzzer's limits (2 s of CPU per input, a 1 GiB address-space cap), so a regression that
hangs or allocates without bound fails the test instead of stalling the suite.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fuzz.runner import KINDS
from tests.fuzz.targets import TARGETS

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "fuzz" / "corpus"


def _fuzz(*args: str, timeout: float = 300) -> tuple[int, dict, str]:
    proc = subprocess.run([sys.executable, "-m", "tests.fuzz", "--quiet", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    summary = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else {}
    return proc.returncode, summary, proc.stderr


def test_corpus_replays_without_findings():
    files = [p for p in CORPUS.rglob("*") if p.suffix in (".bin", ".sql")]
    assert files, "the regression corpus is empty"
    code, summary, err = _fuzz("--replay", str(CORPUS))
    assert summary.get("replayed") == len(files), err
    assert summary["failing"] == [], err
    assert code == 0, err


def test_short_seeded_run_finds_nothing(tmp_path):
    # every target but ``mariadb``: its oracle (mariadb-binlog -vv) still finds FDE mutants the
    # reader accepts and mariadb-binlog refuses, an open finding listed in docs/fuzzing.md
    targets = ",".join(t for t in TARGETS if t != "mariadb")
    code, summary, err = _fuzz("--seed", "3", "--max-inputs", "400", "--per-flavor", "1", "--budget", "240",
                               "--target", targets,
                               "--no-minimize", "--findings", str(tmp_path / "findings"))
    assert summary.get("inputs") == 400, err
    assert summary["findings"] == dict.fromkeys(KINDS, 0), err
    assert code == 0, err
