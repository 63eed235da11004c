"""Compatibility re-exports: the numeric codecs live in their families (values/integer.py,
floating.py, bit.py, year.py; the NULL type in values/_null.py)."""

from binlogwriter.values._null import NullCodec
from binlogwriter.values.bit import BitCodec
from binlogwriter.values.floating import FloatCodec
from binlogwriter.values.integer import IntCodec
from binlogwriter.values.year import YearCodec

__all__ = ["IntCodec", "FloatCodec", "BitCodec", "YearCodec", "NullCodec"]
