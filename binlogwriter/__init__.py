"""binlogwriter: write, read and generate MySQL 8.0/8.4 and MariaDB 10.11 binary logs.

The names users start from are importable from here (``from binlogwriter import
BinlogWriter``); each is imported on first use (PEP 562), so ``import binlogwriter`` stays
cheap and starts no thread (the Spark worker daemon preloads packages before it forks)."""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

PUBLIC_HOMES: dict[str, str] = {
    "BinlogWriter": "binlogwriter.write.writer",
    "SessionSettings": "binlogwriter.write.transaction",
    "Transaction": "binlogwriter.write.transaction",
    "BinlogReader": "binlogwriter.reader",
    "BinlogFormat": "binlogwriter.format",
    "Table": "binlogwriter.schema",
    "Column": "binlogwriter.schema",
    "iter_changes": "binlogwriter.read.changes",
}

__all__ = ["__version__", *PUBLIC_HOMES]


def __getattr__(name: str) -> Any:
    module = PUBLIC_HOMES.get(name)
    if module is None:
        raise AttributeError(f"module 'binlogwriter' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(PUBLIC_HOMES))
