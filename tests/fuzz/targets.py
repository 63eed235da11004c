"""Fuzz targets: each takes one input (a small binlog file, or CREATE TABLE text) and runs
one part of the decoder on it. A target may raise only :class:`BinlogError` subclasses (the
input is bad, and the error says where); anything else is a finding. The ``events``,
``rows`` and ``payload`` targets also check fidelity: an event decoded without error must
re-encode to its own bytes (or be kept raw) — see docs/fuzzing.md. The ``export``,
``differential`` and ``mariadb`` targets are the oracles of :mod:`tests.fuzz.oracles`.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from binlogwriter.errors import BinlogError

__all__ = ["TARGETS", "Target", "Infidelity", "Unlocated", "OutsideOutput", "run_target"]


class Infidelity(Exception):
    """A decoded event that re-encodes to other bytes, silently (a finding)."""


class OutsideOutput(Exception):
    """A file the ``export`` target wrote outside its output folder (a crash finding)."""


class Unlocated(Exception):
    """A CLI error message about a binlog that does not name its file:offset (a finding)."""


@dataclass(frozen=True)
class Target:
    name: str
    kind: str           # "binlog" (file bytes) or "sql" (text)
    focus: frozenset[int] | None
    run: Callable[[bytes | str, str], None]
    aim: float = 0.0
    """Share of its mutants made by the aimed operators (tests/fuzz/hostile.py)."""


def _framer(data, path: str) -> None:
    from binlogwriter.read.framing import iter_frames, scan_file

    scan_file(path)
    for _ in iter_frames(path):
        pass


def _extras(ev, rec, state) -> None:
    """What a reader of a decoded event can also ask for: the Table_map views, the events
    inside a TRANSACTION_PAYLOAD, a compressed query's text."""
    t = ev.type_code
    if t == 19:
        ev.view().column_descs(None)
    elif t == 40:
        from binlogwriter.payload import inner_events

        for _ in inner_events(ev, rec.fmt):
            pass
    elif t == 165:
        _ = ev.text


_UNCHECKED = frozenset((16, 33, 34, 42, 162, 23, 24, 25, 30, 31, 32, 39, 166, 167, 168, 169, 170, 171))
"""Types decoded without the decoder's own re-encode check (binlogwriter.events.decode_body
checks every other type): the fast paths for XID and GTIDs, tagged GTIDs (strict parser), rows events."""


def _fidelity(ev, rec) -> None:
    from binlogwriter.events import RawEvent
    from binlogwriter.read.roundtrip import reencode

    if isinstance(ev, RawEvent) or ev.type_code not in _UNCHECKED:
        return
    try:
        again = reencode(ev, rec.fmt)
    except BinlogError:
        return  # reported: it does not re-encode at all
    if again != rec.data:
        diff = next((i for i, (a, b) in enumerate(zip(again, rec.data, strict=False)) if a != b),
                    min(len(again), len(rec.data)))
        raise Infidelity(f"{ev.type_name} decoded cleanly but re-encodes differently at byte {diff} "
                         f"({len(again)} vs {len(rec.data)} bytes) - at {rec.file}:{rec.offset}")


def _events(data, path: str) -> None:
    from binlogwriter.reader import BinlogReader

    reader = BinlogReader(path)
    for rec in reader.records():
        ev = reader.decode(rec)
        _fidelity(ev, rec)
        _extras(ev, rec, reader.state)


def _changes(data, path: str) -> None:
    from binlogwriter.reader import BinlogReader

    for _ in BinlogReader(path).changes():
        pass


def transaction_ids(path: str) -> tuple[str, Any] | None:
    """``("changes", [(gtid, xid), ...])``: the GTID and XID of every row change, from the
    events the reader decodes: what ``changes()`` must hand out. ``("none", offset)`` when the
    GTID or XID event there has no value to give (it does not decode, or it is kept raw), None
    when the events cannot tell (another event
    that does not decode, rows left undecoded, XA, compressed transactions or queries:
    changes() handles those on its own)."""
    from binlogwriter.events import GtidBase, MariadbGtidEvent, QueryEvent, RawEvent, XidEvent
    from binlogwriter.reader import BinlogReader

    out: list[tuple] = []
    txn: list = []
    gtid = None
    try:
        for ev in BinlogReader(path):
            t = ev.type_code
            if t in (38, 40, 165):
                return None
            if isinstance(ev, RawEvent):
                if t in (16, 33, 34, 42, 162):
                    return "none", ev.origin.offset
                if t in _ROWS:
                    return None
                continue
            if isinstance(ev, GtidBase) or t == 42:
                gtid = ev.gtid
            elif isinstance(ev, MariadbGtidEvent):
                gtid = f"{ev.domain_id}-{ev.server_id}-{ev.seq_no}"
            elif isinstance(ev, XidEvent):
                out += [(g, ev.xid) for g in txn]
                txn, gtid = [], None
            elif isinstance(ev, QueryEvent):
                q = ev.query.encode("utf-8", "surrogateescape")[:16].strip().upper()
                if q in (b"COMMIT", b"ROLLBACK") or (q and not q.startswith((b"BEGIN", b"XA "))):
                    out += [(g, None) for g in txn]
                    txn = []
                    if q in (b"COMMIT", b"ROLLBACK"):
                        gtid = None
            elif t in _ROWS and t != 19:
                if ev.rows is None:
                    return None
                txn += [gtid] * len(ev.rows)
    except BinlogError as exc:
        # a GTID or XID event that does not decode: changes() has no value to give either
        off = getattr(exc, "offset", None)
        with open(path, "rb") as fh:
            head = fh.read()
        if off is not None and off + 4 < len(head) and head[off + 4] in (16, 33, 34, 42, 162):
            return "none", off
        return None
    return "changes", out + [(g, None) for g in txn]


def _transactions(data, path: str) -> None:
    """``changes()`` against the decoded events (a differential oracle, issue #27): the
    GTID and XID of every change it hands out are those the events hold; where a GTID or
    XID event was not decoded it hands out nothing (a located error)."""
    from binlogwriter.reader import BinlogReader

    want = transaction_ids(path)
    try:
        got = [(c.gtid, c.xid) for c in BinlogReader(path).changes()]
    except BinlogError:
        return
    if want is not None and want[0] == "none":
        raise Infidelity(f"changes() handed out {len(got)} changes past a GTID / XID event that does not "
                         f"decode or is kept raw - in {path}")
    if want is not None and got != want[1]:
        want = want[1]
        diff = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), min(len(got), len(want)))
        raise Infidelity(f"changes() change {diff}: (gtid, xid) {got[diff:diff + 1]} where the events hold "
                         f"{want[diff:diff + 1]} ({len(got)} vs {len(want)} changes) - in {path}")


class _Sink(io.TextIOWrapper):
    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8")


def _cli(fn, path: str, **kw) -> tuple[int, str]:
    """Run a CLI command: (exit status, what it printed); every error line it prints must
    name ``path:offset``."""
    old, olderr = sys.stdout, sys.stderr
    out, err = _Sink(), _Sink()
    sys.stdout, sys.stderr = out, err
    code = 0
    try:
        fn(**kw)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stdout, sys.stderr = old, olderr
    text = ""
    for sink in (out, err):
        sink.flush()
        text += sink.buffer.getvalue().decode("utf-8", "replace")
    if code:
        for line in text.splitlines():
            if (line.startswith(("binlogwriter: ", "FAIL ")) or ": FAILED " in line) and f"{path}:" not in line:
                raise Unlocated(f"error without {path}:offset: {line[:300]}") from None
    return code, text


def inspect(data, path: str, verbose: int | None = None) -> tuple[int, str]:
    from binlogwriter.cli import inspect

    v = verbose if verbose is not None else 2 if len(data) % 3 else 1
    return _cli(inspect.callback, path, files=(path,), start_position=None, stop_position=None, verbose=v,
                print_table_metadata=True, start_datetime=None, stop_datetime=None, database=None, table=None,
                include_gtids=None, exclude_gtids=None)


def roundtrip(data, path: str) -> tuple[int, str]:
    from binlogwriter.cli import verify

    return _cli(verify.callback, path, files=(path,), roundtrip=True)


def _export_cli(data, path: str) -> None:
    """The ``export --to parquet`` command into a folder beside the input (replaced each time):
    every error line names ``path:offset``, and nothing is written outside that folder."""
    import os

    from binlogwriter.cli import export

    out = path + ".export"
    parent = os.path.dirname(os.path.abspath(path))
    before = set(os.listdir(parent))
    _cli(export.callback, path, files=(path,), fmt="parquet", out_dir=out, schema=None, tables=(), overwrite=True,
         images="flat")
    stray = set(os.listdir(parent)) - before - {os.path.basename(out)}
    if stray:
        raise OutsideOutput(f"export wrote outside {out}: {sorted(stray)}")


def _schema(text, path: str) -> None:
    from binlogwriter.schema import parse_tables

    flavor = ("mysql80", "mysql84", "mariadb1011")[len(text) % 3]
    parse_tables(text, flavor=flavor)


_ROWS = frozenset((19, 23, 24, 25, 30, 31, 32, 39, 166, 167, 168, 169, 170, 171))
_PAYLOAD = frozenset((40, 165, 166, 167, 168, 169, 170, 171))

def _export(data, path: str) -> None:
    from tests.fuzz.oracles import export_target

    export_target(data, path)


def _differential(data, path: str) -> None:
    from tests.fuzz.oracles import differential_target

    differential_target(data, path)


def _mariadb(data, path: str) -> None:
    from tests.fuzz.oracles import mariadb_target

    mariadb_target(data, path)


TARGETS: dict[str, Target] = {t.name: t for t in (
    Target("framer", "binlog", None, _framer),
    Target("events", "binlog", None, _events),
    Target("rows", "binlog", _ROWS, _events),
    Target("payload", "binlog", _PAYLOAD, _events),
    Target("changes", "binlog", _ROWS, _changes, aim=0.3),
    Target("transactions", "binlog", frozenset((2, 16, 33, 34, 42, 162)), _transactions),
    Target("inspect", "binlog", None, inspect),
    Target("roundtrip", "binlog", None, roundtrip),
    Target("export_cli", "binlog", _ROWS, _export_cli),
    Target("schema", "sql", None, _schema),
    Target("export", "binlog", _ROWS, _export, aim=0.6),
    Target("differential", "binlog", _ROWS, _differential, aim=0.6),
    Target("mariadb", "binlog", _ROWS, _mariadb, aim=0.6),
)}


def run_target(target: Target, data: bytes | str, path: str) -> None:
    """Write the input where the target reads it and run the target."""
    if target.kind == "binlog":
        with open(path, "wb") as fh:
            fh.write(data)  # type: ignore[arg-type]
    target.run(data, path)
