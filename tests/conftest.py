"""Project-wide test fixtures and Hypothesis profiles.

Profiles (pick with HYPOTHESIS_PROFILE, default "ci"):
- ci:       deterministic (derandomize) so a red CI run reproduces; no deadline (shared CI
            machines are slow and jittery); 200 examples.
- dev:      random, 50 examples, for a quick local loop.
- thorough: random, 2,000 examples, for a long hunt before a release.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT / "tests" / "data"

settings.register_profile("ci", deadline=None, max_examples=200, derandomize=True, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=50)
settings.register_profile("thorough", deadline=None, max_examples=2000,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository root (the directory holding pyproject.toml)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """tests/data: bytes and tool output captured from real servers (see its README.md)."""
    return DATA_DIR
