"""Table definitions after an ALTER mid-stream (issue #31 §1): ``WrittenBinlogs.table_history``
/ ``tables_at`` and ``assert_changes_equal(tables=case)`` naming each change's positional
images with the definition in force at that change.

The names a consumer sees come from the binlog itself here (``binlog_row_metadata=FULL``:
each Table_map carries its column names, read by :class:`~binlogwriter.reader.BinlogReader`),
so the check is independent of the history under test."""

from __future__ import annotations

import pytest

from binlogwriter.fixtures import entry
from binlogwriter.reader import BinlogReader
from binlogwriter.testing import assert_changes_equal, read_changes


@pytest.fixture(params=["mysql80", "mariadb1011"])
def alter_case(request, tmp_path):
    with entry("alter_table_midstream").write(tmp_path / "case", flavor=request.param) as written:
        yield written


def _dict_changes(written) -> list[dict]:
    """The changes as a dict-emitting consumer has them: names from the FULL Table_maps."""
    return [{"op": c.op, "database": c.database, "table": c.table, "before": c.before, "after": c.after}
            for c in BinlogReader([str(f) for f in written.files]).changes()]


def test_history_has_the_definition_after_the_alter(alter_case) -> None:
    hist = alter_case.table_history
    assert [(k, [c.name for c in t.columns]) for k, t in hist] == [(0, ["id", "a"]), (2, ["id", "a", "b"])]
    key = f"{alter_case.tables[0].database}.al"
    assert [c.name for c in alter_case.tables_at(1)[key].columns] == ["id", "a"]
    assert [c.name for c in alter_case.tables_at(2)[key].columns] == ["id", "a", "b"]


def test_dict_consumer_matches_positional_truth_across_the_alter(alter_case) -> None:
    assert_changes_equal(_dict_changes(alter_case), alter_case.changes, tables=alter_case)
    positional = read_changes(alter_case.files, alter_case)
    assert [len(c.after) for c in positional if c.after is not None] == [2, 2, 3, 3]
    assert_changes_equal(positional, alter_case.changes, tables=alter_case)


def test_read_changes_with_only_the_first_definition_says_where(alter_case) -> None:
    """The first definition alone does not fit the Table_map after the ALTER (3 columns)
    when the metadata is not FULL; with FULL the map's own metadata decodes it."""
    got = read_changes(alter_case.files, alter_case.tables)
    assert [len(c.after) for c in got if c.after is not None] == [2, 2, 3, 3]


def test_a_wrong_value_in_the_added_column_is_reported_by_name(alter_case) -> None:
    got = _dict_changes(alter_case)
    got[2]["after"] = {**got[2]["after"], "b": 31}
    with pytest.raises(AssertionError) as ei:
        assert_changes_equal(got, alter_case.changes, tables=alter_case)
    assert "after column b: decoded 31" in str(ei.value)
