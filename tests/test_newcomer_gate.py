""".ci/run does what a newcomer does: README line 1, then README line 2, nothing in between
(issue #27: an `npm install` there hid that line 2 failed from a fresh clone)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _between_the_readme_lines() -> list[str]:
    text = (REPO / ".ci" / "run").read_text()
    start = text.index('bash -euo pipefail -c "$install_command"')
    end = text.index('bash -euo pipefail -c "$test_command"')
    lines = [ln.strip() for ln in text[start:end].splitlines()[1:]]
    return [ln for ln in lines if ln and not ln.startswith("#")]


def test_ci_runs_nothing_between_readme_line_1_and_line_2() -> None:
    # only bookkeeping: the exit status of line 1 and the message announcing line 2
    allowed = re.compile(r'^(\[ "\$status" -eq 0 \] \|\| die .*|say "README line 2: .*"|status=0)$')
    extra = [ln for ln in _between_the_readme_lines() if not allowed.match(ln)]
    assert extra == []


def test_readme_first_block_is_the_two_newcomer_lines() -> None:
    readme = (REPO / "README.md").read_text()
    block = re.search(r"^```[^\n]*\n(.*?)^```", readme, re.S | re.M)
    assert block is not None
    lines = block.group(1).splitlines()
    assert lines[0].startswith("pip install -e '.[all]'") and "binlogwriter generate" in lines[0]
    assert lines[1] == "python -m pytest -q -p no:cacheprovider"
