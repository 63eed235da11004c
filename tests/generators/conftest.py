from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogwriter.cli import main as cli_main


def tree_digest(root: Path) -> dict[str, str]:
    """sha256 of every file under root, by relative path."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def run_cli():
    def run(*args: str):
        return CliRunner().invoke(cli_main, ["generate", *args], catch_exceptions=False)
    return run
