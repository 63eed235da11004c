"""The names serve/generated.py imports from here. The framing rule is
:mod:`binlogwriter.read.framing`'s (:func:`~binlogwriter.read.framing.frame_bounds`,
:func:`~binlogwriter.read.framing.iter_blocks`), which the file senders use."""

from binlogwriter.read.framing import MAX_EVENT_SIZE as MAX_EVENT_LENGTH
from binlogwriter.read.framing import length_error

__all__ = ["MAX_EVENT_LENGTH", "length_error"]
