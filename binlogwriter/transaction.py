"""Deprecated import path, kept for code written against it: ``binlogwriter.transaction`` moved to
``binlogwriter.write.transaction`` (CHANGELOG, "Packages by concept"). Nothing in the project imports
this module; it warns once and re-exports the new module's public names."""

import warnings

from binlogwriter.write.transaction import *  # noqa: F403
from binlogwriter.write.transaction import __all__  # noqa: F401

warnings.warn("binlogwriter.transaction is deprecated: import from binlogwriter.write.transaction (or binlogwriter)",
              DeprecationWarning, stacklevel=2)
