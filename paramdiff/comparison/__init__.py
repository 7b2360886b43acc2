"""The pipeline's compare stage: sources side by side, each name's row with its status and
category (compare.py), the categories (classify.py), and the names ArduPilot renamed,
paired (renames.py)."""
