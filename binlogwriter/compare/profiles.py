"""Consumer profiles: which representations (forms) of a value each consumer is documented to produce (docs/testing.md "Consumer profiles")."""

from __future__ import annotations

from dataclasses import dataclass

# ------------------------------------------------------------------------------------
# profiles
# ------------------------------------------------------------------------------------

FORMS: dict[str, str] = {
    "bool_int": "an integer or BIT(1) column given as a bool",
    "int_text": "an integer (or BIT, SET mask) given as decimal text or Decimal",
    "int_float": "an integer given as a float (a JavaScript number): exact below 2^53, else by tolerance",
    "unsigned_as_signed": "an UNSIGNED integer or BIT(64) given as its two's-complement signed value",
    "year_1900": "YEAR 0000 given as 1900 (the decoder adds 1900 to the stored byte)",
    "bit_string": "BIT as text of '0'/'1', most significant first",
    "bit_bytes": "BIT as big-endian bytes",
    "bit_bytes_le": "BIT as little-endian bytes (Debezium's io.debezium.data.Bits)",
    "bit_bool": "BIT(1) as a bool",
    "decimal_text": "DECIMAL as text (any number of fraction digits)",
    "decimal_float": "DECIMAL as a float, compared by relative tolerance 1e-12",
    "float_int": "FLOAT/DOUBLE given as an int (a JSON number without a fraction)",
    "date_text": "DATE as text YYYY-MM-DD (ISO time part 00:00 allowed)",
    "date_epoch_days": "DATE as days since 1970-01-01",
    "date_as_datetime": "DATE as a datetime at midnight",
    "time_text": "TIME as text [-]H:MM:SS[.f]",
    "time_micros": "TIME as microseconds",
    "time_object": "TIME as datetime.time",
    "datetime_text": "DATETIME as text, ' ' or 'T' separated, optional 'Z'",
    "datetime_epoch": "DATETIME as epoch milliseconds (fsp <= 3) or microseconds (fsp > 3), wall clock as UTC",
    "datetime_aware": "DATETIME as an aware datetime (its wall clock in UTC)",
    "timestamp_naive_utc": "TIMESTAMP as a naive datetime holding UTC",
    "timestamp_text": "TIMESTAMP as text: server form in UTC or ISO-8601 with 'Z' / an offset",
    "timestamp_epoch": "TIMESTAMP as epoch seconds (int, float, Decimal or numeric text)",
    "timestamp_epoch_millis": "TIMESTAMP as epoch milliseconds",
    "zero_date_null": "a zero DATE/DATETIME/TIMESTAMP (or one with zero parts) given as None",
    "text_bytes": "a character column given as bytes in its charset",
    "text_surrogateescape": "a character column given as its bytes decoded as UTF-8 with surrogateescape",
    "binary_text": "a binary column given as str (its bytes as UTF-8 with surrogateescape)",
    "binary_hex": "a binary column as hex text without 0x",
    "binary_base64": "a binary column as base64 text",
    "enum_index": "ENUM as its 1-based index (0: the invalid-value '')",
    "set_text": "SET as comma-separated text, members in any order",
    "set_mask": "SET as its bitmask",
    "empty_set_null": "the empty SET given as None",
    "json_text": "JSON as text (str or bytes), compared as a document",
    "json_bytes": "JSON parsed with bytes keys / bytes strings, compared as a document",
    "json_parsed": "JSON parsed into dict/list/str/number/bool/None, compared as a document",
    "json_binary": "MySQL JSON as its binary form (bytes), decoded with binlogwriter's decoder",
    "geometry_no_srid": "GEOMETRY as WKB without the 4-byte SRID prefix (the SRID is not compared)",
    "geometry_struct": "GEOMETRY as {'wkb': bytes or base64, 'srid': int}",
}
"""Every form a profile may accept, with what it means (the table docs/testing.md lists)."""


@dataclass(frozen=True)
class Profile:
    """A consumer profile: ``forms`` (names from :data:`FORMS`) the consumer is documented to
    produce, on top of the canonical form and binlogwriter's own Python values."""

    name: str
    forms: frozenset[str]
    about: str

    def __post_init__(self) -> None:
        unknown = sorted(self.forms - FORMS.keys())
        if unknown:
            raise ValueError(f"profile {self.name!r}: unknown forms {unknown}")


def _p(name: str, about: str, *forms: str) -> Profile:
    return Profile(name, frozenset(forms), about)


PROFILES: dict[str, Profile] = {p.name: p for p in (
    _p("exact", "canonical form, or the Python values binlogwriter's reader decodes; nothing else"),
    _p("python-mysql-replication",
       "pymysqlreplication 1.0: BIT as '0'/'1' text, naive UTC TIMESTAMP (zero -> 1970-01-01), zero "
       "DATE/DATETIME and the empty SET as None, YEAR 0000 as 1900, JSON with bytes keys and strings, "
       "SET as a set, an empty binary value as ''",
       "year_1900", "bit_string", "timestamp_naive_utc", "zero_date_null", "empty_set_null",
       "json_bytes", "json_parsed", "json_text", "binary_text"),
    _p("debezium",
       "Debezium MySQL connector (JSON converter): DATE as epoch days or ISO text, TIME as µs, DATETIME "
       "as epoch ms/µs or ISO text, TIMESTAMP as ISO-8601 with Z, DECIMAL as text or double, binary as "
       "base64/hex, BIT as bytes (little-endian) or bool, ENUM text, SET comma text, JSON text, "
       "GEOMETRY as {wkb, srid} (or its wkb alone), BIGINT UNSIGNED as long, a BOOLEAN (TINYINT(1)) "
       "column as a bool (a value other than 0/1 becomes true: still a difference), YEAR 0000 as 1900 "
       "(mysql-binlog-connector-java's deserializeYear, osheroff/mysql-binlog-connector-java#183)",
       "unsigned_as_signed", "int_text", "bool_int", "year_1900", "bit_bytes_le", "bit_bool",
       "decimal_text", "decimal_float",
       "float_int", "date_epoch_days", "date_text", "time_micros", "time_text", "datetime_epoch",
       "datetime_text", "timestamp_text", "zero_date_null", "binary_base64", "binary_hex", "set_text",
       "json_text", "geometry_struct", "geometry_no_srid"),
    _p("go-mysql",
       "go-mysql replication: DECIMAL as text or float64, temporal types as text, TEXT/BLOB as []byte, "
       "JSON as []byte text, ENUM/SET as index/mask unless names are known, BIT as int64, integers "
       "signed unless the metadata gives signedness",
       "unsigned_as_signed", "decimal_text", "decimal_float", "date_text", "time_text",
       "datetime_text", "timestamp_text", "text_bytes", "enum_index", "set_mask", "json_text",
       "json_parsed"),
    _p("zongji",
       "ZongJi (Node.js): JavaScript numbers (BIGINT beyond 2^53 as text), DECIMAL as text or "
       "number, BIT as a Buffer, temporal values as Date (aware, UTC) or date strings, YEAR 0000 as "
       "1900, ENUM text, SET comma text, JSON parsed or text",
       "int_float", "int_text", "year_1900", "bit_bytes", "decimal_text", "decimal_float", "float_int",
       "date_as_datetime", "date_text", "time_text", "datetime_aware", "datetime_text",
       "timestamp_text", "timestamp_epoch_millis", "zero_date_null", "set_text", "json_parsed",
       "json_text"),
    _p("mysql-event-stream",
       "mysql-event-stream 1.8 (CdcEngine): ENUM index, SET mask, BIGINT UNSIGNED/BIT/SET above "
       "INT64_MAX as decimal text, DECIMAL/DATE/TIME/DATETIME as server text, TIMESTAMP as epoch "
       "seconds text, character columns as UTF-8 with surrogateescape, MySQL JSON as binary bytes",
       "int_text", "enum_index", "set_mask", "decimal_text", "date_text", "time_text", "datetime_text",
       "timestamp_epoch", "text_surrogateescape", "binary_text", "json_binary", "json_text"),
)}
"""The named consumer profiles (docs/testing.md "Consumer profiles")."""


def get_profile(profile: str | Profile) -> Profile:
    """A profile by name (or itself); ValueError naming the known profiles."""
    if isinstance(profile, Profile):
        return profile
    try:
        return PROFILES[profile]
    except (KeyError, TypeError):
        raise ValueError(f"unknown consumer profile {profile!r}; known: {', '.join(PROFILES)}") from None


