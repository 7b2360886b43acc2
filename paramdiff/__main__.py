"""`python -m paramdiff`: the command line."""

from paramdiff.cli import console

console(prog="python -m paramdiff")  # the name usage lines show, as `paramdiff` is
