"""XA transactions in the change stream: rows are committed at ``XA COMMIT``, not at ``XA PREPARE``.

An XA transaction is logged in two groups (format.md §17, docs/mariadb.md): the first holds
its rows and ends with an XA_PREPARE event (``one_phase``, ``formatID``, ``gtrid``, ``bqual``)
instead of an XID; a later group — possibly in a later file, with other transactions in
between — is one Query ``XA COMMIT X'gtrid',X'bqual',formatID`` or ``XA ROLLBACK …`` naming
the same XID. An XA_PREPARE with ``one_phase`` set (MySQL's ``XA COMMIT … ONE PHASE``)
commits at once.

:class:`XaHeld` keeps the changes of prepared transactions by their XID until the Query that
resolves them: ``XA COMMIT`` hands them out, ``XA ROLLBACK`` drops them, as a server replaying
the binlog applies them. Prepared transactions never resolved in the files read are not
committed and give no changes.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["XaHeld", "xa_key", "xa_resolution"]

_RESOLVE = re.compile(rb"\s*XA\s+(COMMIT|ROLLBACK)\s+X'([0-9A-Fa-f]*)'\s*,\s*X'([0-9A-Fa-f]*)'\s*,\s*(-?\d+)",
                      re.IGNORECASE)


def xa_key(format_id: int, gtrid: bytes, bqual: bytes) -> str:
    """An XID as the server writes it in ``XA COMMIT`` / ``XA ROLLBACK``: ``X'..',X'..',N``."""
    return f"X'{gtrid.hex()}',X'{bqual.hex()}',{format_id}"


def xa_resolution(query: bytes) -> tuple[str, str] | None:
    """``("commit" | "rollback", xid key)`` of an ``XA COMMIT`` / ``XA ROLLBACK`` statement
    naming its XID in the serialized form, else None."""
    m = _RESOLVE.match(query)
    if m is None:
        return None
    return (m.group(1).decode().lower(),
            xa_key(int(m.group(4)), bytes.fromhex(m.group(2).decode()), bytes.fromhex(m.group(3).decode())))


class XaHeld:
    """Changes of prepared XA transactions by XID key, until their commit or rollback."""

    def __init__(self) -> None:
        self.held: dict[str, list[Any]] = {}

    def prepare(self, key: str, changes: list[Any]) -> None:
        """The group of ``key`` ended with XA_PREPARE (not one-phase): hold its changes."""
        self.held.setdefault(key, []).extend(changes)

    def resolve(self, query: bytes) -> list[Any]:
        """The changes an ``XA COMMIT`` query commits (those of an ``XA ROLLBACK`` are dropped)."""
        r = xa_resolution(query)
        if r is None:
            return []
        kind, key = r
        changes = self.held.pop(key, [])
        return changes if kind == "commit" else []
