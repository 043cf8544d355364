"""``python -m simulator``: the ``ratingsim`` command, without the script."""

import sys

from simulator.cli import main

if __name__ == "__main__":  # not when imported (pytest's doctest collection)
    sys.exit(main())
