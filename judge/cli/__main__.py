"""`python -m judge.cli`: the `judge` console script."""

import sys

from judge.cli import main

sys.exit(main())
