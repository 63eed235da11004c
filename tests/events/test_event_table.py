"""The one event table (binlogwriter.events.table): every class has a layout, and the
post-header sizes our declarations derive from ``sizeof()`` equal the post-header lengths
real servers write in their FDE (the presets are copied from real FDEs, docs/format.md §4)."""

from __future__ import annotations

import dataclasses

import pytest

import binlogwriter.events as events
from binlogwriter.events import Event, RawEvent
from binlogwriter.events.table import EVENTS, body_layout, event_class, known_post_header
from binlogwriter.format import FLAVORS, BinlogFormat, EventType


@pytest.mark.parametrize("flavor", FLAVORS)
def test_post_header_sizes_match_the_server_fde(flavor: str) -> None:
    fmt = BinlogFormat.preset(flavor)
    checked = 0
    for code, kind in EVENTS.items():
        known = known_post_header(code, fmt)
        server = fmt.post_header_len(code)
        if kind.n_post is None or server == 0:
            continue  # self-described, or a type this server does not write
        if fmt.is_mariadb and 36 <= code < 160:
            continue  # MariaDB reuses no MySQL 5.7+ code; its FDE entries there are placeholders
        assert known == server, f"{EventType(code).name}: declared {known}, {flavor} FDE says {server}"
        checked += 1
    assert checked >= 10


def test_every_event_class_is_in_the_table() -> None:
    classes = {cls for cls in vars(events).values()
               if isinstance(cls, type) and issubclass(cls, Event) and dataclasses.is_dataclass(cls)
               and cls.TYPE >= 0}
    assert classes <= {k.cls for k in EVENTS.values()}
    assert RawEvent not in classes
    for code, kind in EVENTS.items():
        assert kind.cls.TYPE == code and event_class(code) is kind.cls
        assert body_layout(code, BinlogFormat.preset("mysql80")) is not None


def test_table_id_size_4_shrinks_the_post_header() -> None:
    """A pre-5.1.4 FDE (6-byte TABLE_MAP post-header) means 4-byte table ids: the post-header
    size follows the fields, not a literal."""
    table = list(BinlogFormat.preset("mysql80").post_header_lengths)
    table[19 - 1] = 6
    fmt = BinlogFormat("mysql80", "8.0.36", post_header_lengths=tuple(table))
    assert fmt.table_id_size == 4
    assert known_post_header(EventType.TABLE_MAP_EVENT, fmt) == 6
    assert known_post_header(EventType.WRITE_ROWS_EVENT, fmt) == 8
