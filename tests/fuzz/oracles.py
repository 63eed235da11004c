"""Oracles of the consumers of decoded events (issue #27): the Parquet export, and the
commands checked against each other and against ``mariadb-binlog``.

* ``export``: :func:`~binlogwriter.read.export.export_parquet` into an output directory
  nested in the worker's temporary directory. Nothing may be written outside that
  directory — not beside it, not at :data:`~tests.fuzz.hostile.ESCAPE_ROOT` where the
  absolute names of the mutator point (an *escape* finding) — and the rows and GTIDs it
  writes per table must be those ``changes()`` gives (a *disagreement* finding).
* ``differential``: ``changes()``, the ``inspect -vv`` listing and ``verify --roundtrip``
  against what :class:`~binlogwriter.reader.BinlogReader` decodes (the reference: every
  event decoded through its declaration, :mod:`tests.fuzz.model`). They must agree on whether the file is valid and
  on the offset of the first error; ``changes()`` must give the reader's rows (values by
  column name) with the GTID of the transaction the reader sees them in; the listing must
  print the reader's GTIDs; ``verify --roundtrip`` may not say a bare OK on a file holding
  events the reader kept raw. One mutant in :data:`MARIADB_EVERY` of a MariaDB file also
  goes through the ``mariadb`` oracle.
* ``mariadb``: ``mariadb-binlog -vv`` on a MariaDB-flavoured file: when it reads the file
  cleanly and the reader raises, or it refuses a file the reader decodes without keeping
  anything raw, that is a disagreement unless :data:`MARIADB_ALLOWED` documents it.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import zlib
from pathlib import Path
from typing import Any

from binlogwriter.errors import BinlogError
from tests.fuzz.hostile import ESCAPE_ROOT
from tests.fuzz.model import Model, model

__all__ = [
    "Disagreement",
    "Escape",
    "MARIADB_ALLOWED",
    "MARIADB_EVERY",
    "export_target",
    "differential_target",
    "mariadb_target",
]


class Disagreement(Exception):
    """Two readers of the same bytes that disagree (a finding): its message starts with the
    rule broken, the part a finding's signature is made of."""


class Escape(Exception):
    """The export wrote outside its output directory (a finding)."""


MARIADB_EVERY = 50
"""The differential target runs ``mariadb-binlog`` on one MariaDB mutant in this many
(chosen by the CRC32 of the mutant's bytes, so a replay makes the same choice)."""

MARIADB_ALLOWED: tuple[tuple[str, str], ...] = (
    (
        r"the reader refuses what mariadb-binlog reads: .*(is a second or more|is out of range)",
        "a temporal value no server writes (a fraction of a second or more, TIME fields out of "
        "range): mariadb-binlog prints it, the reader refuses it (docs/fuzzing.md)",
    ),
    (
        r"the reader refuses what mariadb-binlog reads: .*stream read less than specified amount",
        "a body shorter than its layout: mariadb-binlog prints some such events from the bytes "
        "present; the reader refuses them (a field cut short is not a value)",
    ),
    (
        r"the reader refuses what mariadb-binlog reads: .*TABLE_MAP_EVENT\) -> optional_metadata",
        "mariadb-binlog -vv reads a Table_map's columns and parses its optional metadata only for "
        "--print-table-metadata; the reader decodes the whole body",
    ),
    (
        r"the reader refuses what mariadb-binlog reads: .*expected end of stream.*TABLE_MAP_EVENT",
        "the same: bytes after the last optional-metadata field",
    ),
    (
        r"mariadb-binlog refuses what the reader decodes: .*event_type: (29|3[3-9]|4[0-2])\b",
        "MySQL-only event types (ROWS_QUERY, GTID, TRANSACTION_CONTEXT …) in a MariaDB file: the reader "
        "decodes event types by their number whatever the flavor; mariadb-binlog refuses them",
    ),
)
"""(pattern, why): disagreements of the ``mariadb`` oracle whose rule matches the pattern
(``re.search``) are documented differences, not bugs."""


# ----------------------------------------------------------------------------- comparing
def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    try:
        return bool(a == b) and type(a) is type(b) or repr(a) == repr(b)
    except Exception:  # noqa: BLE001 - values that do not compare: by their text
        return repr(a) == repr(b)


def reader_changes(path: str) -> tuple[list, tuple[int, str, str] | None]:
    from binlogwriter.reader import BinlogReader

    out: list = []
    try:
        for c in BinlogReader(path).changes():
            out.append(c)
    except BinlogError as exc:
        off = getattr(exc, "offset", None)
        return out, (off if off is not None else -1, type(exc).__name__, str(exc)[:200])
    return out, None


def _where(err: tuple | None) -> str:
    return "no error" if err is None else f"{err[1]} at {err[0]} ({err[2][:120]})"


def _check_changes(m: Model, changes: list, err: tuple | None) -> None:
    stop = m.changes_stop
    until = m.compared_until
    if err is None and stop is not None:
        raise Disagreement(
            f"changes() reads past an event the reader refuses: reader "
            f"{_where(m.error) if m.error and m.error[0] == stop else m.refused}"
        )
    if err is not None and stop is None and until is not None and err[0] >= until:
        pass  # the reader stopped first, at an event changes() does not read
    elif err is not None and stop is None and err[0] in m.lazy:
        pass  # a part the reader decodes lazily (a compressed statement's text), which
        # changes() reads to end a transaction at its COMMIT: the same located error
    elif err is not None:
        if stop is None:
            raise Disagreement(f"changes() raises where the reader decodes: {_where(err)}")
        if err[0] != stop:
            raise Disagreement(
                f"changes() and the reader stop at other offsets: changes() {_where(err)}, "
                f"reader {_where(m.error) if m.error and m.error[0] == stop else m.refused}"
            )
    if m.xa:
        return  # prepared XA changes are handed out at their XA COMMIT (read/xa.py): order differs
    want = [r for r in m.rows if until is None or r[0] < until]
    changes = [c for c in changes if until is None or c.position < until]
    if err is None and until is None and len(changes) != len(want) or len(changes) > len(want):
        raise Disagreement(f"changes() gives {len(changes)} changes, the reader's rows events {len(want)}")
    for c, (off, i, _tm, before, after, gtid, t) in zip(changes, want, strict=False):
        if (c.position, c.event_row) != (off, i):
            raise Disagreement(f"changes() change at {c.position} row {c.event_row}, the reader's at {off} row {i}")
        if c.gtid != gtid:
            what = (
                "changes() gives a GTID to rows the reader sees in no GTID's transaction"
                if gtid is None
                else "changes() gives no GTID to rows of a GTID's transaction"
                if c.gtid is None
                else "changes() GTID differs from the reader's"
            )
            raise Disagreement(f"{what}: at {off}: {c.gtid!r} vs {gtid!r}")
        if before == "empty" or t == 39:
            continue
        if not _same(c.before, before) or not _same(c.after, after):
            raise Disagreement(
                f"changes() values differ from the reader's at {off} row {i}: "
                f"{c.before!r:.120} {c.after!r:.120} vs {before!r:.120} {after!r:.120}"
            )


_GTID_NEXT = re.compile(r"GTID_NEXT= '([^']*)'")
_MARIA_GTID = re.compile(r"\tGTID (\S+)")
_AT = re.compile(r":(\d+)")


def _listing_gtids(text: str) -> list[str | None]:
    out: list[str | None] = []
    for line in text.splitlines():
        g = _GTID_NEXT.search(line)
        if g:
            out.append(None if g.group(1) == "ANONYMOUS" else g.group(1))
        elif line.startswith("#") and (g := _MARIA_GTID.search(line)):
            out.append(g.group(1))
    return out


def _error_offsets(text: str, path: str) -> list[int]:
    """The offsets named ``path:N`` by the error lines of a command's output."""
    out = []
    for line in text.splitlines():
        if line.startswith(("binlogwriter: ", "FAIL ")) or ": FAILED " in line:
            out += [int(x) for x in re.findall(re.escape(path) + r":(\d+)", line)]
    return out


def _check_inspect(m: Model, code: int, text: str, path: str) -> None:
    offs = _error_offsets(text, path)
    allowed = set(m.kept) | set(m.lazy)
    if m.error is not None:
        if not code:
            raise Disagreement(f"inspect lists a file the reader refuses: reader {_where(m.error)}")
        if m.error[0] not in offs and not (offs and offs[0] in allowed and offs[0] < m.error[0]):
            raise Disagreement(
                f"inspect fails elsewhere than the reader: inspect at {offs[:3]}, reader {_where(m.error)}"
            )
    elif code and not set(offs) <= allowed:
        raise Disagreement(f"inspect fails on a file the reader decodes: at {offs[:3]}")
    got = _listing_gtids(text)
    want = m.gtids[: len(got)] if code or m.refused else m.gtids
    if m.refused is None and got != want:
        diff = next(
            (i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), min(len(got), len(want))
        )
        raise Disagreement(
            f"inspect prints other GTIDs than the reader decodes: GTID #{diff} "
            f"{got[diff] if diff < len(got) else None!r} vs "
            f"{want[diff] if diff < len(want) else None!r}"
        )


def _check_verify(m: Model, code: int, text: str, path: str) -> None:
    offs = _error_offsets(text, path)
    if m.error is not None:
        if not code:
            raise Disagreement(f"verify --roundtrip says OK on a file the reader refuses: {_where(m.error)}")
        if m.error[0] not in offs and not (offs and offs[0] in m.kept and offs[0] < m.error[0]):
            raise Disagreement(
                f"verify --roundtrip fails elsewhere than the reader: verify at {offs[:3]}, "
                f"reader {_where(m.error)}"
            )
    elif offs and not set(offs) <= set(m.kept):
        raise Disagreement(
            f"verify --roundtrip fails on a file the reader decodes: at {offs[:3]}: "
            f"{text.strip().splitlines()[-1][:200]}"
        )
    elif m.kept and not code and "raw" not in text.lower():
        raise Disagreement(
            f"verify --roundtrip says OK without naming the {len(m.kept)} event(s) "
            f"the reader keeps raw (first at {m.kept[0]})"
        )


def differential_target(data: bytes, path: str) -> None:
    from tests.fuzz.targets import inspect, roundtrip

    m = model(path)
    changes, err = reader_changes(path)
    _check_changes(m, changes, err)
    code, text = inspect(data, path, verbose=2)
    _check_inspect(m, code, text, path)
    code, text = roundtrip(data, path)
    _check_verify(m, code, text, path)
    if zlib.crc32(data) % MARIADB_EVERY == 0:
        mariadb_target(data, path, m)


# ----------------------------------------------------------------------------- mariadb-binlog
def _is_mariadb(path: str) -> bool:
    from binlogwriter.read.framing import iter_frames

    try:
        for _off, _data, fmt in iter_frames(path, verify_checksum=False):
            return bool(fmt.is_mariadb)
    except BinlogError:
        return False
    return False


def mariadb_target(data: bytes, path: str, m: Model | None = None) -> None:
    """``mariadb-binlog -vv`` against the reader, on MariaDB files only (module docstring)."""
    if not _is_mariadb(path) or shutil.which("mariadb-binlog") is None:
        return
    m = model(path) if m is None else m
    try:
        proc = subprocess.run(
            ["mariadb-binlog", "-vv", "--verify-binlog-checksum", path],
            capture_output=True,
            timeout=3,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return  # mariadb-binlog's own trouble (and under the runner's 5 s watchdog): no verdict
    err = proc.stderr.decode("utf-8", "replace")
    theirs_ok = proc.returncode == 0 and "ERROR" not in err
    ours_ok = m.error is None and not m.lazy
    rule = None
    if theirs_ok and not ours_ok:
        why = _where(m.error) if m.error else f"a Table_map's columns or a query's text at {m.lazy[0]}"
        rule = f"the reader refuses what mariadb-binlog reads: {why}"
    elif not theirs_ok and ours_ok and not m.kept:
        rule = f"mariadb-binlog refuses what the reader decodes: {err.strip()[:200]}"
    if rule and not any(re.search(r, rule) for r, _why in MARIADB_ALLOWED):
        raise Disagreement(rule)


# ----------------------------------------------------------------------------- export
def _plain(name: str) -> bool:
    """Whether a schema or table name can be a directory name as it is: not empty, not ``.``
    or ``..``, no separator, NUL or control character, valid UTF-8 (no surrogate escape)."""
    return (
        name not in ("", ".", "..")
        and name.isprintable()
        and not any(c in name for c in "/\\")
        and not any("\udc80" <= c <= "\udcff" for c in name)
    )


def _tree(root: Path, skip: Path) -> set[str]:
    out = set()
    for dirpath, dirnames, filenames in os.walk(root):
        if Path(dirpath) == skip:
            dirnames[:] = []
            continue
        for n in dirnames + filenames:
            p = Path(dirpath, n)
            if p != skip:
                out.add(str(p))
    return out


def export_target(data: bytes, path: str) -> None:
    """Export into ``<tmp>/export/1/2/3/4/out``: escapes, and disagreements with the reader
    (an event it refuses must stop the export there) and with ``changes()`` (the same error,
    the same rows and GTIDs per table)."""
    import pyarrow.parquet as pq

    from binlogwriter.read.export import export_parquet

    base = Path(path).parent / "export"
    out = base / "1" / "2" / "3" / "4" / "out"
    shutil.rmtree(base, ignore_errors=True)
    shutil.rmtree(ESCAPE_ROOT, ignore_errors=True)
    out.mkdir(parents=True)
    before = _tree(base, out)
    counts: dict[str, int] | None = None
    error: BinlogError | None = None
    try:
        counts = export_parquet([path], out)
    except BinlogError as exc:
        error = exc
    finally:
        escaped = sorted(_tree(base, out) - before)
        if os.path.lexists(ESCAPE_ROOT):
            escaped.append(ESCAPE_ROOT)
        written = {}
        if not escaped:
            for p in out.rglob("*.parquet"):
                key = str(p.parent.relative_to(out))
                written.setdefault(key, []).extend(pq.read_table(p, columns=["gtid", "position"]).to_pylist())
        shutil.rmtree(base, ignore_errors=True)
        shutil.rmtree(ESCAPE_ROOT, ignore_errors=True)
    if escaped:
        raise Escape(f"export wrote outside its output directory: {escaped[:3]}")
    m = model(path)
    stop = m.changes_stop
    where = getattr(error, "offset", None)
    # the export may also refuse a Table_map (a name that cannot be a directory, a type Arrow
    # cannot hold), at the Table_map or, for a hostile name, at its rows
    own = where is not None and (where in m.maps or any(not _plain(n) for pair in m.names for n in pair))
    if stop is not None and error is None:
        raise Disagreement(f"export reads past an event the reader refuses (at {stop})")
    if stop is not None and where != stop and not (own and where is not None and where < stop):
        raise Disagreement(
            f"export and the reader stop at other offsets: export at {where}, reader at {stop}"
        )
    changes, err = reader_changes(path)
    if error is None and err is not None:
        raise Disagreement(f"export reads a file changes() refuses: changes() {_where(err)}")
    if error is not None and (err is None or where != err[0]) and not own:
        raise Disagreement(
            f"export and changes() disagree on the file: export {type(error).__name__} at {where}, "
            f"changes() {_where(err)}"
        )
    if error is not None:
        raise error
    assert counts is not None
    by: dict[tuple[str, str], list] = {}
    for c in changes:
        by.setdefault((c.database, c.table), []).append({"gtid": c.gtid, "position": c.position})
    if sorted(counts.values()) != sorted(len(v) for v in by.values()):
        raise Disagreement(
            f"export writes other row counts than changes() gives: {sorted(counts.values())} "
            f"vs {sorted(len(v) for v in by.values())}"
        )
    got = sorted(sorted((r["gtid"] or "", r["position"]) for r in rows) for rows in written.values())
    want = sorted(sorted((r["gtid"] or "", r["position"]) for r in rows) for rows in by.values())
    if got != want:
        raise Disagreement("export writes other GTIDs than changes() gives")
