"""Compatibility shim: TABLE_MAP_EVENT lives in :mod:`binlogwriter.events.table_map` (delete
once no import names this module)."""

from binlogwriter.events.table_map import TableMapEvent

__all__ = ["TableMapEvent"]
