"""The engines ``binlogwriter generate --engine NAME`` can run, found by entry point.

``generators`` is the one-process engine (``local``) and the layer every other engine builds
on; an engine that distributes the same generation (``spark``: the ``spark_gen`` package)
depends on ``generators``, never the other way round (docs/architecture.md "Package
boundaries"). So the ``generate`` command does not import an engine: it looks the engine up
in the entry-point group :data:`GROUP`, declared in ``pyproject.toml``
(``spark = "spark_gen.job:generate_spark"``), the same mechanism by which the codec finds the
``generate`` command itself (binlogwriter/plugins.py).

An engine is a callable ``(spec, out, *, partitions, log_level) -> RunResult`` writing the
bytes :func:`generators.engine.generate` writes. An engine that cannot run in this
environment (no JVM, executors without the project) raises :class:`EngineSetupError`, which
the command prints as one line.
"""

from __future__ import annotations

from typing import Any

from binlogwriter import plugins
from binlogwriter.errors import BinlogError
from generators.errors import SpecError

__all__ = ["GROUP", "LOG_LEVELS", "DEFAULT_LOG_LEVEL", "EngineSetupError", "load_engine"]

GROUP = "binlogwriter.engines"
"""Entry-point group of the distributed engines (``--engine NAME``)."""

LOG_LEVELS = ("ALL", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF")
"""An engine's console log levels (``--spark-log-level``: log4j's, as Spark names them)."""

DEFAULT_LOG_LEVEL = "ERROR"
"""Only errors on the console unless asked: a generation's own summary is what a user reads."""


class EngineSetupError(BinlogError):
    """The environment cannot run the engine asked for (its runtime or its workers)."""


def load_engine(name: str) -> Any:
    """The engine entry point ``name`` of :data:`GROUP`; a :class:`SpecError` naming the
    extra to install when no installed package provides it or its package cannot be
    imported (pyspark missing, say)."""
    try:
        return plugins.load(GROUP, name)
    except (plugins.PluginMissing, ImportError) as e:
        raise SpecError(f"--engine {name}: {e} (pip install 'binlogwriter[{name}]')") from None
