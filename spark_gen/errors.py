"""spark_gen's own error: the environment cannot run a Spark generation."""

from __future__ import annotations

from binlogwriter.errors import BinlogError

__all__ = ["EnvironmentSetupError"]


class EnvironmentSetupError(BinlogError):
    """The environment cannot run what was asked (Spark's JVM or executors' Python)."""
