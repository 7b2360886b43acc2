"""Each launch finding kind's printed fix, applied, clears it (issue #28): the launch string
edited as the fix says, or the value the fix names set, and the check run again.

Launch-level kinds run on the real profiles through ../shared/upstream (skipped without it);
the capability kind is a function of values, tested on small parameter sets.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT, copy_project

from paramdiff.pin import Pin
from paramdiff.project import Project
from paramdiff.simulation import capabilities
from paramdiff.simulation.frame import NOT_LOADED
from paramdiff.simulation.launch_check import LaunchResult, adhoc
from paramdiff.simulation.physics import resolve
from paramdiff.simulation.pilot_input import BLOCKED, pilot_test

X500 = "derived/holybro_x500_sitl.params"
BOAT = "derived/blueboat_sitl.params"
SUB = "derived/bluerov2_heavy_sitl.params"


def run(upstream: Path, profile: str, launch: str, root: Path = ROOT) -> LaunchResult:
    pin = Pin(Project(root=root, mirror=str(upstream)), profile, None)
    return adhoc(pin.launch_inputs([launch]), launch, [])


def only(result: LaunchResult) -> tuple[str, str]:
    assert len(result.findings) == 1, [f.text for f in result.findings]
    return result.findings[0].text, result.findings[0].fix


def test_quad_plus_for_the_x500_is_a_finding_whose_flag_fixes_it(upstream: Path) -> None:
    launch = f"sim_vehicle.py -v ArduCopter -w -f quad --add-param-file={X500}"
    text, fix = only(run(upstream, "holybro_x500", launch))
    assert "FRAME_TYPE 1, but SIM_Frame quad + simulates" in text
    assert fix.startswith("-f X ") and "in place of -f quad" in fix
    assert "-f +" not in fix  # never the other frame's flag
    fixed = run(upstream, "holybro_x500", launch.replace("-f quad", "-f X"))
    assert fixed.passed, [f.text for f in fixed.findings]


def test_a_launch_without_the_derived_file_says_so_first_and_its_fix_loads_it(
    upstream: Path,
) -> None:
    launch = "ardurover -w --model JSON --defaults rover-skid.parm,dds_udp.parm"
    result = run(upstream, "blueboat", launch)
    first = result.findings[0]
    assert first.text.startswith(NOT_LOADED)
    assert (
        first.fix
        == f"put {BOAT} last in --defaults: --defaults rover-skid.parm,dds_udp.parm,{BOAT}"
    )
    fixed = run(upstream, "blueboat", launch.replace("dds_udp.parm", f"dds_udp.parm,{BOAT}"))
    assert fixed.passed, [f.text for f in fixed.findings]


def test_sim_vehicle_without_the_derived_file_is_told_to_add_it(upstream: Path) -> None:
    launch = "sim_vehicle.py -v ArduSub -w -f vectored_6dof"
    result = run(upstream, "bluerov2_heavy", launch)
    assert result.findings[0].text.startswith(NOT_LOADED)
    fix = result.findings[0].fix
    assert fix.startswith(f"add --add-param-file={SUB}")
    fixed = run(upstream, "bluerov2_heavy", f"{launch} --add-param-file={SUB}")
    assert fixed.passed, [f.text for f in fixed.findings]


def test_a_frame_file_after_the_derived_file_names_the_winner_and_reordering_fixes_it(
    upstream: Path,
) -> None:
    launch = f"ardurover -w --model JSON --defaults {BOAT},rover-skid.parm,dds_udp.parm"
    result = run(upstream, "blueboat", launch)
    # The derived model's own finding (it steers backwards on the frame's outputs) aside:
    # the model is built for the derived file, which the frame file here overrides.
    texts = [f.text for f in result.findings if not f.text.startswith("derived/blueboat_model")]
    assert any(t.startswith("SERVO1_FUNCTION: derived/blueboat_sitl.params sets 74") for t in texts)
    assert all("rover-skid.parm (--defaults) loads after it" in t for t in texts), texts
    fix = result.findings[0].fix
    fixed = run(upstream, "blueboat", "ardurover -w --model JSON " + fix.split(": ", 1)[1])
    assert fixed.passed, [f.text for f in fixed.findings]


@pytest.mark.parametrize(
    "launch",
    [
        f"sim_vehicle.py -v ArduCopter -w -f gazebo-iris --model JSON --add-param-file={X500}",
        f"sim_vehicle.py -v ArduCopter -w --model JSON --add-param-file={X500}",
        f"sim_vehicle.py -v ArduCopter -w -f X --add-param-file={X500}",
        f"arducopter -w --model JSON --defaults copter.parm,{X500}",
        f"arducopter -w --model X --defaults copter.parm,{X500}",
    ],
)
def test_every_accepted_x500_launch_flies_the_same_x_quad(upstream: Path, launch: str) -> None:
    result = run(upstream, "holybro_x500", launch)
    assert result.passed, [f.text for f in result.findings]
    params = result.params
    assert (params["FRAME_CLASS"], params["FRAME_TYPE"]) == (1.0, 1.0)
    assert [(r.axis.name, r.verdict) for r in result.rows] == [
        ("roll", "ok"), ("pitch", "ok"), ("yaw", "ok"), ("climb", "ok"),
    ]  # fmt: skip


def test_tkoff_rpm_min_on_json_is_a_finding_and_its_delta_clears_it() -> None:
    backend = resolve("JSON")
    params = {"TKOFF_RPM_MIN": 1000.0, "INS_HNTCH_MODE": 3.0}
    found = capabilities.lacking(backend, "ArduCopter", params)
    assert [t.split(" ", 2)[:2] for t, _ in found] == [["TKOFF_RPM_MIN", "1000"],
                                                      ["INS_HNTCH_MODE", "3"]]  # fmt: skip
    fixed = dict(params)
    for _, fix in found:  # "a SITL delta in the overlay: NAME VALUE (...)"
        name, value = fix.split(": ", 1)[1].split(" (", 1)[0].split()
        fixed[name] = float(value)
    assert capabilities.lacking(backend, "ArduCopter", fixed) == []
    assert capabilities.takeoff_blocked(backend, "ArduCopter", fixed) == ""
    # the built-in multicopter reports each motor's RPM: nothing lacks there
    assert capabilities.lacking(resolve("X"), "ArduCopter", params) == []


def test_the_pilot_test_says_will_not_take_off_where_the_takeoff_check_holds() -> None:
    from paramdiff.simulation.builtin_models import response
    from paramdiff.simulation.pilot_input import hold_takeoff

    backend = resolve("X")
    params = {"FRAME_CLASS": 1.0, "FRAME_TYPE": 1.0, "TKOFF_RPM_MIN": 1000.0}
    rows = pilot_test("ArduCopter", params, response(backend))
    assert rows[-1].verdict == "ok"
    why = capabilities.takeoff_blocked(resolve("JSON"), "ArduCopter", params)
    held = hold_takeoff(rows, why)
    assert held[-1].verdict == BLOCKED
    assert held[-1].finding.startswith("climb: will not take off: TKOFF_RPM_MIN 1000")
    assert "ArduCopter/takeoff_check.cpp" in held[-1].finding
    assert [r.verdict for r in held[:3]] == ["ok", "ok", "ok"]


SAME_VEHICLE = {
    "blueboat": (
        ("FRAME_CLASS", "SERVO1_FUNCTION", "SERVO3_FUNCTION"),
        [
            f"sim_vehicle.py -v Rover -w -f rover-skid --model JSON --add-param-file={BOAT}",
            f"ardurover -w --model JSON --defaults rover-skid.parm,dds_udp.parm,{BOAT}",
        ],
    ),
    "bluerov2_heavy": (
        ("FRAME_CONFIG",),
        [
            f"sim_vehicle.py -v ArduSub -w -f vectored_6dof --add-param-file={SUB}",
            f"sim_vehicle.py -v ArduSub -w -f vectored_6dof --model JSON --add-param-file={SUB}",
        ],
    ),
}


@pytest.mark.parametrize("profile", sorted(SAME_VEHICLE))
def test_each_accepted_launch_of_a_profile_runs_the_same_frame_and_table(
    upstream: Path, profile: str
) -> None:
    names, launches = SAME_VEHICLE[profile]
    seen = set()
    for launch in launches:
        result = run(upstream, profile, launch)
        assert result.passed, [f.text for f in result.findings]
        frame = tuple(result.params[n] for n in names)
        seen.add((frame, tuple((r.axis.name, r.verdict) for r in result.rows)))
    assert len(seen) == 1, seen


def test_a_plus_frame_on_the_x_model_is_one_frame_finding_whose_value_fixes_it(
    upstream: Path, tmp_path: Path
) -> None:
    root = copy_project(tmp_path)  # a launch's own file must be in the project
    override = root / "frame.parm"  # a user's own file, loaded last, setting quad +
    override.write_text("FRAME_TYPE 0\n")
    launch = f"arducopter -w --model JSON --defaults copter.parm,{X500},frame.parm"
    text, fix = only(run(upstream, "holybro_x500", launch, root))
    assert "laid out as a quad X (FRAME_TYPE 1), but the launch runs FRAME_TYPE 0" in text
    # the derived file carries FRAME_TYPE 1: the cause is frame.parm's line, not a delta,
    # and a SITL binary takes no -f
    assert fix.startswith("drop line 1 (FRAME_TYPE 0) of frame.parm, or frame.parm")
    assert "-f gazebo-iris" not in fix and "delta" not in fix
    assert "SERVO3_FUNCTION" not in text + fix  # never a per-channel rewiring
    override.write_text("FRAME_CLASS 1\n")  # the FRAME_TYPE line dropped
    fixed = run(upstream, "holybro_x500", launch, root)
    assert fixed.passed, [f.text for f in fixed.findings]


def test_a_launch_without_the_derived_file_is_told_only_to_load_it(upstream: Path) -> None:
    # issue #28 review 4a: the derived file carries FRAME_TYPE 1 and MOT_PWM_MIN/MAX, so
    # neither a delta nor a sim_vehicle.py flag (a binary takes no -f) is the fix
    launch = "arducopter --model JSON --defaults copter.parm"
    result = run(upstream, "holybro_x500", launch)
    load = f"put {X500} last in --defaults: --defaults copter.parm,{X500}"
    assert result.findings and {f.fix for f in result.findings} == {load}
    fixed = run(upstream, "holybro_x500", launch.replace("copter.parm", f"copter.parm,{X500}"))
    assert fixed.passed, [f.text for f in fixed.findings]


def test_a_later_file_that_wins_over_the_derived_esc_values_is_named_with_its_lines(
    upstream: Path, tmp_path: Path
) -> None:
    # issue #28 review 4b: the overlay already has TKOFF_RPM_MIN 0 and INS_HNTCH_MODE 1;
    # esc.parm, loaded after the derived file, wins
    root = copy_project(tmp_path)
    esc = root / "esc.parm"
    esc.write_text("TKOFF_RPM_MIN 1000\nINS_HNTCH_MODE 3\n")
    launch = (
        f"sim_vehicle.py -v ArduCopter -w -f gazebo-iris --model JSON --add-param-file={X500} "
        "--add-param-file=esc.parm"
    )
    fixes = [f.fix for f in run(upstream, "holybro_x500", launch, root).findings]
    assert len(fixes) == 2, fixes
    assert fixes[0].startswith("drop line 1 (TKOFF_RPM_MIN 1000) of esc.parm, or esc.parm")
    assert fixes[1].startswith("drop line 2 (INS_HNTCH_MODE 3) of esc.parm, or esc.parm")
    assert not any("delta" in f for f in fixes)
    fixed = run(upstream, "holybro_x500", launch.replace(" --add-param-file=esc.parm", ""), root)
    assert fixed.passed, [f.text for f in fixed.findings]
