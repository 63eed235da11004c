"""Compatibility re-exports: the string-like codecs live in their families (values/char.py,
enum_set.py, blob.py, geometry.py), their shared helpers in values/_strings.py."""

from binlogwriter.values._strings import (
    STRING_META,
    char_pad,
    column_collation,
    parse_string_meta,
    plain_string_layout,
    string_real_type,
)
from binlogwriter.values.blob import BlobCodec, VectorCodec
from binlogwriter.values.char import StringCodec, VarcharCodec, encode_ascii_many
from binlogwriter.values.enum_set import EnumCodec, SetCodec
from binlogwriter.values.geometry import GeometryCodec

__all__ = ["StringCodec", "EnumCodec", "SetCodec", "VarcharCodec", "BlobCodec", "GeometryCodec", "VectorCodec",
           "parse_string_meta", "string_real_type", "column_collation", "plain_string_layout", "char_pad",
           "encode_ascii_many", "STRING_META"]
