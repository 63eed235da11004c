"""``python -m tests.fuzz``: see :mod:`tests.fuzz.runner` and docs/fuzzing.md."""

import sys

from tests.fuzz.runner import main

sys.exit(main())
