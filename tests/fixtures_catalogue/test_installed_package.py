"""The "installed package" contract (issue 14, Done when): binlogwriter installed by pip into a
directory of its own — not this checkout — gives a user's suite the plugin (through its pytest11
entry point, no ``-p``) and ``binlogwriter.strategies``; the suite in installed/ round-trips
random tables and rows through write and read for every flavor and row image.

pip builds the package from a copy of the tracked sources (build isolation: setuptools comes
from PyPI). The suite runs in a subprocess from an empty directory with only the install
directory on PYTHONPATH; the third-party dependencies come from this interpreter's
environment. It asserts that binlogwriter was imported from the install directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SUITE = Path(__file__).parent / "installed" / "test_user_suite.py"


def _tracked_sources(dest: Path) -> None:
    files = subprocess.run(["git", "-C", str(REPO), "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split()
    for f in files:
        if f.startswith(("tests/", "docs/", "bench/", ".")):
            continue
        target = dest / f
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / f, target)


def test_installed_package_runs_a_user_suite(tmp_path: Path) -> None:
    src, site, work = tmp_path / "src", tmp_path / "site", tmp_path / "work"
    _tracked_sources(src)
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(src)],
                         capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    assert "pytest11" in (next(site.glob("binlogwriter-*.dist-info")) / "entry_points.txt").read_text()
    work.mkdir()
    shutil.copy(SUITE, work / "test_user_suite.py")
    (work / "conftest.py").write_text(
        "import binlogwriter, pathlib, os\n"
        "assert pathlib.Path(binlogwriter.__file__).is_relative_to(os.environ['BW_SITE']), binlogwriter.__file__\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HYPOTHESIS_PROFILE")}
    env.update(PYTHONPATH=str(site), BW_SITE=str(site), PYTHONDONTWRITEBYTECODE="1")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-rA"],
                         cwd=work, env=env, capture_output=True, text=True, timeout=1200)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-4000:]
    assert "12 passed" in out, out[-2000:]  # 3 flavors x 3 images, 2 catalogue cases, 1 seeded sample
