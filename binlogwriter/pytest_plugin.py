"""pytest plugin (entry point ``pytest11``: loaded by pytest once binlogwriter is installed).

Fixtures
    ``binlog_writer``
        factory: ``binlog_writer(flavor="mysql80", settings=None, **writer_args)`` ->
        an open :class:`~binlogwriter.writer.BinlogWriter` in a fresh directory under the
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
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from binlogwriter.testing import assert_changes_equal, read_changes

__all__ = ["catalogue_params", "assert_changes_equal", "read_changes", "verify_files"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("binlogwriter_seed", "seed of the binlog_sample fixture (int, default 0)", default="0")
    parser.addoption("--binlogwriter-seed", action="store", default=None, type=int,
                     help="seed of the binlog_sample fixture (overrides the binlogwriter_seed ini option)")


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
    from binlogwriter.transaction import SessionSettings
    from binlogwriter.writer import BinlogWriter

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
