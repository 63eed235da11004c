"""The codec's and the generator's type-family registries name the same families and the same
SQL types (docs/adding-a-type.md: a column type is one codec module + one generator module + a
registry line on each side)."""

from __future__ import annotations

from binlogwriter.schema.types import KNOWN_TYPES
from binlogwriter.values import families as codec_families
from generators import columns as generator_families


def _types(registry) -> dict[str, set[str]]:
    return {name: set(mod.SQL_TYPES) for name, mod in registry.FAMILIES.items()}


def test_both_sides_have_the_same_families() -> None:
    assert set(codec_families.FAMILIES) == set(generator_families.FAMILIES)


def test_both_sides_put_each_type_in_the_same_family() -> None:
    assert _types(codec_families) == _types(generator_families)


def test_every_known_type_has_a_generator_and_a_codec() -> None:
    for t in sorted(KNOWN_TYPES):
        fam = codec_families.family_of_type(t)
        assert fam is not None, t
        assert t in generator_families.FAMILIES[fam.FAMILY].SQL_TYPES, t
