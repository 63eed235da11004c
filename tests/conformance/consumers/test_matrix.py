"""The conformance matrix as tests: one test per consumer × shape (matrix.py has the shapes,
the cell and the comparison; docs/consumers.md the table).

A cell expected to fail (expectations.toml) is ``xfail(strict=True)`` with its reason, only
for a difference or an error of the consumer (:class:`CellFailed`): when the consumer gets
fixed the cell passes and the strict xfail fails, so the expectation must be updated. A
missing toolchain (``ensure_built``) fails every cell of the consumer with one line — never a
skip, never an expected failure. Served by the session's ``binlog_server`` fixture (one
in-process server re-pointed per cell).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .base import Adapter, discover
from .matrix import Shape, expectation, load_expectations, run_cell, shapes_for

pytestmark = [pytest.mark.conformance,
              pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore::UserWarning")]


class CellFailed(AssertionError):
    """The consumer's output differs from the truth, or the consumer failed on the shape."""


ADAPTERS = discover()
RULES = load_expectations()


def _params() -> list:
    out = []
    for a in ADAPTERS:
        shapes = shapes_for(a) if a.module is not None else [Shape("run", "mysql80")]
        for s in shapes:
            e = expectation(a.name, s, RULES)
            marks = []
            if e.status == "fails":
                marks.append(pytest.mark.xfail(strict=True, raises=CellFailed,
                                               reason=e.reason + (f" ({e.link})" if e.link else "")))
            out.append(pytest.param(a, s, id=f"{a.name}-{s.id}", marks=marks))
    return out


_BUILT: dict[str, BaseException | None] = {}


@pytest.fixture(scope="session")
def matrix_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("matrix")


@pytest.mark.parametrize(("adapter", "shape"), _params())
def test_cell(adapter: Adapter, shape: Shape, binlog_server, matrix_workdir: Path) -> None:
    module = adapter.check()  # a broken adapter.py fails here, with its error
    if adapter.name not in _BUILT:
        try:
            module.ensure_built()
            _BUILT[adapter.name] = None
        except BaseException as exc:  # noqa: BLE001 - remembered: the consumer's other cells fail at once
            _BUILT[adapter.name] = exc
    if _BUILT[adapter.name] is not None:
        pytest.fail(f"{adapter.name} cannot be built: {str(_BUILT[adapter.name]).strip().splitlines()[0]}",
                    pytrace=False)
    try:
        # a catalogue case is served as itself: the server reports its @@binlog_row_image / _metadata
        run_cell(adapter, shape, matrix_workdir,
                 lambda path, case: binlog_server.serve(case if case is not None else path))
    except Exception as exc:
        raise CellFailed(f"{type(exc).__name__}: {exc}") from exc
