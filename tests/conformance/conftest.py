"""Fixtures that run real MariaDB 10.11 (docs/testing.md).

- `mariadb_template` (session): an initialised datadir every server is copied from.
- `mariadb_server_factory` (function): `factory(**options) -> MariaDBServer`, started; every
  server it made is stopped at teardown. Options: see `MariaDBServer`.
- `mariadb_corpus` (session): `get(row_metadata="FULL", row_image="FULL", *, checksum="CRC32",
  variant="main") -> list[Path]`, real binlog files built once per session (corpus.py).
- `zongji_node` (session): the path of `node`, with ZongJi's npm packages installed in
  tests/conformance/node on first use (toolchain.py).

A missing MariaDB installation fails these tests (it never skips them): run .ci/run. So does a
missing consumer toolchain (node, npm): the failure says what to install.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .corpus import CorpusSpec, format_counts, make_corpus, scan
from .mariadb import MariaDBError, MariaDBMissing, MariaDBServer, make_template
from .toolchain import ZONGJI, Toolchain, ToolchainError, ensure

# Corpora built in this session (this process): spec -> (files or the build error, seconds).
_CORPORA: dict[CorpusSpec, tuple[list[Path] | BaseException, float]] = {}


@pytest.fixture(scope="session")
def mariadb_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        return make_template(tmp_path_factory.mktemp("mariadb-template") / "data")
    except MariaDBMissing as e:
        pytest.fail(str(e), pytrace=False)


def toolchain_paths(tc: Toolchain) -> dict[str, str]:
    """``ensure(tc)`` for a fixture: its programs' paths, or the test fails with one line."""
    try:
        return ensure(tc)
    except ToolchainError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def zongji_node() -> str:
    return toolchain_paths(ZONGJI)["node"]


@pytest.fixture
def mariadb_server_factory(mariadb_template: Path) -> Iterator[Callable[..., MariaDBServer]]:
    servers: list[MariaDBServer] = []

    def start(**options) -> MariaDBServer:
        server = MariaDBServer(mariadb_template, **options)
        servers.append(server)
        return server.start()

    yield start
    errors = []
    for server in reversed(servers):
        try:
            server.stop()
        except MariaDBError as e:
            errors.append(e)
    if errors:
        raise errors[0]


@pytest.fixture(scope="session")
def mariadb_corpus(mariadb_template: Path,
                   tmp_path_factory: pytest.TempPathFactory) -> Callable[..., list[Path]]:
    factory = functools.partial(MariaDBServer, mariadb_template)

    def get(row_metadata: str = "FULL", row_image: str = "FULL", *, checksum: str = "CRC32",
            variant: str = "main") -> list[Path]:
        spec = CorpusSpec(row_metadata, row_image, checksum, variant)
        if spec not in _CORPORA:
            started = time.monotonic()
            try:
                result: list[Path] | BaseException = make_corpus(
                    factory, tmp_path_factory.mktemp(spec.name), row_metadata, row_image,
                    checksum=checksum, variant=variant)
            except MariaDBError as e:  # remembered: later tests fail at once, no rebuild
                result = e
            _CORPORA[spec] = (result, time.monotonic() - started)
        result = _CORPORA[spec][0]
        if isinstance(result, BaseException):
            pytest.fail(f"building the MariaDB corpus {spec.name} failed: {result}", pytrace=False)
        return list(result)

    return get


def pytest_terminal_summary(terminalreporter) -> None:
    """Report the corpora this session built: build times and event-type counts."""
    built = {spec: (files, seconds) for spec, (files, seconds) in _CORPORA.items()
             if not isinstance(files, BaseException)}
    if not built:
        return
    terminalreporter.section("MariaDB corpora")
    total = sum(seconds for _, seconds in built.values())
    for spec, (files, seconds) in built.items():
        size = sum(f.stat().st_size for f in files)
        terminalreporter.write_line(f"{spec.name}: {len(files)} files, {size} bytes, built in {seconds:.1f} s "
                                    f"({files[0].parent})")
    terminalreporter.write_line(f"total build time {total:.1f} s")
    terminalreporter.write_line(format_counts({spec.name: scan(files) for spec, (files, _) in built.items()}))
