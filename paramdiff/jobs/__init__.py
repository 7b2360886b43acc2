"""The jobs a command runs, each a function over a ``Pin`` (or a ``Project``): fetch, compare,
derive, report, layers, validate, history. ``check``, ``review`` and ``verify`` (the CI jobs,
one level up) call them; each command module in ``paramdiff/cli/`` calls one."""
