"""The pipeline's overlay: the overlay file — its select rules, its deltas (each with the
value it replaces and a reason), its acknowledged findings — read with line numbers and
checked against the base (file.py); derive applies it."""
