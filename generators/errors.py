"""Errors of the generators: a workload spec that is invalid.

The codec (:mod:`binlogwriter`) knows nothing of generation; its
:class:`~binlogwriter.errors.OptionError` (an invalid user setting) is the base.
"""

from __future__ import annotations

from binlogwriter.errors import OptionError

__all__ = ["SpecError"]


class SpecError(OptionError):
    """A workload spec or ``binlogwriter generate`` option that is invalid.

    ``setting`` names the spec setting (``seed``, ``schema_file``, ``columns``, ...) when the
    message is about one, so a caller that knows where the setting came from (a spec
    file's line, a command-line option) can say so.
    """
