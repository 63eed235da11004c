"""The replica model (generators/replica/) on the catalogue's replica entries
(binlogwriter/fixtures/replica.py): for each entry's binlog, the model's replica rows and stop
are the entry's truth — which was read from a real MariaDB 10.11 replica, and which
tests/conformance/test_replica_truth.py keeps checking against one."""

from __future__ import annotations

from pathlib import Path

import pytest

from binlogwriter.fixtures import ENTRIES
from generators.replica.catalogue import case_replica_outcome

REPLICAS = [(n, e.replica) for n, e in ENTRIES.items() if e.replica is not None]


def test_every_scenario_is_an_entry() -> None:
    kinds = {"charset", "charset_refused", "signedness", "narrowing", "widening", "extra_columns", "dropped_columns",
             "reordered_columns", "enum_reorder", "minimal_other_key", "minimal_no_key", "converted_key_collision"}
    assert {f"replica_{k}" for k in kinds} <= {n for n, _ in REPLICAS}
    assert sum(r.ddl_every > 0 for _, r in REPLICAS) == 4


@pytest.mark.parametrize("name, r", REPLICAS, ids=[n for n, _ in REPLICAS])
def test_model_predicts_the_entry_truth(tmp_path: Path, name: str, r) -> None:
    case = ENTRIES[name].write(tmp_path / "fx")
    outcome, rows = case_replica_outcome(case, r.schema_sql, r.conversions)
    assert rows["fx.t"] == list(r.rows)
    stop = (outcome["errno"], outcome["message"], outcome["gtid"]) if outcome["stopped"] else None
    assert stop == r.stop
