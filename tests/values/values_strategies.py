"""Moved to the package: :mod:`binlogwriter.strategies.codec` (kept so tests importing the old
name keep working; new tests import from the package)."""

from binlogwriter.strategies.codec import *  # noqa: F401,F403
from binlogwriter.strategies.codec import __all__  # noqa: F401
