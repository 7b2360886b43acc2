"""The CI gates: ``check`` (rules.py: every rule a small function, each finding with the
command that fixes it; fidelity.py: its actuator rule) and ``review`` (review.py: what a pull
request changes, for the person approving it). Both call the jobs (``paramdiff.jobs``)."""
