"""What the batch engine keeps between batches — one row codec per table (``TableRows.column_descs``
gives ``row_codec`` the same tuple object each batch) with the encoded entries of every value
pool (``_pool_pieces``, kept for every pooled column of a wide table), one ``pool + edges``
tuple per base pool under edge values and charset stress (``generators/columns/_vec.py``
``edge_twin``), pool classes of the unchanged-row check — changes no byte: over drawn wide
tables (60–300 columns of pooled text, CHAR, ENUM/SET, JSON, utf8mb4 and latin1 text, NULLs,
edge values, keyless tables) cut into batches of a few transactions, the batch engine writes
exactly what the per-transaction reference writes (binlogs, manifest, every truth file)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import generators.batch as gbatch
import generators.run_batched as grun
from generators.spec import Spec

from .conftest import generate_both, tree_digest

_TYPES = ("VARCHAR(40) CHARACTER SET utf8mb4 NULL", "CHAR(3) NOT NULL", "ENUM('a','bb','ccc') NULL",
          "SET('x','y','z') NOT NULL", "JSON NULL", "TEXT CHARACTER SET utf8mb4", "VARCHAR(12) CHARACTER SET latin1",
          "INT NULL", "DECIMAL(9,3) NULL", "DATETIME(6) NULL")
_NAMES = ("city", "country", "url", "agent", "name", "title", "currency", "note")


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_wide_tables_in_small_batches_equal_the_reference(data: Any, tmp_path_factory: pytest.TempPathFactory,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    width = data.draw(st.integers(60, 300), label="columns")
    types = data.draw(st.lists(st.sampled_from(_TYPES), min_size=width, max_size=width), label="types")
    cols = ", ".join(f"{_NAMES[i % len(_NAMES)]}_{i} {t}" for i, t in enumerate(types))
    key = data.draw(st.sampled_from(["id BIGINT NOT NULL PRIMARY KEY, ", ""]), label="key")
    ddl = (f"CREATE TABLE w ({key}{cols}) DEFAULT CHARSET=utf8mb4;\n"
           "CREATE TABLE s (id INT NOT NULL PRIMARY KEY, city VARCHAR(20), tier ENUM('a','b') NOT NULL);\n")
    spec = Spec.from_dict(dict(
        workload=None, schema_sql=ddl, schema_file="s.sql", initial_rows=data.draw(st.integers(1, 8), label="rows"),
        transactions=data.draw(st.integers(20, 60), label="transactions"), seed=data.draw(st.integers(0, 99)),
        flavor=data.draw(st.sampled_from(["mysql80", "mariadb1011"]), label="flavor"),
        edge_values=data.draw(st.sampled_from([None, 0.2]), label="edge values"),
        charset_stress=data.draw(st.sampled_from([None, 0.5]), label="charset stress"),
        mix="insert=0.4,update=0.4,delete=0.2"))
    size = data.draw(st.integers(1, 7), label="batch transactions")
    for mod in (gbatch, grun):
        monkeypatch.setattr(mod, "BATCH_TXNS", size)
        monkeypatch.setattr(mod, "FIRST_TXNS", size)
        monkeypatch.setattr(mod, "BATCH_BYTES", size * 300)
    batch, ref = generate_both(spec, tmp_path_factory.mktemp("caches"), monkeypatch)
    assert tree_digest(batch) == tree_digest(ref)
