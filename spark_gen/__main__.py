"""``python -m spark_gen --out DIR [options of binlogwriter generate]`` (local[*] by default)."""

from spark_gen.job import main

main()
