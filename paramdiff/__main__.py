"""`python -m paramdiff`: the command line."""

from .cli import main

main()
