"""One framer (issue 30, "One read event stream"): only binlogwriter/read/framing.py reads an
event's ``event_length`` to find where the next event starts — :func:`iter_frames` for whole
files, :func:`frame_bounds` for a buffer (a payload, a block), :func:`iter_blocks` for a file
read block by block (``serve``, whose files may still be written; the manifest scan) — and
binlogwriter/layouts/ declares the header. Every other module takes its events from those.

The scan looks for the signs of a framing loop of one's own: a ``header_struct`` naming
``event_length``, ``LENGTH_AT`` other than as the end of the server_id field
(``data[SERVER_ID_AT:LENGTH_AT]``), a header array's ``["event_length"]`` read (writers assign
it), and a ``while`` loop whose test compares a position with ``HEADER_SIZE``
(``while pos + HEADER_SIZE <= n``). Literal header offsets are test_header_home.py's."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("binlogwriter", "generators", "spark_gen")
HOME = ("binlogwriter/read/framing.py", "binlogwriter/layouts/")
ALLOWED = {
    "binlogwriter/serve/packets.py": "checks the lengths it is given against the header fields (array form); frames nothing",
}
PENDING: set[str] = set()
"""Modules still framing themselves while another branch edits them; an entry that no longer
offends fails (remove it)."""


def _offences(source: str) -> list[str]:
    tree = ast.parse(source)
    upper_bounds = {id(n.upper) for n in ast.walk(tree) if isinstance(n, ast.Slice) and n.upper is not None}
    out = []
    for node in ast.walk(tree):
        where = f"{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "header_struct" \
                and any(isinstance(a, ast.Constant) and a.value == "event_length" for a in node.args):
            out.append(f"{where}: {ast.unparse(node)}")
        elif isinstance(node, ast.Name) and node.id == "LENGTH_AT" and isinstance(node.ctx, ast.Load) \
                and id(node) not in upper_bounds:
            out.append(f"{where}: reads the event_length field (LENGTH_AT)")
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                and isinstance(node.slice, ast.Constant) and node.slice.value == "event_length":
            out.append(f"{where}: {ast.unparse(node)}")
        elif isinstance(node, ast.While) and any(isinstance(n, ast.Name) and n.id in ("HEADER_SIZE", "HEADER")
                                                 for n in ast.walk(node.test)):
            out.append(f"{where}: while {ast.unparse(node.test)}")
    return out


def offenders(root: Path) -> dict[str, list[str]]:
    found = {}
    for pkg in PACKAGES:
        for f in sorted((root / pkg).rglob("*.py")):
            rel = f.relative_to(root).as_posix()
            if rel.startswith(HOME) or rel in ALLOWED:
                continue
            got = _offences(f.read_text(encoding="utf-8"))
            if got:
                found[rel] = got
    return found


def test_only_read_framing_frames_events() -> None:
    found = offenders(ROOT)
    bad = {k: v for k, v in found.items() if k not in PENDING}
    assert not bad, "frame with binlogwriter.read.framing (iter_frames, frame_bounds, iter_blocks):\n" + "\n".join(
        f"{k}:{line}" for k, v in bad.items() for line in v)
    assert not PENDING - set(found), f"no longer framing on their own; remove from PENDING: {sorted(PENDING - set(found))}"


def test_the_scan_finds_a_framing_loop(tmp_path: Path) -> None:
    pkg = tmp_path / "generators"
    pkg.mkdir()
    (pkg / "m.py").write_text(
        "from binlogwriter.layouts.header import HEADER_SIZE, LENGTH_AT, SERVER_ID_AT, header_struct\n"
        "unpack = header_struct('timestamp', 'event_length').unpack_from\n"
        "def walk(buf, hdr):\n"
        "    p = 4\n"
        "    while p + HEADER_SIZE <= len(buf):\n"
        "        p += int.from_bytes(buf[p + LENGTH_AT:p + LENGTH_AT + 4], 'little')\n"
        "    return p, hdr['event_length'], buf[SERVER_ID_AT:LENGTH_AT]\n")
    (pkg / "writer.py").write_text("def w(hdr, n):\n    hdr['event_length'] = n\n")
    got = offenders(tmp_path)
    assert list(got) == ["generators/m.py"]
    assert len(got["generators/m.py"]) == 5  # header_struct, the while, LENGTH_AT twice, the ['event_length'] read
