"""Freed memory given back to the operating system between the phases of a run.

A run's phases (the transactions, the merge of ``truth/changes``, ``truth/final``) free
most of what the one before held, but the allocators keep it: glibc's malloc keeps freed
chunks in its heap (fragmented by the change-truth thread's buffers) and pyarrow's memory
pool (mimalloc / jemalloc) keeps freed pages for reuse. The resident set then adds the
phases up instead of holding the largest one. :func:`release_memory` hands both back
(``malloc_trim``, ``MemoryPool.release_unused``); it changes no output, only the peak
resident set (issue #28: under 1 GB for a 10 GB custom-DDL run).
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from functools import cache

__all__ = ["release_memory"]


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (musl, macOS)."""
    name = ctypes.util.find_library("c")
    try:
        fn = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    fn.argtypes = [ctypes.c_size_t]
    fn.restype = ctypes.c_int
    return fn


def release_memory() -> None:
    """Return the free memory of the C heap and of pyarrow's pool to the operating system
    (a phase of the run ended; see the module docstring)."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
