"""Deprecated import path, kept for code written against it: ``binlogwriter.writer`` moved to
``binlogwriter.write.writer`` (CHANGELOG, "Packages by concept"). Nothing in the project imports
this module; it warns once and re-exports the new module's public names."""

import warnings

from binlogwriter.write.writer import *  # noqa: F403
from binlogwriter.write.writer import __all__  # noqa: F401

warnings.warn("binlogwriter.writer is deprecated: import from binlogwriter.write.writer (or binlogwriter)",
              DeprecationWarning, stacklevel=2)
