"""The 19-byte event header in one home (issue 30): binlogwriter/layouts/header.py declares it
(``Header``) and derives its fast forms; nothing else spells its struct format or slices a
header field by literal offsets."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from binlogwriter.batch.dtypes import HEADER_DTYPE
from binlogwriter.layouts.header import (
    FLAGS_AT,
    HEADER_SIZE,
    HEADER_STRUCT,
    LENGTH_AT,
    LOG_POS_AT,
    SERVER_ID_AT,
    TIMESTAMP_AT,
    TYPE_AT,
    Header,
    header_struct,
)

ROOT = Path(__file__).resolve().parents[1]
_NAMES = ("timestamp", "type_code", "server_id", "event_length", "log_pos", "flags")
# the header's fields as (start, end) slices: [5:9] server_id, [9:13] length, [13:17] log_pos, [17:19] flags
_FIELD_SLICES = {(5, 9), (9, 13), (13, 17), (17, 19)}
_SKIP = ("binlogwriter/batch/", "binlogwriter/values/")  # the generation-engine issue (#28) edits these now


def test_offsets_are_the_declared_ones() -> None:
    """Independent of the derivation: format.md §3's table."""
    assert (TIMESTAMP_AT, TYPE_AT, SERVER_ID_AT, LENGTH_AT, LOG_POS_AT, FLAGS_AT, HEADER_SIZE) == (0, 4, 5, 9, 13, 17, 19)
    assert HEADER_STRUCT.size == HEADER_SIZE
    assert HEADER_DTYPE.names == _NAMES
    assert [HEADER_DTYPE.fields[n][1] for n in _NAMES] == [0, 4, 5, 9, 13, 17]


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=19, max_size=40), st.sets(st.sampled_from(_NAMES), min_size=1))
def test_fast_forms_equal_the_declaration(data: bytes, some: set[str]) -> None:
    want = Header.parse(data[:HEADER_SIZE])
    assert HEADER_STRUCT.unpack_from(data) == tuple(want[n] for n in _NAMES)
    picked = [n for n in _NAMES if n in some]
    assert header_struct(*picked).unpack_from(data) == tuple(want[n] for n in picked)
    row = __import__("numpy").frombuffer(data[:HEADER_SIZE], dtype=HEADER_DTYPE)[0]
    assert tuple(int(row[n]) for n in _NAMES) == tuple(want[n] for n in _NAMES)


def _offenders(root: Path) -> list[str]:
    out = []
    for pkg in ("binlogwriter", "generators", "spark_gen"):
        for f in sorted((root / pkg).rglob("*.py")):
            rel = f.relative_to(root).as_posix()
            if rel.startswith(_SKIP) or rel == "binlogwriter/layouts/header.py":
                continue
            text = f.read_text(encoding="utf-8")
            if re.search(r"""["']<?(IBIIIH|LBLLLH|4xB4x)""", text):
                out.append(f"{rel}: header struct format")
            for node in ast.walk(ast.parse(text)):
                s = node.slice if isinstance(node, ast.Subscript) else None
                if isinstance(s, ast.Slice) and isinstance(s.lower, ast.Constant) and isinstance(s.upper, ast.Constant) \
                        and (s.lower.value, s.upper.value) in _FIELD_SLICES and _bytes_name(node.value):
                    out.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
                at = s.right if isinstance(s, ast.BinOp) and isinstance(s.op, ast.Add) else s
                if isinstance(at, ast.Constant) and at.value == 4 and _bytes_name(node.value) \
                        and (rel, ast.unparse(node)) not in _NOT_HEADERS:  # the type byte: data[4], buf[off + 4]
                    out.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
                if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.left, ast.Name) \
                        and node.left.id in _EVENT_STARTS and isinstance(node.right, ast.Constant) \
                        and node.right.value in (5, 9, 13, 17):  # a field's file offset: position + 13
                    out.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    return out


_EVENT_STARTS = ("position", "offset", "event_start", "start")
"""Names that hold where an event starts, to which a header field's offset is added."""
_NOT_HEADERS = {("binlogwriter/layouts/mariadb.py", "head[4]")}  # an XA xid's gtrid_length, not a header


def _bytes_name(node: ast.AST) -> bool:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name in ("data", "ev", "event", "buf", "head", "header", "raw", "b")


def test_no_other_header_declaration() -> None:
    found = _offenders(ROOT)
    assert not found, "use binlogwriter.layouts.header's HEADER_STRUCT / header_struct / *_AT:\n" + "\n".join(found)


def test_the_scan_finds_a_redeclared_header(tmp_path: Path) -> None:
    pkg = tmp_path / "binlogwriter"
    pkg.mkdir()
    (pkg / "m.py").write_text('import struct\nH = struct.Struct("<IBIIIH")\n'
                              'def f(data, ev, f, position, off, p):\n    return data[9:13], data[20:24], ev[4], ev[off + 4], '
                              'f.seek(position + 13), data[5], p + 9\n')
    assert len(_offenders(tmp_path)) == 5
