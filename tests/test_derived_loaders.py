"""The derived file means the same to every real loader, whatever an overlay reason says.

Issue #10: a reason long enough to push ``SERVO1_TRIM 1510`` to byte 99 of its comment line
made ArduPilot's defaults reader (98 bytes per read) run 1510 while paramdiff said 1500.
``derive`` now wraps every comment at 98 bytes and reads its output back with all six
loaders; ``check`` reads the committed file the same way, so a hand edit is caught too.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from helpers import ROOT, location_args, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from paramdiff.derive.derived import Derived, Line
from paramdiff.model.source import Source
from paramdiff.model.values import float32
from paramdiff.overlay.file import Delta, Overlay
from paramdiff.parse.loaders import LOADERS, ardupilot_defaults, disagreements
from paramdiff.parse.param_text import parse_params
from paramdiff.render.derived_file import LINE_MAX, comment_lines, read_provenance, render
from paramdiff.render.sinks import join_lines

AP = "ArduPilot defaults reader (sim_vehicle.py --add-param-file)"


@pytest.fixture
def fetched(project: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    loc = location_args(project, tmp_path / "c", tmp_path / "mirror")
    assert run_cli(["fetch", *loc]).exit_code == 0
    return project, loc


def invoke(*args: str) -> object:
    return run_cli(list(args))


def at_byte_99(prefix: str, payload: str = "SERVO1_TRIM 1510") -> str:
    """Text that, written after ``prefix`` on one line, puts ``payload`` at byte 99."""
    return "x" * (97 - len(prefix.encode())) + " " + payload


def derived_with_reason(reason: str) -> Derived:
    hw = parse_params(b"SERVO1_MAX 1900\nSERVO1_TRIM 1510\n", "boats/hw.params")
    base = Source("hardware", hw, path="boats/hw.params", repo="acme/params", commit="c" * 40)
    delta = Delta("SERVO1_TRIM", 1500.0, 1510.0, reason, None, 12)
    overlay = Overlay("overlays/boat.yaml", "0" * 64, "hardware", (), (), (), (delta,))
    lines = [
        Line("SERVO1_MAX", 1900.0, "outputs", hw.params["SERVO1_MAX"]),
        Line("SERVO1_TRIM", 1500.0, "outputs", hw.params["SERVO1_TRIM"], delta),
    ]
    return Derived("boat", "1.0", overlay, base, [base], lines, target="derived/boat.params")


def assert_every_loader_agrees(text: str) -> None:
    lines = text.splitlines()
    assert all(len(line.encode()) <= LINE_MAX for line in lines)
    expected = {
        "SERVO1_MAX": (1900.0, lines.index("SERVO1_MAX 1900") + 1),
        "SERVO1_TRIM": (1500.0, lines.index("SERVO1_TRIM 1500") + 1),
    }
    for name, load in LOADERS.items():
        assert disagreements(expected, load(text.encode())) == [], name


def test_the_crafted_reason_from_the_issue_is_wrapped_before_byte_99() -> None:
    prefix = "# DELTA overlay:12: shipped 1510 (hw.params:12) — "
    reason = at_byte_99(prefix)
    assert (prefix + reason).encode().index(b"SERVO1_TRIM 1510") == 98  # byte 99, 1-based
    text = join_lines(render(derived_with_reason(reason)))
    assert_every_loader_agrees(text)
    assert ardupilot_defaults(text.encode()).values["SERVO1_TRIM"].value == 1500.0
    assert "#   SERVO1_TRIM 1510\nSERVO1_TRIM 1500\n" in text
    assert read_provenance(text.splitlines()) == {
        "SERVO1_MAX": "hardware:1",
        "SERVO1_TRIM": "overlay:12",
    }


# 150 (was 300): the test command's time budget (#20 item 7); every run draws new examples
@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        st.text(),
        st.text(alphabet="SERVO1_TRIM 1510#,=\t\r\n\x0b\x0c\x85\u2028\x00x—é", max_size=400),
        st.lists(st.sampled_from(["x" * 97, "SERVO1_TRIM 1510", "\n", "—" * 40, " "])).map("".join),
    )
)
def test_no_reason_can_make_a_loader_see_another_value(reason: str) -> None:
    assert_every_loader_agrees(join_lines(render(derived_with_reason(reason))))


def test_comment_lines_cut_long_words_between_characters_only() -> None:
    word = "é" * 60 + "—" * 40  # 120 + 120 bytes, no space to wrap at
    lines = list(comment_lines(f"why: {word}\nSERVO1_TRIM 1510\tend"))
    assert all(len(ln.encode()) <= LINE_MAX and ln.startswith("#") for ln in lines)
    assert lines[0] == "# why:"
    assert "".join(ln.removeprefix("#   ") for ln in lines[1:-1]) == word
    assert lines[-1] == "# SERVO1_TRIM 1510 end"


def test_check_fails_on_a_hand_edited_comment_whose_tail_is_a_parameter(
    fetched: tuple[Path, list[str]],
) -> None:
    root, loc = fetched
    invoke("derive", *loc)
    invoke("report", *loc)
    out = invoke("check", "-v", *loc)
    assert out.exit_code == 0, out.output
    assert "the same 15 values in all 6 real loaders" in out.output
    derived = root / "derived/boat_sitl.params"
    lines = derived.read_text().splitlines()
    lines.insert(2, "# note: " + at_byte_99("# note: "))
    derived.write_text("\n".join(lines) + "\n")
    out = invoke("check", "-v", *loc)
    assert out.exit_code == 1
    # Before the real SERVO1_TRIM line: ArduPilot sets 1510 first, then 1500 — which one a
    # vehicle runs depends on when its object reads the defaults, so it is a finding too.
    assert f"derived/boat_sitl.params:3: {AP} loads SERVO1_TRIM = 1510 (the part from " not in (
        out.output
    )
    at = lines.index("SERVO1_TRIM 1500") + 1
    assert (
        f"boat 1.0: derived/boat_sitl.params:{at}: {AP}: SERVO1_TRIM is set again (1510 at line "
        "3, 1500 here)"
    ) in out.output
    # After it, the tail wins outright.
    lines.pop(2)
    lines.append("# note: " + at_byte_99("# note: "))
    derived.write_text("\n".join(lines) + "\n")
    out = invoke("check", "-v", *loc)
    assert out.exit_code == 1
    assert (
        f"boat 1.0: derived/boat_sitl.params:{len(lines)}: {AP} loads SERVO1_TRIM = 1510 (the part "
        f"from byte 99), paramdiff reports 1500 (line {at - 1})"
    ) in out.output
    assert f"derived/boat_sitl.params:{len(lines)}: 114 bytes; ArduPilot's defaults reader" in (
        out.output
    )


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "derived").glob("*.params")))
def test_the_committed_derived_files_mean_the_same_to_all_six_and_to_real_pymavlink(
    name: str, tmp_path: Path
) -> None:
    from pymavlink import mavparm

    path = ROOT / "derived" / name
    data = path.read_bytes()
    assert max(len(line) for line in data.split(b"\n")) <= LINE_MAX
    reported = parse_params(data, name, "params").params
    expected = {n: (p.value, p.line) for n, p in reported.items()}
    for loader, load in LOADERS.items():
        assert disagreements(expected, load(data)) == [], loader
    real = mavparm.MAVParmDict()
    with contextlib.redirect_stdout(io.StringIO()):
        assert real.load(str(path))
    assert {k: float32(v) for k, v in real.items()} == {
        n: float32(p.value) for n, p in reported.items()
    }
    # Every value is traced to its source line by the comments above it.
    assert set(read_provenance(data.decode().splitlines())) == set(reported)


def test_derive_and_check_with_the_crafted_reason_in_the_overlay(
    fetched: tuple[Path, list[str]],
) -> None:
    root, loc = fetched
    overlay = root / "overlays/boat.yaml"
    prefix = "# DELTA overlay:12: shipped 1510 (hw.params:12) — "
    text = overlay.read_text()
    reason = "reason: one unit's neutral; the model is neutral at 1500"
    assert reason in text
    overlay.write_text(text.replace(reason, f"reason: {at_byte_99(prefix)}"))
    assert invoke("derive", *loc).exit_code == 0
    assert invoke("report", *loc).exit_code == 0
    out = invoke("check", "-v", *loc)
    assert out.exit_code == 0, out.output
    data = (root / "derived/boat_sitl.params").read_bytes()
    assert max(len(line) for line in data.split(b"\n")) <= LINE_MAX
    assert ardupilot_defaults(data).values["SERVO1_TRIM"].value == 1500.0
    assert b"\n#   SERVO1_TRIM 1510\nSERVO1_TRIM 1500\n" in data


def test_join_lines_ends_every_line_with_a_newline() -> None:
    for lines in ([], [""], ["a"], ["a", "b"], ["", ""], ["a\n", "b"]):
        want = "".join(line + "\n" for line in lines)
        assert join_lines(lines) == want and join_lines(iter(lines)) == want, lines
