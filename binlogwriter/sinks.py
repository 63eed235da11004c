"""Where a :class:`~binlogwriter.write.writer.BinlogWriter`'s bytes go: the :class:`Sink` protocol
and the default :class:`FileSink` (files written as ``<name>.part`` and renamed when complete,
docs/output.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

from binlogwriter.appendfile import DIRECT_AFTER, AppendFile, write_at
from binlogwriter.errors import BinlogError, OutputError, OutputExistsError

__all__ = ["Sink", "FileSink"]

TMP_SUFFIX = ".part"


class Sink(Protocol):
    """Where a :class:`BinlogWriter`'s bytes go. The writer drives one file at a time:

    * ``open(name, offset)``: ``offset == 0``: a new file, its header comes next;
      ``offset > 0``: continue a file another writer suspended at that offset (a writer
      resumed from a :class:`WriterState`: the bytes before ``offset`` are not written here);
    * ``write(data)``: append;
    * ``set_final(pos, data)``: once the file is complete the bytes at file offset ``pos``
      must read ``data`` — the FDE's ``LOG_EVENT_BINLOG_IN_USE_F``, set while the file is
      written and cleared when it is complete (format.md §3); given for every file the
      writer opens or resumes;
    * ``finish() -> Path``: the file is complete (it ends with ROTATE or STOP);
    * ``suspend()``: the writer stops mid-file (:meth:`BinlogWriter.suspend`); another one
      continues it;
    * ``abort()``: drop what this sink wrote of the file.
    """

    def open(self, name: str, offset: int) -> None: ...

    def write(self, data: bytes) -> None: ...

    def set_final(self, pos: int, data: bytes) -> None: ...

    def finish(self) -> Path: ...

    def suspend(self) -> None: ...

    def abort(self) -> None: ...


class _Digest:
    """sha256 of a file as its bytes are written, in a worker thread (hashlib runs without
    the GIL), with the :meth:`FileSink.set_final` patches applied: the digest of the complete
    file, without reading it back. At most ``depth`` chunks wait (the writer blocks beyond)."""

    def __init__(self, depth: int = 4) -> None:
        import hashlib
        import queue
        import threading

        self._h = hashlib.sha256()
        self._q: queue.Queue = queue.Queue(maxsize=depth)
        self._thread = threading.Thread(target=self._work, name="binlog-sha256", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while True:
            data = self._q.get()
            if data is None:
                return
            self._h.update(data)

    def add(self, data: bytes) -> None:
        self._q.put(data)

    def hexdigest(self) -> str:
        self._q.put(None)
        self._thread.join()
        return self._h.hexdigest()

    def cancel(self) -> None:
        self._q.put(None)
        self._thread.join()


class FileSink:
    """The default :class:`Sink`: ``<directory>/<name>``, written as ``<name>.part`` and
    renamed when complete (docs/output.md). :meth:`suspend` leaves the ``.part`` (flag in use)
    for the writer that resumes it; that writer's :meth:`open` truncates it to its offset.

    A new file whose final name exists is refused (:class:`OutputExistsError`) unless
    ``overwrite``. An ``OSError`` (full disk, no permission) removes the ``.part`` and is
    raised as one :class:`OutputError` naming the file.

    ``digest``: the sha256 of every file this sink writes whole (from offset 0) is computed
    while it is written (:class:`_Digest`) and kept in :attr:`digests` (final name -> hex
    digest) once the file is complete; a resumed file has none there.
    """

    def __init__(self, directory: str | os.PathLike, *, overwrite: bool = False, digest: bool = False,
                 direct_after: int | None = DIRECT_AFTER) -> None:
        self.directory = Path(directory)
        self.overwrite = overwrite
        self.direct_after = direct_after  # a new file's bytes past this go with O_DIRECT (AppendFile)
        self._fh = None
        self._name: str | None = None
        self._final: list[tuple[int, bytes]] = []
        self.digest = digest
        self.digests: dict[str, str] = {}
        self._digest: _Digest | None = None
        self._at = 0  # file offset of the next byte written

    def _part(self) -> Path:
        return self.directory / (self._name + TMP_SUFFIX)

    def _failed(self, what: str, exc: OSError) -> OutputError:
        """Drop the ``.part`` and describe the failure in one line."""
        path = self._part() if self._name is not None else self.directory
        self.abort()
        return OutputError(f"cannot {what} {path}: {exc.strerror or exc}", file=str(path))

    def open(self, name: str, offset: int) -> None:
        final = self.directory / name
        part = self.directory / (name + TMP_SUFFIX)
        if offset == 0 and not self.overwrite and os.path.lexists(final):
            raise OutputExistsError(f"{final} exists", file=str(final))
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"cannot create {self.directory}: {exc.strerror or exc}",
                              file=str(self.directory)) from None
        if offset == 0:
            try:
                fh = AppendFile(part, self.direct_after)
            except OSError as exc:
                raise OutputError(f"cannot write {part}: {exc.strerror or exc}", file=str(part)) from None
        else:
            try:
                fh = open(part, "r+b")
            except FileNotFoundError:
                raise BinlogError(f"cannot resume {name}: {part} does not exist") from None
            if fh.seek(0, os.SEEK_END) < offset:
                fh.close()
                raise BinlogError(f"cannot resume {name} at offset {offset}: {part} is shorter")
            fh.truncate(offset)
            fh.seek(offset)
        self._fh, self._name, self._final = fh, name, []
        self._stop_digest()
        self._at = offset
        if self.digest and offset == 0:
            self._digest = _Digest()

    def _stop_digest(self) -> None:
        if self._digest is not None:
            dg, self._digest = self._digest, None
            dg.cancel()

    def write(self, data: bytes) -> None:
        try:
            self._fh.write(data)
        except OSError as exc:
            raise self._failed("write", exc) from None
        if self._digest is not None:
            at, self._at = self._at, self._at + len(data)
            for pos, fin in self._final:
                if pos < at + len(data) and at < pos + len(fin):  # the hash sees the file as it ends
                    buf = bytearray(data)
                    for p, f in self._final:
                        lo, hi = max(p, at), min(p + len(f), at + len(data))
                        if lo < hi:
                            buf[lo - at:hi - at] = f[lo - p:hi - p]
                    data = bytes(buf)
                    break
            # bytes, or a read-only memoryview whose buffer nobody changes (the batch encoder's)
            self._digest.add(data if type(data) is bytes or (type(data) is memoryview and data.readonly)
                             else bytes(data))

    def set_final(self, pos: int, data: bytes) -> None:
        if self._digest is not None and pos < self._at:  # those bytes were hashed already
            self._stop_digest()
        self._final.append((pos, data))

    def finish(self) -> Path:
        fh = self._fh
        final = self.directory / self._name
        try:
            fh.close()
            self._fh = None
            write_at(self._part(), self._final)
            if not self.overwrite and os.path.lexists(final):  # appeared while we wrote
                raise FileExistsError(17, "the final name exists; pass overwrite=True to replace it")
            os.replace(self._part(), final)
            if self._digest is not None:
                dg, self._digest = self._digest, None
                self.digests[final.name] = dg.hexdigest()
        except FileExistsError as exc:
            self.abort()
            raise OutputExistsError(f"{final} exists", file=str(final)) from exc
        except OSError as exc:
            raise self._failed("write", exc) from None
        return final

    def suspend(self) -> None:
        self._stop_digest()
        self._fh.close()
        self._fh = None

    def abort(self) -> None:
        self._stop_digest()
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError:  # buffered bytes that cannot be written any more (full disk)
                pass
            self._fh = None
        if self._name is not None:
            try:
                os.unlink(self._part())
            except FileNotFoundError:
                pass
