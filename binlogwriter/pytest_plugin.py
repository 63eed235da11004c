"""pytest plugin (entry point ``pytest11``: loaded by pytest once binlogwriter is installed).

Fixtures
    ``binlog_writer``
        factory: ``binlog_writer(flavor="mysql80", settings=None, **writer_args)`` ->
        an open :class:`~binlogwriter.write.writer.BinlogWriter` in a fresh directory under the
        test's ``tmp_path``; keyword arguments of :class:`SessionSettings` (``row_image=``,
        ``row_metadata=``, ``gtid=``, …) may be given directly. At teardown every writer still
        open is closed and every file written is verified (framing, CRC32s, the ``log_pos``
        chain, each event decoded); a failure fails the test.
    ``binlog_case``
        a catalogue entry written into ``tmp_path`` (:mod:`binlogwriter.fixtures`), selected by
        indirect parametrization — ``"name"`` or ``"name:flavor"``::

            @pytest.mark.parametrize("binlog_case", ["enum_index_zero:mariadb1011"], indirect=True)
            def test_enum(binlog_case): ...

        :func:`catalogue_params` gives every entry × flavor for that.
    ``binlogwriter_seed``
        an ``int`` (default 0), from the ``binlogwriter_seed`` ini option or
        ``--binlogwriter-seed``; override the fixture to choose per test. It seeds
        ``binlog_sample``.
    ``binlog_sample``
        factory: ``binlog_sample(flavor=None, image=None, **binlogs_args)`` -> a
        :class:`~binlogwriter.fixtures.WrittenBinlogs` drawn from
        :func:`binlogwriter.strategies.binlogs` deterministically from ``binlogwriter_seed``
        (needs hypothesis), written under ``tmp_path``.
    ``assert_binlog_changes``
        :func:`binlogwriter.testing.assert_changes_equal`: a consumer's decoded change stream
        against the truth, with a column-by-column diff.
    ``binlog_server`` (session)
        one replication server for the whole session (:class:`BinlogServer`), pointed at a new
        binlog set by ``binlog_server.serve(what)`` -> :class:`ServedBinlogs` (``host``,
        ``port``, ``user``, ``password``, ``server_id``, ``flavor``, ``run_dir``/``directory``,
        ``settings``). ``what``: a run or binlog directory / file(s), a
        :class:`~binlogwriter.fixtures.WrittenBinlogs` (what :func:`binlogwriter.strategies.binlogs`
        draws), a catalogue entry ``"name[:flavor]"``, or a ``generate`` spec (a dict, or a list
        of ``binlogwriter generate`` options) generated under the session's temporary folder.
        In-process (default) the server swaps the served set in about a millisecond, so a
        property test serves every example; ``--binlog-server=process`` (ini
        ``binlog_server``) runs ``binlogwriter serve`` as a subprocess instead, one per
        ``serve()`` (about a second each). Stopped at the end of the session.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from binlogwriter.testing import assert_changes_equal, read_changes

__all__ = ["catalogue_params", "assert_changes_equal", "read_changes", "verify_files", "BinlogServer",
           "ServedBinlogs"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("binlogwriter_seed", "seed of the binlog_sample fixture (int, default 0)", default="0")
    parser.addoption("--binlogwriter-seed", action="store", default=None, type=int,
                     help="seed of the binlog_sample fixture (overrides the binlogwriter_seed ini option)")
    parser.addini("binlog_server", "how the binlog_server fixture serves: thread (in-process, default) or process",
                  default="thread")
    parser.addoption("--binlog-server", action="store", default=None, choices=("thread", "process"),
                     help="binlog_server fixture: serve in-process (thread, default) or as a subprocess (process)")


def verify_files(files: list[Path]) -> list[str]:
    """Problems found in ``files`` (each file: magic, FDE, framing, CRC32s, the log_pos chain,
    every event decoded); empty when they are sound."""
    from binlogwriter.errors import BinlogError
    from binlogwriter.reader import BinlogReader

    problems = []
    for f in files:
        reader = BinlogReader([f])
        try:
            for rec in reader.records():
                if rec.log_pos not in (0, rec.offset + len(rec.data)):
                    problems.append(f"{f}:{rec.offset}: log_pos {rec.log_pos} != offset + event_length")
                reader.decode(rec)
        except BinlogError as exc:
            problems.append(str(exc))
    return problems


@pytest.fixture
def binlogwriter_seed(request: pytest.FixtureRequest) -> int:
    """The seed of :func:`binlog_sample` (ini ``binlogwriter_seed`` / ``--binlogwriter-seed``)."""
    opt = request.config.getoption("--binlogwriter-seed")
    if opt is not None:
        return int(opt)
    try:
        return int(request.config.getini("binlogwriter_seed"))
    except ValueError:
        raise pytest.UsageError("binlogwriter_seed must be an integer") from None


@pytest.fixture
def binlog_writer(tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """Factory of open BinlogWriters in fresh directories; closed and verified at teardown."""
    from binlogwriter.format import BinlogFormat
    from binlogwriter.write.transaction import SessionSettings
    from binlogwriter.write.writer import BinlogWriter

    writers: list[BinlogWriter] = []
    counter = itertools.count(1)

    def make(flavor: str = "mysql80", settings: SessionSettings | None = None, **kwargs: Any) -> BinlogWriter:
        fields = set(SessionSettings.__dataclass_fields__)
        sess_kw = {k: kwargs.pop(k) for k in list(kwargs) if k in fields}
        if sess_kw:
            if settings is not None:
                raise TypeError(f"binlog_writer: give settings= or {sorted(sess_kw)}, not both")
            settings = SessionSettings(**sess_kw)
        directory = kwargs.pop("directory", None) or tmp_path / f"binlog_writer_{next(counter)}"
        w = BinlogWriter(directory, BinlogFormat.preset(flavor), settings=settings, **kwargs)
        writers.append(w)
        return w

    yield make
    problems = []
    from binlogwriter.errors import BinlogError

    for w in writers:
        if not w.closed:
            try:
                w.close()
            except BinlogError as exc:
                problems.append(f"closing the writer of {w.directory}: {exc}")
                continue
        problems += verify_files(list(w.files))
    if problems:
        pytest.fail("binlog_writer: files written by this test do not verify:\n" + "\n".join(problems),
                    pytrace=False)


def catalogue_params(*, include_large: bool = False) -> list[str]:
    """``"name:flavor"`` for every catalogue entry and flavor it exists in (for
    ``@pytest.mark.parametrize("binlog_case", catalogue_params(), indirect=True)``)."""
    from binlogwriter.fixtures import ENTRIES

    return [f"{e.name}:{f}" for e in ENTRIES.values() if include_large or not e.large for f in e.flavors]


@pytest.fixture
def binlog_case(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """A catalogue entry (``"name"`` or ``"name:flavor"`` from indirect parametrization)
    written into ``tmp_path / "binlog_case"`` -> WrittenBinlogs (files + truth); its
    :class:`~binlogwriter.fixtures.Entry` is ``case.entry``."""
    from binlogwriter.fixtures import entry

    param = getattr(request, "param", None)
    if not isinstance(param, str):
        raise pytest.UsageError('binlog_case needs a parameter: @pytest.mark.parametrize("binlog_case", '
                                '["enum_index_zero"], indirect=True) — see `binlogwriter fixture --list`')
    name, _, flavor = param.partition(":")
    e = entry(name)
    case = e.write(tmp_path / "binlog_case", flavor or None)
    case.entry = e  # type: ignore[attr-defined]
    return case


@pytest.fixture
def binlog_sample(binlogwriter_seed: int, tmp_path: Path) -> Callable[..., Any]:
    """Factory: a WrittenBinlogs drawn from ``binlogwriter.strategies.binlogs(...)`` with the
    seed (the same seed and arguments give the same files)."""
    counter = itertools.count(1)

    def sample(flavor: str | None = None, image: str | None = None, **kwargs: Any) -> Any:
        from hypothesis import HealthCheck, Phase, given, seed, settings

        from binlogwriter.strategies import binlogs

        out: list[Any] = []
        directory = tmp_path / f"binlog_sample_{next(counter)}"
        strategy = binlogs(flavor, image, directory=directory, **kwargs)

        @seed(binlogwriter_seed)
        @settings(max_examples=2, database=None, phases=[Phase.generate], deadline=None, derandomize=False,
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def draw(case: Any) -> None:
            out.append(case)

        draw()
        # hypothesis tries the simplest example first: the second is the seed's own draw
        for case in out[:-1]:
            case.cleanup()
        return out[-1]

    return sample


@pytest.fixture
def assert_binlog_changes() -> Callable[..., None]:
    """:func:`binlogwriter.testing.assert_changes_equal`."""
    return assert_changes_equal


# ------------------------------------------------------------------------------------------
# binlog_server: one replication server per session, pointed at a new binlog set per example
# ------------------------------------------------------------------------------------------

@dataclass
class ServedBinlogs:
    """Where a served binlog set is: what a consumer connects with. ``server_id`` is a
    replica server id to register with (a new one per :meth:`BinlogServer.serve`);
    ``run_dir`` is the directory served (a generated run: with its ``truth/``); ``case`` the
    :class:`~binlogwriter.fixtures.WrittenBinlogs` when one was served (its truth)."""

    host: str
    port: int
    user: str
    password: str
    flavor: str
    run_dir: Path
    server_id: int
    case: Any = None

    @property
    def directory(self) -> Path:
        return self.run_dir

    @property
    def settings(self) -> dict[str, Any]:
        """``host``, ``port``, ``user``, ``password`` (pymysql-style connection settings)."""
        return {"host": self.host, "port": self.port, "user": self.user, "password": self.password}


class ServeSubprocess:
    """``python -m binlogwriter serve SOURCES --port 0`` until :meth:`close` (stopped by the pid
    it was started with); the port is read from its ``listening on HOST:PORT`` line, its
    stderr lines are kept in :attr:`log`. ``told``: ``@@`` variables to report (a catalogue
    case's ``row_image`` / ``row_metadata``); ``quiet``: warnings only in the log (``-q``);
    ``extra``: more ``serve`` options; ``env`` /
    ``cwd``: the subprocess's."""

    def __init__(self, sources: Sequence[Any], user: str, password: str, told: dict[str, str] | None = None,
                 timeout: float = 60.0, *, quiet: bool = True, extra: Sequence[str] = (),
                 env: dict[str, str] | None = None, cwd: Any = None) -> None:
        import re
        import subprocess
        import sys
        import threading

        argv = [sys.executable, "-m", "binlogwriter", "serve", *map(str, sources), "--port", "0",
                "--user", user, "--password", password, *(["-q"] if quiet else []), *extra]
        for key, value in (told or {}).items():  # a catalogue case's @@binlog_row_image / _metadata
            argv += [f"--{key.replace('_', '-')}", value]
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
        self.log: list[str] = []
        self.port: int | None = None
        ready = threading.Event()

        def drain() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.log.append(line.rstrip("\n"))
                m = re.search(r"listening on [\d.]+:(\d+)", line)
                if m:
                    self.port = int(m.group(1))
                    ready.set()
            ready.set()

        threading.Thread(target=drain, daemon=True).start()
        if not ready.wait(timeout) or self.port is None:
            self.close()
            raise RuntimeError("binlogwriter serve did not start:\n" + "\n".join(self.log))

    def close(self) -> None:
        import subprocess

        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class BinlogServer:
    """The ``binlog_server`` fixture: :meth:`serve` a binlog set, get where it is served.

    In ``thread`` mode one in-process :func:`binlogwriter.serve.serving` server is started on
    the first :meth:`serve` and re-pointed by each later one (connections accepted afterwards
    see the new set). In ``process`` mode each :meth:`serve` stops the previous subprocess and
    starts ``binlogwriter serve`` on the new set."""

    def __init__(self, workdir: Path, mode: str = "thread", *, user: str = "repl",
                 password: str = "repl-pw") -> None:
        if mode not in ("thread", "process"):
            raise ValueError(f"binlog_server mode {mode!r}: expected thread or process")
        self.workdir = Path(workdir)
        self.mode = mode
        self.user, self.password = user, password
        self._serving: Any = None
        self._proc: ServeSubprocess | None = None
        self._ids = itertools.count(101)
        self._made = itertools.count(1)
        self.served: ServedBinlogs | None = None

    def _materialise(self, what: Any, flavor: str | None) -> tuple[list[Path], Any]:
        """(paths to serve, WrittenBinlogs or None) for ``what`` (see the fixture's doc)."""
        from binlogwriter.fixtures import WrittenBinlogs

        if isinstance(what, WrittenBinlogs):
            return [Path(what.directory)], what
        if isinstance(what, dict):
            return [self._generate_spec(what)], None
        if isinstance(what, list | tuple) and what and all(isinstance(a, str) for a in what) \
                and str(what[0]).startswith("--"):
            return [self._generate_args(list(what))], None
        if isinstance(what, str) and not Path(what).exists() and "/" not in what:
            from binlogwriter.fixtures import entry

            name, _, fl = what.partition(":")
            case = entry(name).write(self.workdir / f"case_{next(self._made)}_{name}", fl or flavor)
            return [Path(case.directory)], case
        if isinstance(what, str | os.PathLike):
            return [Path(what)], None
        return [Path(p) for p in what], None

    def _generate_args(self, args: list[str]) -> Path:
        from binlogwriter.plugins import COMMANDS, load

        out = self.workdir / f"run_{next(self._made)}"
        command = load(COMMANDS, "generate")
        try:
            command.main(["--out", str(out), *args], standalone_mode=False)
        except SystemExit as exc:
            if exc.code:
                raise RuntimeError(f"binlog_server: generate {' '.join(args)} failed (exit {exc.code})") from None
        return out

    def _generate_spec(self, spec: dict[str, Any]) -> Path:
        import json

        self.workdir.mkdir(parents=True, exist_ok=True)
        path = self.workdir / f"spec_{next(self._made)}.json"
        path.write_text(json.dumps(spec), encoding="utf-8")
        return self._generate_args(["--spec", str(path)])

    def serve(self, what: Any, *, flavor: str | None = None) -> ServedBinlogs:
        """Serve ``what`` from now on -> where it is served."""
        paths, case = self._materialise(what, flavor)
        if self.mode == "thread":
            from binlogwriter.serve import serving

            told = case.server_variables if case is not None else {}  # a case's @@binlog_row_image
            if self._serving is None:
                self._serving = serving(paths, user=self.user, password=self.password)
            self._serving.serve(paths, **told)
            host, port, served_flavor = self._serving.host, self._serving.port, self._serving.flavor
        else:
            from binlogwriter.serve.api import flavor_of
            from binlogwriter.serve.binlogs import BinlogSet

            if self._proc is not None:
                self._proc.close()
            served_flavor = flavor_of(BinlogSet(list(paths)))
            self._proc = ServeSubprocess(paths, self.user, self.password,
                                         case.server_variables if case is not None else None)
            host, port = "127.0.0.1", self._proc.port
            assert port is not None
        self.served = ServedBinlogs(host, port, self.user, self.password, served_flavor, paths[0],
                                    next(self._ids), case)
        return self.served

    def close(self) -> None:
        if self._serving is not None:
            self._serving.close()
            self._serving = None
        if self._proc is not None:
            self._proc.close()
            self._proc = None


@pytest.fixture(scope="session")
def binlog_server(request: pytest.FixtureRequest,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[BinlogServer]:
    """One :class:`BinlogServer` for the session (see the module docstring)."""
    mode = request.config.getoption("--binlog-server") or request.config.getini("binlog_server")
    server = BinlogServer(tmp_path_factory.mktemp("binlog_server"), mode)
    try:
        yield server
    finally:
        server.close()
