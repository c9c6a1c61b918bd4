"""Judge your solution to a handbook exercise: python practice/judge.py 100 [PATH] [--json] [--public] [--lang en]."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # works from a plain clone too

from judge.cli import practice_main

if __name__ == "__main__":
    sys.exit(practice_main())
