"""Vectorised encoders of the temporal families (arrays of microseconds / days; the same
bytes as the scalar encoders of values/date.py, time.py, datetime.py, timestamp.py;
values.md §4)."""

from __future__ import annotations

import numpy as np

from binlogwriter.values._common import Fixed, be_bytes
from binlogwriter.values._temporal import POW, TIME_MAX_US
from binlogwriter.values.temporal_layout import (
    DATETIME2_BIAS,
    DATETIME2_INT_BYTES,
    FRACTIONS,
    TIME2_BIAS,
    TIME2_INT_BYTES,
    TIMESTAMP2_SECONDS,
    TS_MAX,
    datetime_int,
    time_hms,
)

_US = 1_000_000


def _ymd_arrays(days: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(year, month, day) of days since 1970-01-01 (proleptic Gregorian, as ``datetime``)."""
    d = days.astype("M8[D]")
    m = d.astype("M8[M]")
    y = d.astype("M8[Y]")
    return (y.astype(np.int64) + 1970, (m - y.astype("M8[M]")).astype(np.int64) + 1,
            (d - m.astype("M8[D]")).astype(np.int64) + 1)


def _years_ok(days: np.ndarray) -> bool:
    """Every day in 0001-01-01 .. 9999-12-31 (what ``datetime.date`` holds)."""
    return bool(len(days)) and int(days.min()) >= -719162 and int(days.max()) <= 2932896


def _fsp_ok(frac: np.ndarray, fsp: int) -> bool:
    return fsp == 6 or not (frac % POW[6 - fsp]).any()


def _frac_array(frac: np.ndarray, fsp: int) -> list:
    """:func:`frac_encode` elementwise: the fraction bytes of ``fsp`` (values/temporal_layout.py
    FRACTIONS)."""
    f = FRACTIONS[fsp]
    if f.size == 0:
        return []
    return [be_bytes(frac // f.unit if f.unit != 1 else frac, f.size)]


def _fixed(parts: list) -> list:
    return [Fixed(parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1))]


def date_array(kind: str, data: np.ndarray) -> list | None:
    """DATE of days since the epoch: 3 bytes LE ``day | month << 5 | year << 9``."""
    if kind != "date" or not _years_ok(data):
        return None
    y, m, d = _ymd_arrays(data)
    v = d | (m << 5) | (y << 9)
    return [Fixed(v.astype("<u4").view(np.uint8).reshape(-1, 4)[:, :3])]


def datetime2_array(fsp: int):
    def enc(kind: str, data: np.ndarray, meta) -> list | None:
        if kind != "dt":
            return None
        secs = data // _US
        frac = data - secs * _US
        days = secs // 86400
        if not _years_ok(days) or not _fsp_ok(frac, fsp):
            return None
        sod = secs - days * 86400
        y, m, d = _ymd_arrays(days)
        ip = datetime_int(y, m, d, sod // 3600, sod // 60 % 60, sod % 60)
        return _fixed([be_bytes(ip + DATETIME2_BIAS, DATETIME2_INT_BYTES), *_frac_array(frac, fsp)])
    return enc


def timestamp2_array(fsp: int):
    def enc(kind: str, data: np.ndarray, meta) -> list | None:
        if kind != "ts" or not len(data):
            return None
        if int(data.min()) < _US or int(data.max()) > TS_MAX * _US + 999_999:
            return None
        secs = data // _US
        frac = data - secs * _US
        if not _fsp_ok(frac, fsp):
            return None
        return _fixed([be_bytes(secs, TIMESTAMP2_SECONDS), *_frac_array(frac, fsp)])
    return enc


def time2_array(fsp: int):
    def enc(kind: str, data: np.ndarray, meta) -> list | None:
        if kind != "time" or not len(data):
            return None
        a = np.abs(data)
        if int(a.max()) > TIME_MAX_US:
            return None
        secs = a // _US
        frac = a - secs * _US
        if not _fsp_ok(frac, fsp):
            return None
        nr = (time_hms(secs) << 24) + frac
        neg = data < 0
        nr = np.where(neg, -nr, nr)  # time_packed
        if fsp >= 5:
            return [Fixed(be_bytes(nr + (TIME2_BIAS << 24), 6))]
        ip = be_bytes((nr >> 24) + TIME2_BIAS, TIME2_INT_BYTES)
        if fsp == 0:
            return [Fixed(ip)]
        fr = np.where(neg, -((-nr) & 0xFFFFFF), nr & 0xFFFFFF)  # C remainder: sign of nr
        f = FRACTIONS[fsp]
        q = np.where(fr < 0, -((-fr) // f.unit), fr // f.unit)  # C division: toward zero
        return _fixed([ip, be_bytes(q, f.size)])
    return enc
