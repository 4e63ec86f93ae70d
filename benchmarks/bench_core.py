"""Benchmark of the rules core; same as `carcassonne bench` (see its --help)."""

import sys

from carcassonne_env.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
