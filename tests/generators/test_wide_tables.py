"""Tables of 64 and more updatable columns (issue #28 step 0: one 64-bit column mask per row
overflowed in ``TableRows.compute_columns`` and every run crashed).

The vectorised row function (boolean column matrices) equals the scalar reference
(``compute_scalar``, ``update_columns``: sets of column indexes, no mask) at column counts
around 64, the packed-integer and bitmap boundaries 250/251/256/257 and 4096 (the most a
MySQL or MariaDB table may have); the batch path writes the same files as the
per-transaction path; ``generate --schema`` runs end to end. The replay into a real server
is tests/conformance/test_wide_tables_replay.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from binlogwriter.cli import main as cli_main
from generators.engine import Run
from generators.spec import Spec
from tests.batch.test_generate_paths import both
from tests.conformance.test_wide_tables_replay import wide_ddl


def _run(ncols: int, **extra) -> Run:
    spec = Spec.from_dict(
        dict(workload=None, schema_sql=wide_ddl("w", ncols, "MyISAM"), schema_file="w.sql", seed=5, **extra)
    )
    return Run(spec, Path("unused"))


@pytest.mark.parametrize("ncols", [63, 64, 65, 66, 250, 251, 256, 257, 4096])
def test_vectorised_rows_equal_the_row_function_on_wide_tables(ncols: int) -> None:
    (rt,) = _run(ncols).rows
    assert len(rt.mutable) == ncols - 1
    rng = np.random.default_rng(ncols)
    n = 12 if ncols > 1000 else 60
    keys = rng.integers(0, 500, n)
    vers = (rng.integers(0, 2, n) << 32) | rng.integers(0, 40, n)
    cols = rt.compute_columns(keys, vers, np.zeros(n, dtype=np.int64))
    lists = [c if isinstance(c, list) else c.tolist() for c in cols]
    masks = rt.update_masks(keys, vers)
    assert masks.shape == (n, ncols - 1)
    sets, set_of = rt.update_sets(keys, vers)
    for r in range(n):
        k, v = int(keys[r]), int(vers[r])
        assert tuple(col[r] for col in lists) == rt.compute_scalar(k, v, 0), (k, v)
        want = set(rt.update_columns(k, v))
        assert {c for p, c in enumerate(rt.mutable) if masks[r, p]} == want
        assert set(sets[set_of[r]]) == want


@pytest.mark.parametrize(
    "ncols,extra",
    [
        (64, dict(row_image="MINIMAL")),
        (65, dict(flavor="mariadb1011", row_metadata="FULL")),
        (257, dict(row_image="NOBLOB", flavor="mysql84")),
        (300, dict(row_image="MINIMAL", ddl_every=7)),
    ],
)
def test_batch_path_equals_per_transaction_path_on_wide_tables(
    tmp_path: Path, monkeypatch, ncols: int, extra: dict
) -> None:
    spec = Spec.from_dict(
        dict(
            workload=None,
            schema_sql=wide_ddl("w", ncols, "MyISAM"),
            schema_file="w.sql",
            seed=9,
            transactions=40,
            initial_rows=10,
            **extra,
        )
    )
    a, b = both(tmp_path, spec, monkeypatch)
    assert a == b


def test_generate_schema_with_4096_columns(tmp_path: Path) -> None:
    ddl = tmp_path / "w.sql"
    ddl.write_text(wide_ddl("w", 4096, "MyISAM"))
    out = tmp_path / "out"
    r = CliRunner().invoke(
        cli_main,
        [
            "generate",
            "--schema",
            str(ddl),
            "--out",
            str(out),
            "--transactions",
            "8",
            "--initial-rows",
            "3",
            "--row-image",
            "minimal",
        ],
    )
    assert r.exit_code == 0, r.output
    final = (out / "truth" / "final" / "test.w.jsonl").read_text().splitlines()
    assert final and all(len(json.loads(line)) == 4096 for line in final)
    v = CliRunner().invoke(cli_main, ["verify", "--roundtrip", str(out / "binlog.000001")])
    assert v.exit_code == 0, v.output
