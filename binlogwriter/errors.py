"""One exception hierarchy for the whole codec (docs/design.md principle 6).

Every message ends with *where*: ``... - at binlog.000001:4711 (WRITE_ROWS_EVENT) -> rows[3].c``
for decoding errors, ``... - at db.t.c row 3`` for value errors.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import NamedTuple

__all__ = [
    "did_you_mean",
    "first_line",
    "Advice",
    "BinlogError",
    "DecodeError",
    "ChecksumError",
    "TruncatedError",
    "LimitError",
    "KeptRawError",
    "EncodeError",
    "ValueEncodeError",
    "SchemaError",
    "OptionError",
    "OutputError",
    "OutputExistsError",
]


def did_you_mean(value: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` / `` (did you mean 'x' or 'y'?)`` naming the known names close
    to a name that is not one of them (:func:`difflib.get_close_matches`, case-insensitive;
    git and click do the same for commands), or ``""`` when none is close. Messages about an
    unknown fixture, workload, flavor, ... end their first clause with it."""
    names = list(choices)
    folded = {n.lower(): n for n in names}
    close = [folded[m] for m in difflib.get_close_matches(value.lower(), list(folded), n=2, cutoff=0.6)]
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(c) for c in close) + "?)"


def first_line(exc: BaseException) -> str:
    """The first line of a library's error message (sqlglot's span several, with a caret
    drawing), or the error's type name when it has none: one-line errors quote it."""
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


class Advice(NamedTuple):
    """What the caller can do about an error, worded for the library: ``text`` (part of the
    message, e.g. ``pass overwrite=True to replace it``) names the keyword ``argument``
    (``overwrite``). The command line replaces ``text`` by its own advice naming its flag
    (:func:`binlogwriter.cli_support.cli_message`), so neither wording leaks into the other."""

    argument: str
    text: str


class BinlogError(Exception):
    """Root of every error binlogwriter raises on purpose.

    ``advice``: the :class:`Advice` its message ends with, if any (a class attribute where
    every instance has the same)."""

    advice: Advice | None = None


class DecodeError(BinlogError):
    """Bytes that do not decode. Carries file, absolute offset, event type and field path."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        offset: int | None = None,
        event_type: str | None = None,
        path: str | None = None,
    ) -> None:
        self.reason = message
        self.file = file
        self.offset = offset
        self.event_type = event_type
        self.path = path
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.file is not None or self.offset is not None:
            where.append(f"{self.file or '<bytes>'}:{self.offset if self.offset is not None else '?'}")
        if self.event_type:
            where.append(f"({self.event_type})")
        if self.path:
            where.append(f"-> {self.path}")
        reason = self.reason if self.advice is None else f"{self.reason}; {self.advice.text}"
        text = reason + (" - at " + " ".join(where) if where else "")
        # undecodable bytes of names are kept as surrogate escapes: show them as \udcXX so the
        # message can be printed anywhere
        return text.encode("utf-8", "backslashreplace").decode("utf-8")

    def located(
        self,
        *,
        file: str | None = None,
        offset: int | None = None,
        event_type: str | None = None,
        path: str | None = None,
    ) -> DecodeError:
        """A copy of this error with missing location parts filled in."""
        return type(self)(
            self.reason,
            file=self.file if self.file is not None else file,
            offset=self.offset if self.offset is not None else offset,
            event_type=self.event_type or event_type,
            path=self.path or path,
        )


class UnreadableFileError(DecodeError):
    """A binlog path that cannot be opened or read (missing, a directory, no permission)."""


class ChecksumError(DecodeError):
    """A CRC32 footer that does not match the event bytes."""


class TruncatedError(DecodeError):
    """A file or event that ends before its declared length."""


class LimitError(DecodeError):
    """Bytes that declare more than a reader accepts: an event length beyond the configured
    maximum (1 GiB by default, like the servers' ``max_allowed_packet`` ceiling), a
    decompressed size beyond its cap, a count larger than the bytes that could hold it.
    Raised before anything of that size is read or allocated."""


class KeptRawError(DecodeError, AttributeError):
    """A field asked of an event the reader kept as raw bytes (it would not re-encode to its
    own bytes, or its type is not decoded). Also an AttributeError, so ``hasattr`` is False."""


class EncodeError(BinlogError):
    """An event or value that cannot be encoded as asked."""


class ValueEncodeError(EncodeError, ValueError):
    """A value that does not fit its column: names table.column, row and the rule broken."""

    def __init__(self, message: str, *, table: str | None = None, column: str | None = None,
                 row: int | None = None) -> None:
        self.reason = message
        self.table = table
        self.column = column
        self.row = row
        where = ".".join(p for p in (table, column) if p)
        loc = []
        if where:
            loc.append(where)
        if row is not None:
            loc.append(f"row {row}")
        super().__init__(message + (" - at " + " ".join(loc) if loc else ""))

    def located(self, *, table: str | None = None, column: str | None = None,
                row: int | None = None) -> ValueEncodeError:
        return ValueEncodeError(self.reason, table=self.table or table, column=self.column or column,
                                row=self.row if self.row is not None else row)


class SchemaError(BinlogError, ValueError):
    """A table or column definition that no server would accept (names table and column).

    ``column`` is the column the message is about (if any); ``file`` and ``line`` say where
    the statement is when it came from a script (``schema.sql:3: ...``), ``pos`` is a
    character offset in the SQL text that was parsed (turned into ``line`` by the parser).
    """

    def __init__(self, message: str, *, column: str | None = None, file: str | None = None,
                 line: int | None = None, pos: int | None = None) -> None:
        self.reason = message
        self.column = column
        self.file = file
        self.line = line
        self.pos = pos
        super().__init__(self._render())

    def _render(self) -> str:
        if self.file is not None and self.line is not None:
            return f"{self.file}:{self.line}: {self.reason}"
        if self.file is not None:
            return f"{self.file}: {self.reason}"
        if self.line is not None:
            return f"line {self.line}: {self.reason}"
        return self.reason

    def located(self, *, file: str | None = None, line: int | None = None) -> SchemaError:
        """A copy with the script's file name and line filled in (kept if already set)."""
        return type(self)(self.reason, column=self.column, pos=self.pos,
                          file=self.file if self.file is not None else file,
                          line=self.line if self.line is not None else line)


class OptionError(BinlogError, ValueError):
    """A setting or command-line option given by the user that is invalid (a read filter's
    GTID set or datetime; a workload spec's errors derive from it).

    ``setting`` names the setting when the message is about one, so a caller that knows
    where the setting came from (a spec file's line, a command-line option) can say so.
    """

    def __init__(self, message: str, *, setting: str | None = None) -> None:
        self.reason = message
        self.setting = setting
        super().__init__(message)


class OutputError(BinlogError):
    """An output file that cannot be written (full disk, no permission, ...): names the file.
    Whatever was half-written is removed before it is raised."""

    def __init__(self, message: str, *, file: str | None = None) -> None:
        self.reason = message
        self.file = file
        super().__init__(message)


class OutputExistsError(OutputError):
    """An output file that already exists and that nobody asked to overwrite. The message is
    ``<file> exists`` followed by the advice."""

    advice = Advice("overwrite", "pass overwrite=True to replace it")

    def __init__(self, message: str, *, file: str | None = None) -> None:
        super().__init__(f"{message}; {self.advice.text}", file=file)
        self.reason = message
