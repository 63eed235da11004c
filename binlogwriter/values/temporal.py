"""Compatibility re-exports: the temporal codecs live in their families (values/date.py,
time.py, datetime.py, timestamp.py), their shared helpers in values/_temporal.py."""

from binlogwriter.values._temporal import (
    _EPOCH,
    TIME_MAX_US,
    date_value,
    datetime_from_packed,
    datetime_packed,
    datetime_value,
    temporal_text,
    time_from_packed,
    time_packed,
)
from binlogwriter.values.date import DateCodec
from binlogwriter.values.datetime import DateTime2Codec, OldDateTimeCodec
from binlogwriter.values.time import OldTimeCodec, Time2Codec
from binlogwriter.values.timestamp import OldTimestampCodec, Timestamp2Codec

__all__ = [
    "DateCodec",
    "Time2Codec",
    "DateTime2Codec",
    "Timestamp2Codec",
    "OldTimeCodec",
    "OldDateTimeCodec",
    "OldTimestampCodec",
    "temporal_text",
    "datetime_packed",
    "datetime_from_packed",
    "time_packed",
    "time_from_packed",
    "date_value",
    "datetime_value",
    "TIME_MAX_US",
    "_EPOCH",
]
