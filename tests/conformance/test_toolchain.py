"""toolchain.py: a consumer's dependencies are installed on first use, once, under a lock;
a missing program or a failed install is one line saying what to do (never a skip)."""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path

import pytest

from .toolchain import ZONGJI, Toolchain, ToolchainError, ensure

# the install command of the fake toolchains: appends a line to runs.log (how many installs
# ran), waits a little (so concurrent callers overlap), then fills installed/ like npm ci
_INSTALL = (
    "import pathlib, sys, time; d = pathlib.Path('.'); "
    "open('runs.log', 'a').write('run\\n'); time.sleep(float(sys.argv[1])); "
    "(d / 'installed' / 'pkg').mkdir(parents=True, exist_ok=True); "
    "(d / 'installed' / 'pkg' / 'ok').write_text('x')"
)


def _fake(
    directory: Path, *, sleep: float = 0.0, code: str = _INSTALL, programs: tuple[tuple[str, str], ...] = ()
) -> Toolchain:
    (directory / "deps.lock").write_text("dep 1.0\n")
    return Toolchain(
        name="fake",
        programs=programs,
        directory=directory,
        lockfile="deps.lock",
        command=(sys.executable, "-c", code, str(sleep)),
        installed="installed",
        ready=("installed/pkg/ok",),
    )


def _runs(directory: Path) -> int:
    log = directory / "runs.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_installs_once_and_again_when_the_lock_file_changes(tmp_path: Path) -> None:
    tc = _fake(tmp_path)
    assert not tc.current()
    ensure(tc)
    assert (tmp_path / "installed" / "pkg" / "ok").is_file() and _runs(tmp_path) == 1
    ensure(tc)
    assert _runs(tmp_path) == 1
    (tmp_path / "deps.lock").write_text("dep 2.0\n")
    ensure(tc)
    assert _runs(tmp_path) == 2


def _ensure_in_child(directory: str) -> None:
    ensure(_fake(Path(directory), sleep=0.5))


def test_concurrent_workers_install_once(tmp_path: Path) -> None:
    _fake(tmp_path)
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_ensure_in_child, args=(str(tmp_path),)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    assert _runs(tmp_path) == 1


def test_a_missing_program_says_what_to_install(tmp_path: Path) -> None:
    tc = _fake(tmp_path, programs=(("no-such-program-bw", "apt-get install no-such-program-bw"),))
    with pytest.raises(ToolchainError) as e:
        ensure(tc)
    assert str(e.value) == (
        "fake needs no-such-program-bw, which is not installed: apt-get install no-such-program-bw"
    )
    assert _runs(tmp_path) == 0


def test_a_failed_install_is_one_line_with_its_last_error(tmp_path: Path) -> None:
    tc = _fake(
        tmp_path, code="import sys; print('fetching', file=sys.stderr); sys.exit('E404 no such package')"
    )
    with pytest.raises(ToolchainError) as e:
        ensure(tc)
    msg = str(e.value)
    assert "\n" not in msg and "failed (exit 1): E404 no such package" in msg
    assert not tc.current()


def test_an_install_that_leaves_nothing_is_refused(tmp_path: Path) -> None:
    tc = _fake(tmp_path, code="import pathlib; pathlib.Path('installed').mkdir()")
    with pytest.raises(ToolchainError, match="left no installed/pkg/ok"):
        ensure(tc)
    assert not tc.current()


def test_zongji_is_installed_from_its_lock_file() -> None:
    assert ZONGJI.command[:2] == ("npm", "ci")
    assert (ZONGJI.directory / ZONGJI.lockfile).is_file()
    assert "@vlasky/zongji" in (ZONGJI.directory / "package.json").read_text()
