"""The derived file's provenance header: every locked input, and lines ArduPilot reads whole."""

from __future__ import annotations

from pathlib import Path

from paramdiff.config.lock import read_lock
from paramdiff.render.derived_file import LINE_MAX as HEADER_LINE_MAX
from paramdiff.render.derived_file import comment_lines as _comment

ROOT = Path(__file__).resolve().parent.parent


def test_long_header_text_is_wrapped_under_ardupilots_line_limit() -> None:
    text = "  overlay: " + "a/" * 60 + "x.yaml — reason " * 4
    lines = list(_comment(text))
    assert len(lines) > 1
    assert all(len(ln.encode()) <= HEADER_LINE_MAX for ln in lines)
    assert all(ln.startswith("#") for ln in lines)
    # nothing is lost: joined back, the text is the same apart from whitespace
    assert "".join("".join(ln[1:].split()) for ln in lines) == "".join(text.split())


def test_short_header_text_is_one_line() -> None:
    assert list(_comment("Regenerate: paramdiff derive")) == ["# Regenerate: paramdiff derive"]
    assert list(_comment("")) == ["#"]


def test_committed_headers_name_every_locked_input_within_the_limit() -> None:
    lock = read_lock(ROOT)
    assert lock is not None
    for derived, profile in [
        ("derived/blueboat_sitl.params", "blueboat"),
        ("derived/bluerov2_heavy_sitl.params", "bluerov2_heavy"),
    ]:
        text = (ROOT / derived).read_text()
        header = [ln for ln in text.splitlines() if ln.startswith("#") and "DELTA" not in ln]
        assert max(len(ln.encode()) for ln in header) <= HEADER_LINE_MAX, derived
        for (prof, pin, role), entry in lock.entries.items():
            if prof != profile or pin != "4.7":
                continue
            assert f"#   {role} (" in text, (derived, role)
            assert f"commit {entry.commit}" in text and f"sha256 {entry.sha256}" in text
