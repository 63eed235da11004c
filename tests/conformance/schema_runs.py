"""Helpers of the `generate --schema` replay tests (wide tables, CHECK constraints, real-world
schemas): a run of one DDL text, replayed into a MariaDB and compared with `truth/final`."""

from __future__ import annotations

from pathlib import Path

from generators.engine import generate
from generators.spec import Spec

from .test_generate_replay import check_readers, replay_matches_truth

__all__ = ["generate_schema", "replay_matches_truth"]


def generate_schema(out: Path, ddl: str, db: str, flavor: str, image: str, **extra) -> Path:
    """``generate --schema`` of ``ddl`` into ``out`` (FULL metadata on MariaDB, MINIMAL on
    MySQL), checked by ``verify --roundtrip`` and ``mariadb-binlog``."""
    meta = "FULL" if flavor.startswith("mariadb") else "MINIMAL"
    settings = dict(
        workload=None,
        schema_sql=ddl,
        schema_file="schema.sql",
        database=db,
        flavor=flavor,
        row_image=image,
        row_metadata=meta,
        seed=3,
        transactions=60,
        initial_rows=20,
    )
    generate(Spec.from_dict({**settings, **extra}), out)
    check_readers(out)
    return out
