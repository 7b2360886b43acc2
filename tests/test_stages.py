"""Each stage on small values, without a project: compare statuses, classification, derive
and its rendering, the SITL layer stack, validation, the channel rules, report sections."""

from __future__ import annotations

from pathlib import Path

import pytest

from paramdiff.comparison.classify import Classifier
from paramdiff.comparison.side_by_side import DIFFERS, SAME, SET, Status, Verdict, compare
from paramdiff.comparison.sitl_layers import sitl_run, stack
from paramdiff.config.sources import Profile
from paramdiff.derive.derived import Target, build
from paramdiff.jobs.param_validation import ERROR, WARNING, validate
from paramdiff.model.categories import Category, GlobSet, ScriptParams, compile_globs
from paramdiff.model.metadata import parse_pdef
from paramdiff.model.params import Param, ParamFile
from paramdiff.model.source import Source
from paramdiff.overlay.file import parse_overlay
from paramdiff.parse.param_text import parse_params
from paramdiff.parse.sdf import read_channels
from paramdiff.render.derived_file import render as render_params
from paramdiff.render.report_inputs import ReportInputs
from paramdiff.render.report_markdown import render_report
from paramdiff.simulation.channels import channel_findings


def source(role: str, text: str, fmt: str = "params") -> Source:
    return Source(role=role, file=parse_params(text.encode(), f"{role}.params", fmt))


META = parse_pdef(
    b"""{"SERVO": {
      "SERVO1_FUNCTION": {"DisplayName": "Servo output function",
                          "Values": {"73": "ThrottleLeft", "74": "ThrottleRight"}},
      "SERVO1_MIN": {"Range": {"low": "500", "high": "2200"}},
      "SERVO1_TRIM": {"Range": {"low": "800", "high": "2200"}},
      "SERVO1_REVERSED": {"Values": {"0": "Normal", "1": "Reversed"}},
      "ARMING_CHECK": {"Bitmask": {"0": "All", "1": "Baro"}},
      "INS_ACC_ID": {"ReadOnly": "True"},
      "COMPASS_OFS_X": {"Calibration": "1"}}}""",
    "meta.json",
    "4.7",
)


# --------------------------------------------------------------------------- compare


def test_statuses_name_what_each_source_does() -> None:
    a = source("a", "X 1\nY 1\nZ 1\nW 1\n")
    b = source("b", "X 1\nY 2\nZ 1\n")
    c = source("c", "X 1\nY 1\nV 3\n")
    rows = compare([a, b, c]).rows
    assert rows["X"].status == SAME
    assert rows["Y"].status == DIFFERS
    assert str(rows["Z"].status) == "missing in c"
    assert rows["W"].status == Status(Verdict.ONLY_IN, ("a",))
    assert str(rows["V"].status) == "only in c"


def test_a_single_source_is_set_not_compared() -> None:
    # issue #10: `show FILE` labelled every row "not representable".
    status = compare([source("a", "X 1\n")]).rows["X"].status
    assert status == SET and str(status) == "set" and not status.disagrees


def test_values_compare_as_float32() -> None:
    rows = compare([source("a", "X 0.1\n"), source("b", "X 0.100000001\n")]).rows
    assert rows["X"].status == SAME


def test_statuses_sort_as_their_text() -> None:
    statuses = [SAME, Status(Verdict.ONLY_IN, ("b",)), DIFFERS, Status(Verdict.MISSING_IN, ("a",))]
    assert [str(s) for s in sorted(statuses)] == ["differs", "missing in a", "only in b", "same"]


# --------------------------------------------------------------------------- classify


def classifier() -> Classifier:
    return Classifier(
        categories=(
            Category(
                "calibration", "one unit", calibration_list=True, metadata_flags=("Calibration",)
            ),
            Category("script", "scripts", script_defined=True),
            Category("board", "board", params=("AHRS_*",)),
            Category("vehicle", "the rest"),
        ),
        calibration_names=frozenset({"DEVID"}),
        script_params=(ScriptParams("NL_*", "navlight.lua"),),
        metadata=(META,),
    )


@pytest.mark.parametrize(
    ("name", "category"),
    [
        ("COMPASS_OFS_X", "calibration"),  # metadata flag
        ("GPS_DEVID", "calibration"),  # a blacklist fragment inside a name
        ("NL_BLINKS", "script"),
        ("AHRS_ORIENTATION", "board"),
        ("SERVO1_MIN", "vehicle"),
        ("NOT_A_PARAM", "unknown"),  # not in the metadata: ArduPilot ignores it
    ],
)
def test_every_name_lands_in_one_category(name: str, category: str) -> None:
    assert classifier().classify(name)[0] == category


GLOBS = ("MODE1", "RC*_*", "SIM_*", "BATT*_PIN", "GPS?_TYPE", "X[AB]_*", "Y[", "*", "LOG_*")
NAMES = ["MODE1", "MODE12", "RC1_MIN", "RC_X", "RCMAP_X", "SIM_A", "SIM", "BATT2_PIN", "BATT_PIN"]
NAMES += ["GPS1_TYPE", "GPS_TYPE", "XA_1", "XC_1", "Y[", "LOG_X", "", "mode1", "SIM_\n"]


@pytest.mark.parametrize("count", range(len(GLOBS) + 1))
def test_a_glob_set_matches_what_the_compiled_globs_match(count: int) -> None:
    globs = GLOBS[:count] if count < len(GLOBS) else GLOBS[:7] + GLOBS[8:]
    pattern = compile_globs(globs)
    for name in NAMES:
        assert GlobSet(globs).match(name) == (pattern.match(name) is not None), (globs, name)


# --------------------------------------------------------------------------- derive


OVERLAY = b"""\
version: 1
base: hardware
select:
  exclude:
    - {category: calibration, reason: one unit}
sections:
  - {name: outputs, params: [SERVO*]}
deltas:
  - {param: SERVO1_TRIM, value: 1500, was: 1510, reason: the model is neutral at 1500}
"""
HARDWARE = "SERVO1_FUNCTION 74\nSERVO1_TRIM 1510\nSERVO1_MIN 1100\nCOMPASS_OFS_X 12\nWP_RADIUS 2\n"


def derived(frame_defaults: object = None) -> object:
    base = source("hardware", HARDWARE)
    overlay = parse_overlay(OVERLAY, "overlay.yaml")
    target = Target(profile="boat", pin="1.0", path="derived/boat.params", vehicle="Rover")
    return build(base, overlay, classifier(), META, frame_defaults, target)  # type: ignore[arg-type]


def test_derive_applies_the_overlay_and_keeps_where_each_value_came_from() -> None:
    d = derived()
    assert d.params() == {
        "SERVO1_FUNCTION": 74,
        "SERVO1_MIN": 1100,
        "SERVO1_TRIM": 1500,
        "WP_RADIUS": 2,
    }
    trim = next(ln for ln in d.lines if ln.name == "SERVO1_TRIM")
    assert trim.delta is not None and trim.shipped is not None and trim.shipped.line == 2
    assert [p.name for ps in d.excluded.values() for p in ps] == ["COMPASS_OFS_X"]
    assert [ln.section for ln in d.lines] == ["outputs", "outputs", "outputs", "other"]


def test_an_include_rule_keeps_what_an_exclude_rule_leaves_out_and_the_first_exclude_wins() -> None:
    overlay = parse_overlay(
        b"""\
version: 1
base: hardware
select:
  include:
    - {category: radio, reason: keep the radio}
    - {params: [BATT_CAPACITY, COMPASS_OFS*], reason: the real pack and one offset}
  exclude:
    - {params: [BATT_*, RC*_*], reason: board wiring}
    - {category: calibration, reason: one unit}
    - {params: [COMPASS_*], reason: no compass}
deltas: []
""",
        "overlay.yaml",
    )
    first, calibration, compass = overlay.exclude
    cases = [
        ("BATT_CAPACITY", "vehicle", None),  # an include glob beats the exclude glob
        ("BATT_MONITOR", "vehicle", first),
        ("RC1_MIN", "radio", None),  # an include category beats the exclude glob
        ("RC1_MIN", "vehicle", first),
        ("COMPASS_OFS_X", "calibration", None),
        ("COMPASS_DEV_ID", "calibration", calibration),  # the first matching rule names it
        ("COMPASS_ORIENT", "board", compass),
        ("WP_RADIUS", "vehicle", None),
    ]
    for name, category, rule in cases:
        assert overlay.excluded_by(name, category) is rule, name


def test_the_rendered_file_reads_back_to_the_same_values() -> None:
    d = derived()
    text = "\n".join(render_params(d)) + "\n"
    back = parse_params(text.encode(), "boat.params", "params")
    assert back.values() == d.params()
    assert (
        "# DELTA overlay:9: shipped 1510 (hardware.params:2) — the model is neutral at 1500\n"
        "SERVO1_TRIM 1500\n" in text
    )


# --------------------------------------------------------------------------- layers


def test_the_last_file_wins_and_unchosen_frame_defaults_are_flagged() -> None:
    frame = stack([source("rover", "WP_RADIUS 3\nCRUISE_SPEED 2\n")], "rover", ("rover",))
    d = derived(frame)
    derived_src = source("derived", "WP_RADIUS 2\n")
    hardware = source("hardware", "WP_RADIUS 2\nCRUISE_SPEED 5\n").file.params
    run = sitl_run(frame, derived_src, hardware, classifier(), frozenset())
    assert run.layers.effective["WP_RADIUS"].layer == "derived"
    assert [f.effective.name for f in run.flags] == ["CRUISE_SPEED"]
    assert "CRUISE_SPEED runs 2 from rover.params:2 (frame default)" in str(run.flags[0])
    accepted = sitl_run(frame, derived_src, hardware, classifier(), frozenset({"unknown"}))
    assert accepted.flags == [] and len(accepted.accepted) == 1
    assert d.frame_files == ["rover.params"]


# --------------------------------------------------------------------------- validate


def test_validate_separates_what_arduPilot_refuses_from_advice() -> None:
    f = parse_params(b"SERVO1_MIN 300\nINS_ACC_ID 5\nTYPO_NAME 1\nARMING_CHECK 8\n", "x", "params")
    problems = {p.param.name: p.severity for p in validate(f, META, classifier())}
    assert problems == {
        "SERVO1_MIN": WARNING,
        "INS_ACC_ID": ERROR,
        "TYPO_NAME": ERROR,
        "ARMING_CHECK": WARNING,
    }


def test_script_parameters_are_not_unknown() -> None:
    f = parse_params(b"NL_BLINKS 1\n", "x", "params")
    assert validate(f, META, classifier()) == []


# --------------------------------------------------------------------------- channel rules


def model(controls: str) -> list:
    sdf = f"""<sdf version="1.9"><model name="m">
<plugin name="ArduPilotPlugin" filename="ArduPilotPlugin">{controls}</plugin></model></sdf>"""
    return read_channels(sdf.encode(), "m.sdf")[0]


PORT = '<control channel="0"><jointName>port</jointName>{}</control>'
ROLES = {"port": 73, "stbd": 74}
MATCHING = "<servo_min>1100</servo_min><servo_max>1900</servo_max><offset>-0.5</offset>"


def whats(controls: str, params: dict[str, float]) -> list[str]:
    return [f.what for f in channel_findings(model(controls), params, ROLES, META)]


def test_a_matching_channel_has_no_findings() -> None:
    assert whats(PORT.format(MATCHING), {"SERVO1_FUNCTION": 73}) == []


def test_function_rule_names_the_joint_to_use() -> None:
    findings = channel_findings(model(PORT.format(MATCHING)), {"SERVO1_FUNCTION": 74}, ROLES, META)
    assert findings[0].what == (
        "drives port, which is 73 (ThrottleLeft), but SERVO1_FUNCTION is 74 (ThrottleRight)"
    )
    assert findings[0].fix == "<jointName>stbd</jointName>"


def test_function_rule_without_a_role_or_a_function() -> None:
    assert whats(PORT.format(MATCHING), {}) == [
        "drives port (73 (ThrottleLeft)) but the parameters do not set SERVO1_FUNCTION"
    ]
    other = '<control channel="0"><jointName>rudder</jointName>' + MATCHING + "</control>"
    assert whats(other, {"SERVO1_FUNCTION": 73})[0].startswith("joint rudder has no entry")


def test_range_rule_counts_unset_limits_as_firmware_defaults() -> None:
    (what,) = whats(PORT.format(""), {"SERVO1_FUNCTION": 73})[:1]
    assert what.startswith("model range 1000–2000 vs SERVO1_MIN/MAX 1100–1900 (not set")


def test_neutral_rule_reports_the_standing_command() -> None:
    params = {"SERVO1_FUNCTION": 73, "SERVO1_TRIM": 1510}
    (finding,) = channel_findings(model(PORT.format(MATCHING)), params, ROLES, META)
    assert finding.what == (
        "model neutral 1500 vs SERVO1_TRIM 1510: a standing command of 0.0125 at zero throttle"
    )
    assert finding.fix == "<offset>-0.5125</offset>"


@pytest.mark.parametrize(
    ("multiplier", "reversed_", "expected"),
    [
        ("70", 1, "net direction is backwards: SERVO1_REVERSED 1 × multiplier 70"),
        ("-70", 0, "net direction is backwards: multiplier -70 reverses the joint"),
        ("-70", 1, None),
    ],
)
def test_direction_rule(multiplier: str, reversed_: int, expected: str | None) -> None:
    controls = PORT.format(MATCHING + f"<multiplier>{multiplier}</multiplier>")
    found = whats(controls, {"SERVO1_FUNCTION": 73, "SERVO1_REVERSED": reversed_})
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0].startswith(expected)


# --------------------------------------------------------------------------- report sections


def report_lines(findings: bool) -> list[str]:
    d = derived()
    hw, sitl = d.base, source("sitl", "SERVO1_FUNCTION 26\nSERVO1_TRIM 1500\n")
    channels = model(PORT.format(MATCHING))
    profile = Profile("boat", "A test boat", "1.0", {}, vehicle_noun="boat")
    comp = compare([hw, sitl], classifier(), META)
    found = channel_findings(channels, d.params(), ROLES, META) if findings else []
    return list(render_report(ReportInputs(profile, "1.0", comp, d, channels, found, None)))


def section(lines: list[str], title: str) -> list[str]:
    start = lines.index(title)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


def test_report_sections_say_what_disagrees_and_why() -> None:
    lines = report_lines(findings=True)
    assert lines[0] == "# boat SITL parameters — pin 1.0"
    disagree = section(lines, "## Vehicle parameters the sources disagree on")
    row = next(ln for ln in disagree if ln.startswith("| `SERVO1_FUNCTION`"))
    assert "74 (ThrottleRight)" in row and "26" in row
    channels = section(lines, "## Channel mapping: derived file vs the sitl_models Gazebo model")
    # Without geometry (no links in this model): no position, no geometric role.
    assert (
        "| 0 | SERVO1 | port | — | 1100–1900 | 1500 | 1 | VELOCITY | 74 (ThrottleRight) | — |"
        in channels
    )
    assert any(ln.startswith("**1 mismatches**") for ln in channels)
    deltas = section(lines, "## Overlay: deliberate deltas")
    assert (
        "| `SERVO1_TRIM` | 1510 (hardware.params:2) | 1500 | the model is neutral at 1500 |  |"
        in deltas
    )
    assert lines[-1] == "</details>"


def test_report_without_findings_says_every_channel_agrees() -> None:
    lines = report_lines(findings=False)
    assert "No mismatches: every channel agrees with what SITL runs." in lines


def test_param_rows_keep_their_provenance() -> None:
    p = source("a", "# c\nX 1 # why\n").file.params["X"]
    assert (p.file, p.line, p.comment) == ("a.params", 2, "why")
    assert isinstance(ParamFile(file="f", format="params").params, dict)
    assert Param("X", 1.0, "1", "f", 1).origin.line == 1


def test_history_shows_upstream_subjects_without_control_characters(tmp_path: Path) -> None:
    """Before: a commit subject with an OSC title sequence reached the terminal raw, and CR/LF
    broke the table."""
    from helpers import build_mirror

    from paramdiff.config.roles import SourceSpec
    from paramdiff.fetch.transports import MirrorTransport
    from paramdiff.jobs.value_history import value_history

    sha = "ab" * 20
    subject = "\x1b]0;pwned\x07 fix\r\nlights"
    build_mirror(
        tmp_path,
        {
            "acme/p": {
                "branches": {"main": sha},
                "commits": [{"sha": sha, "parents": [], "date": "2026-01-01", "subject": subject}],
                "files": {sha: {"x.params": b"WP_RADIUS 2\n"}},
            }
        },
    )
    spec = SourceSpec("hardware", "acme/p", "main", "x.params", "params", line=1)
    mirror = MirrorTransport(str(tmp_path))
    commits = mirror.commits_touching(spec.repo, spec.ref, [spec.path])

    def read_at(commit: str, path: str) -> bytes:
        return mirror.get(spec.repo, commit, path).data

    rows = value_history(commits, read_at, spec, "WP_*")
    assert rows == [[sha[:12], "2026-01-01", " ]0;pwned  fix  lights", "WP_RADIUS=2"]]
