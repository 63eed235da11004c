"""Consumer toolchains the conformance tests install on first use (docs/testing.md).

README line 2 (the test command) is all a newcomer runs after line 1, so a test that drives a
third-party consumer written in another language (ZongJi on Node.js today; Debezium on Maven
or go-mysql on Go later) installs that consumer's dependencies itself, the first time it
needs them:

- a :class:`Toolchain` names the programs it needs (each with what to install when it is
  missing), the directory holding the consumer, the lock file whose content pins the
  dependencies, and the command that installs them from it (``npm ci``, ``mvn
  dependency:go-offline``, ``go mod download``);
- :func:`ensure` runs that command unless a stamp written after the last successful install
  holds the lock file's current digest; an exclusive ``flock`` on a lock file in the temporary
  directory makes concurrent pytest-xdist workers wait for the first one instead of racing it;
- anything missing or failing is a :class:`ToolchainError` with one line saying what to do:
  the fixtures turn it into a test failure, never a skip.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Toolchain", "ToolchainError", "ensure", "ZONGJI"]

STAMP = ".binlogwriter-installed"
"""Written into the install directory after a successful install: the lock file's sha256."""


class ToolchainError(Exception):
    """A program the consumer needs is missing, or installing its dependencies failed. The
    message is one line saying what to install or what failed."""


@dataclass(frozen=True)
class Toolchain:
    """How to make one consumer ready (see the module docstring).

    ``programs``: (program, how to get it) pairs, checked with :func:`shutil.which`.
    ``directory``: where ``command`` runs. ``lockfile``: relative to ``directory``, pins the
    dependencies; its digest decides whether an install is current. ``installed``: relative
    to ``directory``, the folder the command fills (the stamp goes there). ``ready``:
    relative paths that must exist after the install (the consumer's own package).
    """

    name: str
    programs: tuple[tuple[str, str], ...]
    directory: Path
    lockfile: str
    command: tuple[str, ...]
    installed: str
    ready: tuple[str, ...] = ()
    timeout: float = 900.0

    def stamp(self) -> Path:
        return self.directory / self.installed / STAMP

    def digest(self) -> str:
        return hashlib.sha256((self.directory / self.lockfile).read_bytes()).hexdigest()

    def current(self) -> bool:
        """True when the last install used the lock file as it is now and left ``ready``."""
        try:
            stamped = self.stamp().read_text().strip()
        except OSError:
            return False
        return stamped == self.digest() and all((self.directory / p).exists() for p in self.ready)


def _lock_path(tc: Toolchain) -> Path:
    key = hashlib.sha256(str(tc.directory.resolve()).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"binlogwriter-toolchain-{key}.lock"


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "no output"


def ensure(tc: Toolchain) -> dict[str, str]:
    """Make ``tc`` ready; returns each program's path. Raises :class:`ToolchainError`."""
    paths: dict[str, str] = {}
    for program, how in tc.programs:
        found = shutil.which(program)
        if found is None:
            raise ToolchainError(f"{tc.name} needs {program}, which is not installed: {how}")
        paths[program] = found
    if not (tc.directory / tc.lockfile).is_file():
        raise ToolchainError(f"{tc.name}: {tc.directory / tc.lockfile} is missing")
    if tc.current():
        return paths
    with open(_lock_path(tc), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be installing: wait for it
        try:
            if tc.current():
                return paths
            command = [paths.get(tc.command[0], tc.command[0]), *tc.command[1:]]
            shown = " ".join(tc.command)
            try:
                proc = subprocess.run(
                    command, cwd=tc.directory, capture_output=True, text=True, timeout=tc.timeout, check=False
                )
            except subprocess.TimeoutExpired:
                raise ToolchainError(
                    f"{tc.name}: `{shown}` in {tc.directory} did not finish in {tc.timeout:.0f} s"
                ) from None
            if proc.returncode != 0:
                raise ToolchainError(
                    f"{tc.name}: `{shown}` in {tc.directory} failed (exit "
                    f"{proc.returncode}): {_last_line(proc.stderr or proc.stdout)}"
                )
            missing = [p for p in tc.ready if not (tc.directory / p).exists()]
            if missing:
                raise ToolchainError(f"{tc.name}: `{shown}` in {tc.directory} left no {missing[0]}")
            tc.stamp().write_text(tc.digest() + "\n")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return paths


NODE_DIR = Path(__file__).parent / "node"

ZONGJI = Toolchain(
    name="ZongJi (tests/conformance/node)",
    programs=(
        ("node", "install Node.js 18+ (Debian: apt-get install nodejs npm)"),
        ("npm", "install npm (Debian: apt-get install npm)"),
    ),
    directory=NODE_DIR,
    lockfile="package-lock.json",
    command=("npm", "ci", "--no-audit", "--no-fund"),
    installed="node_modules",
    ready=("node_modules/@vlasky/zongji/package.json",),
)
"""The Node.js replication client of test_serve_zongji.py, installed with ``npm ci`` from its
package-lock.json (exactly the locked versions)."""
