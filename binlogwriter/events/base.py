"""The base of every typed event: :class:`Event`, :class:`RawEvent`, :class:`EventPosition`.

An event is a dataclass whose fields are the fields of its construct declaration
(:mod:`binlogwriter.layouts`) plus the common header fields (format.md §3): ``timestamp``,
``server_id``, ``flags``, ``log_pos``. Types without a declaration decode to
:class:`RawEvent` and re-encode byte-exactly (docs/design.md principle 3).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from binlogwriter.errors import KeptRawError
from binlogwriter.format import type_name

__all__ = ["Event", "RawEvent", "EventPosition", "ANONYMOUS_SID", "HEADER_FIELDS"]

ANONYMOUS_SID = "00000000-0000-0000-0000-000000000000"
"""The SID of ANONYMOUS_GTID events (all zero, format.md §8)."""

HEADER_FIELDS = ("timestamp", "server_id", "flags", "log_pos")
"""Event fields that live in the common header, not in the layout (format.md §3)."""


@dataclass(frozen=True, slots=True)
class EventPosition:
    """Where a decoded event was read: file name, absolute offset, total length."""

    file: str | None
    offset: int
    length: int


@dataclass(kw_only=True)
class Event:
    """Base of every event. ``timestamp`` None lets the writer fill in its clock."""

    TYPE: ClassVar[int] = -1
    timestamp: int | None = None
    server_id: int | None = None
    flags: int = 0
    log_pos: int = 0
    post_header_extra: bytes = b""
    unparsed: bytes = b""
    origin: EventPosition | None = field(default=None, compare=False, repr=False)

    @property
    def type_code(self) -> int:
        return self.TYPE

    def build_context(self) -> dict[str, Any]:
        """Extra construct context the layout needs to build this event (rows: columns)."""
        return {}

    @property
    def type_name(self) -> str:
        return type_name(self.type_code)

    # layout <-> fields ---------------------------------------------------------------------
    def to_layout(self) -> dict[str, Any]:
        out = {}
        for f in dataclasses.fields(self):
            if f.name in HEADER_FIELDS or f.name == "origin":
                continue
            out[f.name] = getattr(self, f.name)
        return out

    @classmethod
    def from_layout(cls, c: Any, **header: Any) -> Event:
        kw = {}
        for f in dataclasses.fields(cls):
            if f.name in HEADER_FIELDS or f.name == "origin":
                continue
            if f.name in c:
                kw[f.name] = _plain(c[f.name])
        return cls(**kw, **header)


def _plain(v: Any) -> Any:
    """construct Containers/ListContainers -> dicts/lists (keys starting with '_' dropped)."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items() if not str(k).startswith("_")}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


@dataclass(kw_only=True)
class RawEvent(Event):
    """An event kept as its raw post-header+body bytes: an unknown or undeclared type, or
    (``kept_raw`` says why) a body the declaration decodes but would not encode back to the
    same bytes — a field value out of what the layout models, bytes left over, a
    non-canonical encoding. Re-encoding gives the bytes read (docs/design.md principle 3)."""

    raw_type: int
    body: bytes = b""
    kept_raw: str | None = field(default=None, compare=False)

    def __getattr__(self, name: str) -> Any:
        # asked for a field of its type (``ev.gtid`` of a GTID kept raw): a located, typed
        # error saying why the event has no fields — still an AttributeError for hasattr()
        if name.startswith("_") or name in ("origin", "kept_raw", "raw_type", "body"):
            raise AttributeError(name)
        o = self.__dict__.get("origin")
        why = self.__dict__.get("kept_raw") or "its type is not decoded"
        raise KeptRawError(f"{type_name(self.__dict__.get('raw_type', -1))} has no field {name!r}: "
                           f"kept as raw bytes ({why})", file=o.file if o else None,
                           offset=o.offset if o else None)

    @property
    def type_code(self) -> int:
        return self.raw_type
