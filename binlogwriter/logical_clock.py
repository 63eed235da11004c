"""MySQL's logical clock in a GTID event (format.md §8): ``last_committed`` from a
transaction's *dependency distance*.

A writer numbers the groups of a file ``sequence_number`` 1, 2, … (restarting in each file).
What it writes as ``last_committed`` is, per group, a function of that number and of
``back``: how many groups before this one the latest group it depends on is (the caller's
knowledge — generators/writeset.py computes it the way the server's WRITESET dependency
tracker does):

* ``back == 1``: the previous group (COMMIT_ORDER; a barrier such as DDL, a table without
  a primary key): ``last_committed = sequence_number - 1`` — what every writer wrote before
  dependency tracking existed here, and the default;
* ``back > 1``: ``last_committed = max(1, sequence_number - back)``, at most
  ``sequence_number - 1``: a dependency in an earlier file is lost, and after the rotation
  that opened the file the server's writeset history starts at 1
  (``Transaction_dependency_tracker::rotate`` sets ``m_writeset.rotate(1)``, called by
  ``open_binlog`` for every file), so an independent transaction's parent is 1, except the
  file's first (``min(1, commit-order parent 0)``);
* ``back == 0``: no dependency at all: as a dependency before the file.
"""

from __future__ import annotations

import numpy as np

__all__ = ["last_committed", "last_committed_array"]


def last_committed(seq: int, back: int) -> int:
    """``last_committed`` of the group numbered ``seq`` in its file whose dependency is
    ``back`` groups before it (module docstring)."""
    if back == 1:
        return seq - 1
    dep = seq - back if back > 0 else 0
    return min(seq - 1, max(1, dep))


def last_committed_array(seq: np.ndarray, back: np.ndarray | None) -> np.ndarray:
    """:func:`last_committed` elementwise (int64); ``back`` None: all 1."""
    seq = np.asarray(seq, dtype=np.int64)
    if back is None:
        return seq - 1
    back = np.asarray(back, dtype=np.int64)
    dep = np.where(back > 0, seq - back, 0)
    return np.minimum(seq - 1, np.maximum(1, dep))
