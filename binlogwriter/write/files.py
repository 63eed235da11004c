"""The file side of :class:`~binlogwriter.write.writer.BinlogWriter` (part of binlogwriter/write/writer.py):
opening a file (magic, FDE with ``LOG_EVENT_BINLOG_IN_USE_F``, the flavor's second event),
``log_pos`` and ownership of every event written, rotation after a group once a file reaches
``max_binlog_size`` (ROTATE naming the next file), ``binlog.index``, STOP at the end."""

from __future__ import annotations

import os
from pathlib import Path

from binlogwriter.errors import OutputError, OutputExistsError
from binlogwriter.events import (
    BinlogCheckpointEvent,
    Event,
    FormatDescriptionEvent,
    MariadbGtidListEvent,
    PreviousGtidsEvent,
    RotateEvent,
    StopEvent,
    encode_event,
)
from binlogwriter.events.table import known_post_header
from binlogwriter.layouts.header import FLAG_IGNORABLE, FLAG_IN_USE, FLAGS_AT, MAGIC
from binlogwriter.sinks import TMP_SUFFIX

_FDE_FLAGS_AT = len(MAGIC) + FLAGS_AT  # the FDE's header flags: it is the first event after the magic


class FilesMixin:
    """:class:`~binlogwriter.write.writer.BinlogWriter`'s file methods."""

    def _open(self) -> None:
        if not self.files and self.write_index:
            self._check_index()
        self._name = f"{self.basename}.{self._next_index:06d}"
        self._next_index += 1
        self.sink.open(self._name, 0)
        self._active = True
        self.sink.set_final(_FDE_FLAGS_AT, b"\0\0")  # LOG_EVENT_BINLOG_IN_USE_F cleared when complete
        self.sink.write(MAGIC)
        self._offset = 4
        self.events_in_file = 0
        first = not self.files
        fde = FormatDescriptionEvent.for_format(self.fmt, server_id=self.server_id, flags=FLAG_IN_USE,
                                                create_timestamp=self.now if first else 0)
        self._write(fde)
        self.ids.new_file()
        if self.fmt.is_mariadb:
            self._write(MariadbGtidListEvent(server_id=self.server_id, gtids=self.ids.mariadb_gtids.layout()))
            if self._previous is not None:
                self._write(BinlogCheckpointEvent(server_id=self.server_id, log_file=self._previous))
            self._write(BinlogCheckpointEvent(server_id=self.server_id, log_file=self._name))
        else:
            self._write(PreviousGtidsEvent(server_id=self.server_id, flags=FLAG_IGNORABLE,
                                           gtid_set=self.ids.mysql_gtids.layout()))

    def _attach(self) -> None:
        """Continue the current file of the state this writer was resumed from."""
        self.sink.open(self._name, self._offset)
        self._active = True
        self._resume = False
        self.sink.set_final(_FDE_FLAGS_AT, b"\0\0")

    def _own(self, event: Event) -> Event:
        """Events the writer makes itself get zero bytes for any post-header the format
        declares longer than our declarations know (docs/edge-cases.md 19)."""
        t = event.type_code
        extra = self._extra.get(t)
        if extra is None:
            known = known_post_header(t, self.fmt)
            extra = self.fmt.post_header_len(t) - known if known is not None else 0
            self._extra[t] = extra
        if extra > 0 and len(event.post_header_extra) != extra:
            event.post_header_extra = b"\0" * extra
        return event

    def _write(self, event: Event, own: bool = True) -> int:
        self.flush()
        if own:
            event = self._own(event)
        offset = self._offset
        data = encode_event(event, self.fmt, offset=offset,
                            timestamp=self.now if event.timestamp is None else event.timestamp)
        self.sink.write(data)
        self._offset += len(data)
        self.events_in_file += 1
        return offset

    def _finish(self, last: Event) -> None:
        self._write(last)
        self._complete()
        self._previous = self._name

    def _complete(self) -> None:
        self.flush()
        # the sink clears LOG_EVENT_BINLOG_IN_USE_F in place (format.md §3) and renames
        final = self.sink.finish()
        self._active = False
        self.files.append(final)
        if self.write_index:
            self._write_index()

    def _check_index(self) -> None:
        """A new file set never replaces another one's ``<basename>.index`` unless
        ``overwrite`` (checked before the first file is opened, so nothing is written)."""
        index = self.directory / (self.basename + ".index")
        first = self.directory / f"{self.basename}.{self._next_index:06d}"
        if not self.overwrite and os.path.lexists(index) and not os.path.lexists(first):  # else the sink names it
            raise OutputExistsError(f"{index} exists", file=str(index))

    def _write_index(self) -> None:
        tmp = self.directory / (self.basename + ".index" + TMP_SUFFIX)
        try:
            tmp.write_text("".join(f"./{p.name}\n" for p in self.files))
            os.replace(tmp, self.directory / (self.basename + ".index"))
        except OSError as exc:
            try:
                tmp.unlink()
            except OSError:
                pass
            raise OutputError(f"cannot write {tmp}: {exc.strerror or exc}", file=str(tmp)) from None

    def flush(self) -> None:
        """Encode the staged groups into one buffer and write it (see :meth:`write_group`)."""
        b = self._pending
        if b is None:
            return
        self._pending = None
        if len(b) and not self.sizes_only:
            self.sink.write(b.finish().encode(0, len(b), self._pending_at))

    def maybe_rotate(self) -> bool:
        """Rotate once the file reached ``max_binlog_size`` — unless ``hold_rotation`` (the
        next transaction continues a MariaDB group commit: the server rotates after the whole
        group, sql/log.cc ``trx_group_commit_leader`` calling ``rotate()`` once the queue is
        written), which this clears."""
        if self.hold_rotation:
            self.hold_rotation = False
            return False
        if (self._active or self._resume) and self._offset >= self.max_binlog_size:
            self.rotate()
            return True
        return False

    def rotate(self) -> None:
        """Close the current file with a ROTATE naming the next one and open that one."""
        self.open()
        nxt = f"{self.basename}.{self._next_index:06d}"
        self._finish(RotateEvent(server_id=self.server_id, position=4, next_file=nxt))
        self._open()

    def close(self) -> list[Path]:
        """End the last file with STOP (unless ``stop_event=False``) and close it."""
        if self.closed:
            return self.files
        self.open()
        if self.stop_event:
            self._finish(StopEvent(server_id=self.server_id))
        else:
            self._complete()
        self.closed = True
        return self.files

    def abort(self) -> None:
        """Drop the file being written (nothing half-written stays under a final name)."""
        self._pending = None
        if self._active:
            self.sink.abort()
            self._active = False
        self.closed = True
