"""`paramdiff review`: what a branch changes, as values (changes.py), the two snapshots of the
project it compares (branch.py) and the pull-request comment (comment.py)."""
