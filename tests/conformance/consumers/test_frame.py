"""The matrix frame itself (base.py, matrix.py): adapter discovery, expectations, shapes and
the catalogue comparison — that it passes a correct stream and names a wrong value.

The correct stream is decoded by binlogwriter's own reader (not by the comparison under test)
and turned into the change model by hand here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from binlogwriter.testing import read_changes
from binlogwriter.values import ABSENT

from .base import discover
from .matrix import (
    Shape,
    assert_catalogue_matches,
    catalogue_shapes,
    expectation,
    load_expectations,
    materialise,
    run_shapes,
)

OURS = {"python-mysql-replication", "zongji", "mysql-event-stream", "mariadb-binlog -R", "mariadb-replica"}


def test_discover_finds_the_adapters_and_reports_a_broken_one(tmp_path: Path) -> None:
    found = {a.name for a in discover() if a.module is not None}
    assert OURS <= found
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "adapter.py").write_text("NAME = 'x'\nraise RuntimeError('no toolchain here')\n")
    (tmp_path / "partial").mkdir()
    (tmp_path / "partial" / "adapter.py").write_text("NAME = 'y'\nFLAVORS = ('mysql80',)\n")
    got = {a.dirname: a for a in discover(tmp_path)}
    assert got["broken"].module is None and "no toolchain here" in (got["broken"].error or "")
    assert got["partial"].module is None and "ensure_built" in (got["partial"].error or "")
    with pytest.raises(Exception, match="no toolchain here"):
        got["broken"].check()


def test_expectations_first_match_wins_and_need_a_reason(tmp_path: Path) -> None:
    rules = [{"consumer": "c", "shape": "catalogue:a:mysql80", "status": "pass"},
             {"consumer": "c", "shape": "catalogue:a:*", "status": "fails", "reason": "r", "link": "L"}]
    assert expectation("c", Shape("catalogue", "mysql80", entry="a"), rules).status == "pass"
    e = expectation("c", Shape("catalogue", "mysql84", entry="a"), rules)
    assert (e.status, e.reason, e.link) == ("fails", "r", "L")
    assert expectation("other", Shape("catalogue", "mysql84", entry="a"), rules).status == "pass"
    bad = tmp_path / "e.toml"
    bad.write_text('[[expect]]\nconsumer = "c"\nshape = "*"\nstatus = "fails"\n')
    with pytest.raises(ValueError, match="reason"):
        load_expectations(bad)
    assert all(r["status"] in ("pass", "fails") for r in load_expectations())


def test_shapes() -> None:
    default = run_shapes(["mysql80", "mariadb1011"], every=False)
    assert [s.id for s in default][0::2] == ["run:mysql80:FULL:FULL", "run:mariadb1011:FULL:FULL"]
    assert len(default) == 4 and len(set(s.id for s in default)) == 4
    assert len(run_shapes(["mysql80"], every=True)) == 3 * 2
    assert len(run_shapes(["mariadb1011"], every=True)) == 3 * 3
    cat = catalogue_shapes(["mysql84"])
    assert "catalogue:tagged_gtid:mysql84" in {s.id for s in cat}
    assert "catalogue:event_over_16mb:mysql84" not in {s.id for s in cat}  # large: left out


def _model(case) -> list[dict]:
    """Our reader's changes of ``case`` in the change model (images keyed by name)."""
    out = []
    for c in read_changes(case.files, case.tables):
        db, table = c.table.split(".", 1)
        t = next(t for t in case.tables if t.database == db and t.name == table)
        names = [col.name for col in t.columns]

        def img(row, names=names):
            return None if row is None else {n: v for n, v in zip(names, row, strict=True) if v is not ABSENT}

        out.append({"op": c.op, "database": db, "table": table, "before": img(c.before), "after": img(c.after)})
    return out


@pytest.mark.parametrize("entry", ["negative_time", "minimal_absent_vs_null", "enum_300_set_64", "zero_dates"])
def test_catalogue_comparison_passes_the_truth_and_names_a_wrong_value(tmp_path: Path, entry: str) -> None:
    _run, case = materialise(Shape("catalogue", "mysql80", entry=entry), tmp_path)
    decoded = _model(case)
    assert assert_catalogue_matches(decoded, case) == len(case.changes)
    side = "after" if decoded[0]["after"] else "before"
    col = next(iter(decoded[0][side]))
    decoded[0][side][col] = "not the value"
    with pytest.raises(AssertionError, match=f"change 0 .*\\n  {side}.{col}: decoded 'not the value'"):
        assert_catalogue_matches(decoded, case)
    with pytest.raises(AssertionError, match="changes decoded"):
        assert_catalogue_matches(decoded[1:], case)
