"""`python -m carcassonne_env.cli ...`: the `carcassonne` command."""

import sys

from . import main

if __name__ == "__main__":  # not when a tool walks the package and imports this module
    sys.exit(main())
