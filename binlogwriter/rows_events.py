"""Compatibility shim: rows events live in :mod:`binlogwriter.events.rows` (delete once no
import names this module)."""

from binlogwriter.events.rows import *  # noqa: F403
from binlogwriter.events.rows import ROWS_CLASSES as _CLASSES  # noqa: F401
from binlogwriter.events.rows import __all__  # noqa: F401
