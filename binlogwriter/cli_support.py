"""What every ``binlogwriter`` command shares in talking to its user (issue #27):

- :class:`Choice` (with :func:`binlogwriter.errors.did_you_mean`): a name that is not one of the known ones (a
  fixture, a workload, a flavor, ...) is a usage error naming the closest known names
  (:func:`difflib.get_close_matches`, as git and click do for commands);
- :func:`cli_message`: the library words its advice in keyword arguments (``pass
  schemas=``, ``pass overwrite=True``: :class:`binlogwriter.errors.Advice`); a command
  line user has flags, so the advice is replaced by the command line's own;
- :class:`Interrupted` and :data:`INTERRUPTED_STATUS`: Ctrl-C ends every command with one
  line and status 130 (128 + SIGINT, what a shell reports for a command killed by it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from binlogwriter.errors import did_you_mean

__all__ = ["Choice", "INTERRUPTED_STATUS", "Interrupted", "LIBRARY_FLAGS", "cli_message"]

INTERRUPTED_STATUS = 130
"""128 + SIGINT (2): the status a shell gives a command that SIGINT ended."""


class Interrupted(BaseException):
    """Ctrl-C (KeyboardInterrupt) during a command, carried past click's own handling (which
    would print ``Aborted!`` and exit 1) to the top-level handler of ``binlogwriter``."""


class Choice(click.Choice):
    """click's Choice whose refusal also names the closest choices (``'mysql8' is not one of
    'mysql80', 'mysql84', 'mariadb1011' (did you mean 'mysql80' or 'mysql84'?)``)."""

    def get_invalid_choice_message(self, value: Any, ctx: click.Context | None) -> str:
        return super().get_invalid_choice_message(value, ctx).rstrip(".") + did_you_mean(
            str(value), map(str, self.choices)
        )


LIBRARY_FLAGS: Mapping[str, str] = {
    "schemas": "give --schema FILE (the tables' CREATE TABLE statements)",
    "overwrite": "choose an empty --out directory",
}
"""The command line's advice for each library keyword argument an error's advice names."""


def cli_message(exc: BaseException, flags: Mapping[str, str] = LIBRARY_FLAGS) -> str:
    """``str(exc)`` with its library advice (:attr:`binlogwriter.errors.BinlogError.advice`)
    replaced by the command line's for the same setting (``flags``: keyword argument ->
    advice naming the CLI flag)."""
    text = str(exc)
    advice = getattr(exc, "advice", None)
    if advice is not None and advice.argument in flags and advice.text in text:
        return text.replace(advice.text, flags[advice.argument])
    return text
