"""The Parquet side of the export (issue 27): record batches into one folder per table
under an output directory that is written all at once or not at all.

* **Folders.** A table's folder name comes from :func:`binlogwriter.read.exportpaths.table_dir`
  (its names percent-encoded: no name from a file is ever a path); a new
  ``part-NNNNN.parquet`` starts when the table's definition changes. Two tables whose
  folders would be one on this file system (a case-insensitive one: ``T`` and ``t``) are an
  :class:`~binlogwriter.errors.OutputError` naming both, never one folder holding both.
* **All or nothing.** Everything is written into a fresh sibling of the output directory
  (``.<name>.<random>.part``) and renamed to the output directory when complete, like the
  binlog files (``sinks.FileSink``): a failure (bad input, a full disk, Ctrl-C) removes the
  sibling and any parent folder this export created, and leaves an existing output
  directory as it was. An output directory that is not empty is refused
  (:class:`~binlogwriter.errors.OutputExistsError`) unless ``overwrite``: then the old one
  is renamed aside, the new one renamed in, and the old one deleted — the two renames
  leave no moment where the directory holds a mix of both runs.
* **A writer thread.** The batches are written into their parts by one thread of their own
  (``_Writer``), in order, while the caller decodes the next ones: the same bytes, the
  Parquet encoding on the machine's second core (issue 30).
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from binlogwriter.errors import OptionError, OutputError, OutputExistsError
from binlogwriter.read.exportpaths import DATABASE_KEY, TABLE_KEY, encode_name, table_dir

__all__ = ["write_parquet", "output_directory", "shown_name", "UnknownTableError"]

_DICTIONARY = ["op", "gtid", "file"]
"""Columns written with dictionary pages (few distinct values per row group); the image
columns are written plain (trying a dictionary on each costs more than the file saves)."""

COMPRESSION = "zstd"
"""The pages' codec. Zstandard (Arrow's default level) beside Arrow's default Snappy, on a
34.9 MB MariaDB sysbench binlog's export: files 5.4 MB instead of 13.4 MB, and 0.07 CPU-s
to write instead of 0.10. Every Parquet reader in use (Arrow, Spark, DuckDB, Polars, Trino)
reads it."""


def write_parquet(
    batches: Iterable[tuple[str, str, pa.RecordBatch]], out_dir: str | os.PathLike, *, overwrite: bool = False
) -> dict[str, int]:
    """Write ``(database, table, batch)`` triples as one Parquet dataset per table under
    ``out_dir`` (module docstring); rows written per table folder name."""
    with output_directory(out_dir, overwrite=overwrite) as tmp:
        where: list[str] = []  # the part being written (relative to out_dir)
        try:
            return _write(batches, tmp, where)
        except OSError as exc:
            shown = os.path.join(out_dir, *where[-1:])
            raise OutputError(f"cannot write {shown}: {exc.strerror or exc}", file=shown) from None


_Part = tuple[pa.Schema, Any, Any, str]
"""An open part: the batches' schema, its ParquetWriter, its file, its path under the output."""


def _write(batches: Iterable[tuple[str, str, pa.RecordBatch]], tmp: Path, where: list[str]) -> dict[str, int]:
    """The parts under ``tmp``; ``where`` holds the path (relative to ``tmp``) of the part
    being opened, written or closed, for the error of a write that fails. The batches are
    written by one :class:`_Writer` thread, in order, while the next ones are decoded."""
    import pyarrow.parquet as pq

    writers: dict[tuple[str, str], _Part] = {}  # (db, table) -> its open part
    dirs: dict[tuple[str, str], str] = {}
    owners: dict[str, tuple[str, str]] = {}
    parts: dict[tuple[str, str], int] = {}
    counts: dict[str, int] = {}
    bg = Writer()
    try:
        for db, table, batch in batches:
            pair = (db, table)
            cur = writers.get(pair)
            if cur is None or not cur[0].equals(batch.schema):
                if cur is not None:
                    bg.wait(where)
                    where[:] = [cur[3]]
                    _close(cur[1], cur[2])
                name = dirs.get(pair)
                if name is None:
                    name = dirs[pair] = _table_folder(tmp, db, table, owners)
                n = parts.get(pair, 0)
                parts[pair] = n + 1
                meta = {DATABASE_KEY: encode_name(db).encode(), TABLE_KEY: encode_name(table).encode()}
                rel = os.path.join(name, f"part-{n:05d}.parquet")
                where[:] = [rel]
                # a native file (written without the GIL); its path as bytes: DIR may be any path
                f = pa.OSFile(os.fsencode(tmp / rel), "wb")
                w = pq.ParquetWriter(f, batch.schema.with_metadata(meta), use_dictionary=_DICTIONARY,
                                     compression=COMPRESSION)
                cur = writers[pair] = (batch.schema, w, f, rel)
            bg.write(cur[1], batch, cur[3], where)
            counts[dirs[pair]] = counts.get(dirs[pair], 0) + batch.num_rows
        bg.stop(where)
    except BaseException:
        bg.abandon()
        _close_all(list(writers.values()))
        raise
    entries = list(writers.values())
    for i, (_, w, f, rel) in enumerate(entries):  # a footer that cannot be written fails the export
        where[:] = [rel]
        try:
            _close(w, f)
        except BaseException:
            _close_all(entries[i + 1 :])
            raise
    return counts


class Writer:
    """The thread that writes the record batches into their parts, in the order given, while
    the caller decodes the next ones (pyarrow encodes and compresses a batch without the
    GIL; the machine's second core does it). At most :attr:`DEPTH` batches wait (memory
    stays flat); the first write that fails stops the writing, and its error is raised in
    the caller at its next :meth:`write`, :meth:`wait` or :meth:`stop`, with ``where`` set
    to that write's part. The parts are the same bytes as written in the caller's thread."""

    DEPTH = 2

    def __init__(self) -> None:
        import queue
        import threading

        self._jobs: queue.Queue = queue.Queue(self.DEPTH)
        self._failed: tuple[BaseException, str] | None = None
        self._thread = threading.Thread(target=self._run, name="parquet-writer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            try:
                if job is None:
                    return
                w, batch, rel = job
                if self._failed is None:
                    try:
                        w.write_batch(batch)
                    except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread
                        self._failed = (exc, rel)
            finally:
                self._jobs.task_done()

    def _check(self, where: list[str]) -> None:
        if self._failed is not None:
            exc, rel = self._failed
            where[:] = [rel]
            raise exc

    def write(self, w: Any, batch: pa.RecordBatch, rel: str, where: list[str]) -> None:
        """Queue ``batch`` for the part ``rel`` (its ParquetWriter ``w``)."""
        self._check(where)
        self._jobs.put((w, batch, rel))

    def wait(self, where: list[str]) -> None:
        """Every queued batch written (before a part is closed)."""
        self._jobs.join()
        self._check(where)

    def stop(self, where: list[str]) -> None:
        """Every queued batch written, the thread ended."""
        self._jobs.put(None)
        self._thread.join()
        self._check(where)

    def abandon(self) -> None:
        """The export fails: the thread ends once the write under way returns (no part is
        closed under it); the batches still queued are not written."""
        if self._thread.is_alive():
            self._failed = self._failed or (RuntimeError("abandoned"), "")
            self._jobs.put(None)
            self._thread.join()


def _close(w: Any, f: Any) -> None:
    """Close a part: its writer writes the footer, then the file is closed. A writer whose
    close fails is marked closed all the same: pyarrow's finalizer would try again and print
    the error a second time ("Exception ignored in ParquetWriter.__del__")."""
    try:
        w.close()
    finally:
        w.is_open = False
        f.close()


def _close_all(entries: list[_Part]) -> None:
    """Close the parts of an export that is failing: the error being raised is the one to
    report."""
    for _, w, f, _ in entries:
        with contextlib.suppress(Exception):
            _close(w, f)


def _table_folder(tmp: Path, db: str, table: str, owners: dict[str, tuple[str, str]]) -> str:
    """Create a table's folder (it must be new: a folder another table already has on a
    case-insensitive file system is an error naming both)."""
    name = table_dir(db, table)
    try:
        (tmp / name).mkdir()
    except FileExistsError:
        other = next((o for n, o in owners.items() if n.lower() == name.lower()), None)
        shown = ", ".join(_shown(p) for p in (other, (db, table)) if p is not None)
        raise OutputError(
            f"tables {shown} would share the folder {name} under {tmp.parent} "
            "(a case-insensitive file system): export them one at a time (--table)",
            file=str(tmp / name),
        ) from None
    owners[name] = (db, table)
    return name


def _shown(pair: tuple[str, str]) -> str:
    return shown_name(f"{pair[0]}.{pair[1]}")


def shown_name(text: str) -> str:
    """A name from a file as it can be printed on one line: characters that are not
    printable (NUL, newline, bytes the reader kept as surrogate escapes) as ``\\x..``,
    ``\\u..`` escapes."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


class UnknownTableError(OptionError):
    """A ``tables`` name (``db.table``) that no Table_map of the files has."""

    @classmethod
    def of(cls, name: str, seen: Iterable[str]) -> UnknownTableError:
        """The error for ``name``, with the closest table the files have (difflib)."""
        import difflib

        known = sorted(seen)
        close = difflib.get_close_matches(name, known, n=1)
        if close:
            hint = f"; did you mean {shown_name(close[0])}?"
        elif not known:
            hint = "; the files have no Table_map"
        else:
            more = ", …" if len(known) > 5 else ""
            hint = f"; the files have {', '.join(shown_name(k) for k in known[:5])}{more}"
        return cls(f"no table {shown_name(name)} in the files{hint}", setting="tables")


@contextlib.contextmanager
def output_directory(out_dir: str | os.PathLike, *, overwrite: bool = False) -> Iterator[Path]:
    """A fresh folder to fill; renamed to ``out_dir`` when the block ends normally, removed
    (with the parent folders made for it) when it raises (module docstring). A symbolic link
    to a directory stands for that directory; ``out_dir`` is made absolute first (``.`` is
    the current directory's own name in its parent)."""
    out = Path(os.path.abspath(out_dir))
    if out.is_symlink() and out.is_dir():
        out = out.resolve()
    if not out.name or out.is_symlink() or (out.exists() and not out.is_dir()):
        raise OutputError(f"cannot export to {out_dir}: it is not a directory", file=str(out_dir))
    if out.is_dir() and not overwrite and any(out.iterdir()):
        raise OutputExistsError(
            f"{out_dir} is not empty; pass overwrite=True to replace it", file=str(out_dir)
        )
    made = _make_parents(out.parent)
    try:
        tmp = _fresh(out.parent, f".{out.name[:200]}.", ".part")
    except OSError as exc:
        _remove_made(made)
        raise OutputError(f"cannot export to {out_dir}: {exc.strerror or exc}", file=str(out_dir)) from None
    try:
        yield tmp
        _swap(tmp, out, overwrite, out_dir)
    except OSError as exc:
        _discard(tmp, made)
        raise OutputError(
            f"cannot write the export under {out_dir}: {exc.strerror or exc}"
            f"{f' ({exc.filename})' if exc.filename else ''}",
            file=str(out_dir),
        ) from None
    except BaseException:
        _discard(tmp, made)
        raise


def _swap(tmp: Path, out: Path, overwrite: bool, shown: str | os.PathLike) -> None:
    """``tmp`` becomes ``out``. Without ``overwrite`` one rename, which takes the place of a
    missing or empty ``out`` and fails on one that was filled meanwhile (POSIX ``rename``);
    with it, an existing ``out`` is renamed aside first and deleted after."""
    if not overwrite or not out.exists():
        try:
            os.rename(tmp, out)
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                raise OutputExistsError(
                    f"{shown} is not empty; pass overwrite=True to replace it", file=str(shown)
                ) from None
            raise
        return
    aside = _fresh(out.parent, f".{out.name[:200]}.", ".old")
    os.rename(out, aside / "old")
    try:
        os.rename(tmp, out)
    except OSError:
        os.rename(aside / "old", out)
        aside.rmdir()
        raise
    import shutil  # here: the export command's start-up does not pay for it (issue 30)

    shutil.rmtree(aside, ignore_errors=True)


def _fresh(parent: Path, prefix: str, suffix: str) -> Path:
    """A new folder in ``parent`` with a random name, made with the process's umask (as the
    output directory itself would be; ``tempfile.mkdtemp`` makes it private). Callers keep
    ``prefix`` to 200 characters of the output's name: with the 12 random hex digits and
    the suffix the name stays under the 255 bytes a file name may have."""
    while True:
        d = parent / f"{prefix}{os.urandom(6).hex()}{suffix}"  # secrets.token_hex(6), without its import
        try:
            d.mkdir()
        except FileExistsError:
            continue
        return d


def _make_parents(parent: Path) -> list[Path]:
    """``mkdir -p`` of the output's parent; the folders it made, deepest last."""
    missing = []
    p = parent.absolute()
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    made = []
    try:
        for d in reversed(missing):
            d.mkdir()
            made.append(d)
    except OSError as exc:
        _remove_made(made)
        raise OutputError(f"cannot create {parent}: {exc.strerror or exc}", file=str(parent)) from None
    return made


def _discard(tmp: Path, made: list[Path]) -> None:
    import shutil  # a failed export's clean-up only

    shutil.rmtree(tmp, ignore_errors=True)
    _remove_made(made)


def _remove_made(made: list[Path]) -> None:
    for d in reversed(made):
        with contextlib.suppress(OSError):
            d.rmdir()
