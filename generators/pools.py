"""Pools of realistic strings, built once per process from Faker (the way dbldatagen does it).

Faker is never called per row and never seeded globally: each pool is made by its own
``Faker`` instance seeded with a fixed number derived from the pool's name, so a pool's
content depends only on the pool name and the installed Faker version (recorded in the
manifest). Values are then *sampled* from pools by a hash of (seed, table, column, key,
version) — see values.py.
"""

from __future__ import annotations

from functools import cache

from generators.hashing import salt

__all__ = ["pool", "POOL_NAMES", "POOL_SIZE", "faker_version"]

POOL_SIZE = 1024

_PROVIDERS = {
    "first_name": lambda f: f.first_name(),
    "last_name": lambda f: f.last_name(),
    "name": lambda f: f.name(),
    "user_name": lambda f: f.user_name(),
    "email_domain": lambda f: f.free_email_domain(),
    "domain": lambda f: f.domain_name(),
    "city": lambda f: f.city(),
    "country": lambda f: f.country(),
    "country_code": lambda f: f.country_code(),
    "state": lambda f: f.state(),
    "postcode": lambda f: f.postcode(),
    "street_address": lambda f: f.street_address(),
    "address": lambda f: f.address().replace("\n", ", "),
    "phone": lambda f: f.phone_number(),
    "company": lambda f: f.company(),
    "job": lambda f: f.job(),
    "url": lambda f: f.url(),
    "ipv4": lambda f: f.ipv4(),
    "word": lambda f: f.word(),
    "color": lambda f: f.color_name(),
    "sentence": lambda f: f.sentence(nb_words=10),
    "paragraph": lambda f: f.paragraph(nb_sentences=5),
    "catch_phrase": lambda f: f.catch_phrase(),
    "currency_code": lambda f: f.currency_code(),
    "user_agent": lambda f: f.user_agent(),
}
POOL_NAMES = tuple(sorted(_PROVIDERS))


def faker_version() -> str:
    try:
        from importlib.metadata import version

        return version("Faker")
    except Exception:  # noqa: BLE001 - only informational
        return "unknown"


@cache
def pool(name: str) -> tuple[str, ...]:
    """The pool ``name`` (one of POOL_NAMES): POOL_SIZE strings, deterministic."""
    if name not in _PROVIDERS:
        raise KeyError(name)
    from faker import Faker

    fk = Faker("en_US")
    fk.seed_instance(salt("pool", name) & 0x7FFFFFFF)
    make = _PROVIDERS[name]
    return tuple(make(fk) for _ in range(POOL_SIZE))
