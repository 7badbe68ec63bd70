"""``python -m fmha``: the fmha command (fmha.cli)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
