"""Is a consumer's value the truth's value? Value normalisation through column types, under
named consumer profiles (issue #31 §2; docs/testing.md "Consumer profiles").

The truth holds values in the canonical form of docs/output.md "Canonical row form" (ints,
floats, DECIMAL and temporal values as the server prints them, ``"0x…"`` hex for binary
strings, SET members in declaration order joined by ``,``, JSON as MySQL prints it). A CDC
consumer hands the same value in its own representation: bytes where we have text, a bit
string for BIT, epoch days for a DATE, a dict with bytes keys for JSON, … A **profile** is
a declared, explicit table of which of those representations (*forms*) are accepted for
whom: ``"exact"`` accepts only the canonical form and the Python values binlogwriter's own
reader decodes (what :func:`binlogwriter.values.families.family_of_type`'s
``truth_renderer`` takes); every other profile adds the forms its consumer is documented to
produce (see :data:`PROFILES`).

:func:`normalise` turns a value into canonical form; :func:`compare_value` says whether a
decoded value is the truth's value and, when not, why (:class:`ValueDiff`). Neither raises
on a value: what cannot be converted is a difference ``"cannot compare: <why>"``.
"""

from __future__ import annotations

from binlogwriter.compare._results import Uncomparable, ValueDiff, column_of, short
from binlogwriter.compare.profiles import FORMS, PROFILES, Profile, get_profile
from binlogwriter.compare.streams import StreamDiff, as_change, diff_streams
from binlogwriter.compare.values import compare_value, normalise

__all__ = ["Profile", "PROFILES", "FORMS", "ValueDiff", "Uncomparable", "get_profile", "column_of",
           "normalise", "compare_value", "short", "as_change", "diff_streams", "StreamDiff"]
