"""`python -m paramdiff`: the command line."""

import sys

from paramdiff.cli import main

sys.exit(main(prog="python -m paramdiff"))  # the name usage lines show, as `paramdiff` is
