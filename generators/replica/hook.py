"""The one call the engines make after a run (generators/engine.py ``generate``,
spark_gen/job.py ``generate_spark``): write ``truth/replica/`` into the finished run
directory, before it is renamed to ``--out``, when the spec has ``replica`` settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write_replica_if_asked(spec: Any, run_dir: Path) -> None:
    """``truth/replica/`` of ``run_dir`` when ``spec.replica`` is set (docs/replica.md)."""
    settings = getattr(spec, "replica", None)
    if settings is None:
        return
    from generators.replica.replay import write_replica_truth

    write_replica_truth(Path(run_dir), settings)
