"""``python -m spark_gen --out DIR [options of binlogwriter generate]`` (local[*] by default);
``spark-submit spark_gen/job.py`` runs this too.

The command line is ``binlogwriter generate --engine spark``: this entry script imports
generators/cli.py, which dispatches to spark_gen.job; the library modules of spark_gen never
import the CLI (no cycle generators/cli.py <-> spark_gen/job.py).
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    """The options of ``binlogwriter generate``, engine spark."""
    from generators.cli import generate as cli

    args = list(sys.argv[1:] if argv is None else argv)
    cli.main(args=["--engine", "spark", *args], prog_name="spark_gen", standalone_mode=True)


if __name__ == "__main__":
    main()
