"""spark_gen's own error: the environment cannot run a Spark generation."""

from __future__ import annotations

from generators.engines import EngineSetupError

__all__ = ["EnvironmentSetupError"]


class EnvironmentSetupError(EngineSetupError):
    """The environment cannot run what was asked (Spark's JVM or executors' Python)."""
