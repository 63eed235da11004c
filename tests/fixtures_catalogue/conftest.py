"""The real-MariaDB fixtures of tests/conformance, for the catalogue's conformance tests."""

from tests.conformance.conftest import mariadb_server_factory, mariadb_template  # noqa: F401
