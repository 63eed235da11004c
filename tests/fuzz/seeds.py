"""Seed inputs of the fuzzer: real-server events and generated files of every flavor.

* **real**: the whole events of ``tests/data/vectors/*.json`` captured from real servers
  (MariaDB 10.11 files, MySQL 5.7/8.0/8.4 events, TRANSACTION_PAYLOAD events), re-framed as
  small binlog files behind the FDE that governed them (or a stock FDE of the flavor);
* **generated**: small files written by :func:`binlogwriter.strategies.binlogs` for each
  flavor (MySQL 8.0, 8.4 with tagged GTIDs, MariaDB 10.11; compressed payloads, every row
  image and metadata setting, tables over every column type), drawn by hypothesis under a
  fixed seed so the same ``--seed`` gives the same seeds;
* **schemas**: CREATE TABLE text of those generated tables plus the SQL workload in
  ``tests/data/mysqlbinlog-output``.

A seed file is split into *units*: the magic, the FDE, and one transaction (or one
stand-alone event) — small inputs keep the cost per mutant low.
"""

from __future__ import annotations

import json
import shutil
import struct
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from binlogwriter.events import FormatDescriptionEvent, encode_event
from binlogwriter.format import BinlogFormat

DATA = Path(__file__).resolve().parents[1] / "data"
MAGIC = b"\xfebin"


@dataclass
class Unit:
    """A small binlog: the FDE bytes, then events (each whole: header, body, footer)."""

    origin: str
    fde: bytes
    events: list[bytes] = field(default_factory=list)
    crc: bool = True


def build_file(fde: bytes, events: list[bytes]) -> bytes:
    """Magic, FDE, events: the bytes of a binlog file as the mutator left them."""
    return MAGIC + fde + b"".join(events)


def fix_event(ev: bytes, crc: bool, pos: int | None = None, *, length: bool = True) -> bytes:
    """``ev`` with event_length (and log_pos when ``pos`` is given) set to what it is and its
    CRC32 footer recomputed: a mutated body is reached past the checksum check."""
    b = bytearray(ev)
    if len(b) < 19:
        return bytes(b)
    if length:
        struct.pack_into("<I", b, 9, len(b))
    if pos is not None:
        struct.pack_into("<I", b, 13, pos + len(b))
    if crc and len(b) >= 23:
        flags = int.from_bytes(b[17:19], "little")
        if b[4] == 15 and flags & 1:  # an FDE's CRC is computed with LOG_EVENT_BINLOG_IN_USE_F cleared
            c = zlib.crc32(bytes(b[:17]) + (flags & ~1).to_bytes(2, "little") + bytes(b[19:-4]))
        else:
            c = zlib.crc32(bytes(b[:-4]))
        struct.pack_into("<I", b, len(b) - 4, c)
    return bytes(b)


def _fde_has_crc(fde: bytes) -> bool:
    return len(fde) >= 19 + 57 and fde[-5] == 1


def split_file(data: bytes, origin: str) -> list[Unit]:
    """The units of one binlog file: its FDE with each transaction (GTID/BEGIN … XID/COMMIT)
    or stand-alone event."""
    if data[:4] != MAGIC:
        return []
    pos = 4
    events: list[bytes] = []
    while pos + 19 <= len(data):
        n = int.from_bytes(data[pos + 9:pos + 13], "little")
        if n < 19 or pos + n > len(data):
            break
        events.append(data[pos:pos + n])
        pos += n
    if not events or events[0][4] != 15:
        return []
    fde, rest = events[0], events[1:]
    crc = _fde_has_crc(fde)
    units: list[Unit] = []
    cur: list[bytes] = []
    maps: dict[bytes, bytes] = {}

    def close() -> None:
        # rows events whose Table_map came earlier in the file get it in front of them
        need = [m for m in maps.values() if m not in cur]
        if any(e[4] in _ROWS for e in cur):
            units.append(Unit(origin, fde, need[-3:] + cur, crc))
        else:
            units.append(Unit(origin, fde, list(cur), crc))
        cur.clear()

    for ev in rest:
        t = ev[4]
        if t in (33, 34, 42, 162) and cur:  # a GTID starts a transaction
            close()
        cur.append(ev)
        if t == 19:
            maps[ev[19:25]] = ev
        if t in (16, 4, 35, 163, 161) or (t == 2 and b"COMMIT" in ev[-40:]):
            close()
    if cur:
        close()
    units.append(Unit(origin, fde, [], crc))
    return units


def _stock_fde(flavor: str) -> bytes:
    fmt = {"mysql57": BinlogFormat.mysql80, "mysql80": BinlogFormat.mysql80,
           "mysql84": BinlogFormat.mysql84, "mariadb": BinlogFormat.mariadb1011}[flavor]()
    return encode_event(FormatDescriptionEvent.for_format(fmt, timestamp=1), fmt, offset=4)


def real_units() -> list[Unit]:
    """Units made of the real-server events of tests/data/vectors."""
    units: list[Unit] = []
    files: dict[tuple, list[tuple[int, bytes]]] = {}
    for path in sorted((DATA / "vectors").glob("*.json")):
        for i, entry in enumerate(json.loads(path.read_text())):
            if entry.get("kind") != "event":
                continue
            ctx = entry.get("context", {})
            raw = bytes.fromhex(entry["hex"])
            if len(raw) < 19:
                continue
            origin = f"{path.name}[{i}]"
            if ctx.get("file_offset") is not None and "local" in entry.get("source", ""):
                # events of one real file: put back together in file order (Table_map + rows)
                files.setdefault((entry.get("source", ""), ""), []).append((ctx["file_offset"], raw))
                continue
            if raw[4] == 15:
                units.append(Unit(origin, raw, [], _fde_has_crc(raw)))
                continue
            fde_hex = ctx.get("fde_hex")
            src = entry.get("source", "").lower()
            if fde_hex:
                fde = bytes.fromhex(fde_hex)
            else:
                fde = _stock_fde("mariadb" if "mariadb" in src else "mysql80")
            crc = _fde_has_crc(fde)
            ev = raw
            if crc and not _crc_ok(raw):  # payload inner events and footer-less captures
                ev = fix_event(raw + b"\0\0\0\0", True)
            elif not crc and _crc_ok(raw):
                ev = fix_event(raw[:-4], False)
            units.append(Unit(origin, fde, [ev], crc))
    for (source, _), evs in sorted(files.items()):
        evs.sort()
        name = source.rsplit(" ", 1)[-1]
        fdes = [e for _, e in evs if e[4] == 15]
        body = b"".join(e for _, e in evs if e[4] != 15)
        for fde in fdes[:1] or [_stock_fde("mariadb")]:
            units.extend(split_file(MAGIC + fde + body, f"real:{name}"))
    return units


def _crc_ok(ev: bytes) -> bool:
    return len(ev) >= 23 and zlib.crc32(ev[:-4]) == int.from_bytes(ev[-4:], "little")


def generated_files(seed: int, per_flavor: int = 12) -> list[tuple[str, bytes]]:
    """Small files of every flavor written by the hypothesis strategies under ``seed``."""
    from binlogwriter.schema import FLAVORS

    out: list[tuple[str, bytes]] = []
    tmp = tempfile.mkdtemp(prefix="fuzz-seeds-")
    try:
        for flavor in FLAVORS:
            _collect_flavor(flavor, seed, per_flavor, tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def _collect_flavor(flavor: str, seed: int, per_flavor: int, tmp: str, out: list) -> None:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from binlogwriter.strategies import binlogs

    n = [0]

    @hseed(seed)
    @settings(max_examples=per_flavor, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(binlogs(flavor, max_tables=2, max_transactions=3, directory=tmp, max_binlog_size=1 << 30))
    def collect(case):
        try:
            for f in case.files:
                out.append((f"generated:{flavor}#{n[0]}", Path(f).read_bytes()))
            n[0] += 1
        finally:
            case.cleanup()

    collect()


def generated_tables_sql(seed: int, n: int = 40) -> list[str]:
    """CREATE TABLE statements of generated tables (every column type, every flavor)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from binlogwriter.fixtures._model import table_sql
    from binlogwriter.schema import FLAVORS
    from binlogwriter.strategies import tables

    out: list[str] = []
    for flavor in FLAVORS:
        @hseed(seed)
        @settings(max_examples=n // len(FLAVORS), database=None, phases=[Phase.generate], deadline=None,
                  suppress_health_check=list(HealthCheck))
        @given(tables(flavor, max_columns=10))
        def collect(t):
            out.append(table_sql(t))

        collect()
    for p in sorted((DATA / "mysqlbinlog-output").glob("*.sql")):
        out.append(p.read_text(errors="replace"))
    return out


@dataclass
class Seeds:
    units: list[Unit]
    schemas: list[str]

    @property
    def by_kind(self) -> dict[str, list[Unit]]:
        rows = [u for u in self.units if any(e[4] in _ROWS for e in u.events)]
        pay = [u for u in self.units if any(e[4] in (40, 166, 167, 168, 169, 170, 171, 165) for e in u.events)]
        return {"all": self.units, "rows": rows or self.units, "payload": pay or self.units}


_ROWS = frozenset((23, 24, 25, 30, 31, 32, 39, 166, 167, 168, 169, 170, 171))


def load_seeds(seed: int, per_flavor: int = 12) -> Seeds:
    units = real_units()
    for origin, data in generated_files(seed, per_flavor):
        units.extend(split_file(data, origin))
    return Seeds(units, generated_tables_sql(seed))
