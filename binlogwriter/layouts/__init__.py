"""construct declarations of every event layout, built per :class:`BinlogFormat` (cached).

``body_layout(type_code, fmt)`` returns the Struct of an event's post-header + body (the
part between the 19-byte header and the CRC footer), or None for a type kept as raw bytes.
When the FDE declares a longer post-header than the declaration knows, the unknown bytes
are kept as ``post_header_extra`` so the event re-encodes exactly (format.md §4;
edge-cases.md 19). Layout families register in :data:`REGISTRY`; Table_map and rows events register
through :func:`register`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import construct as cs

from binlogwriter.format import BinlogFormat
from binlogwriter.layouts import control, mariadb, query

__all__ = ["body_layout", "declared_fields", "register", "REGISTRY"]

# type code -> (fields or factory(fmt) -> fields, known post-header length or None, n post fields)
REGISTRY: dict[int, tuple[list | Callable[[BinlogFormat], list | None], int | None, int]] = {}
REGISTRY.update(control.LAYOUTS)
REGISTRY.update(query.LAYOUTS)
REGISTRY.update(mariadb.LAYOUTS)


def register(type_code: int, fields, known: int | None, n_post: int) -> None:
    """Add a layout family (``fields`` may be a factory taking the format)."""
    REGISTRY[type_code] = (fields, known, n_post)
    body_layout.cache_clear()


_GREEDY_LAST = {"next_file", "query", "block", "log_filename", "trailing", "payload", "rows", None}


def declared_fields(type_code: int, fmt: BinlogFormat) -> tuple[list, int | None, int] | None:
    """(fields, known post-header length, number of post-header fields) registered for
    ``type_code`` under ``fmt`` (a factory resolved); None for a type kept as raw bytes."""
    entry = REGISTRY.get(type_code)
    if entry is None:
        return None
    fields, known, n_post = entry
    if callable(fields):
        fields = fields(fmt)
        if fields is None:
            return None
    return list(fields), known, n_post


@lru_cache(maxsize=1024)
def body_layout(type_code: int, fmt: BinlogFormat) -> cs.Construct | None:
    declared = declared_fields(type_code, fmt)
    if declared is None:
        return None
    fields, known, n_post = declared
    last = getattr(fields[-1], "name", None) if fields else None
    if (not fields or last not in _GREEDY_LAST) and not any(getattr(f, "name", None) == "unparsed" for f in fields):
        # bytes after the last declared field (a newer server's additions) are kept, never
        # dropped: "nothing is lost" (docs/design.md principle 3)
        fields.append("unparsed" / cs.GreedyBytes)
    if known is not None:
        declared = fmt.post_header_len(type_code)
        if declared > known:
            fields.insert(n_post, "post_header_extra" / cs.Bytes(declared - known))
    return cs.Struct(*fields)
