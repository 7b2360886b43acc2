"""SDF includes and channel roles from geometry, on small models written here (no ../shared).

The expected roles are ArduPilot's, re-implemented in paramdiff.simulation.geometry from
AP_MotorsMatrix::setup_quad_matrix and AP_Motors6DOF::setup_motors; these fixtures place the
actuators independently (by hand, in the Gazebo model frame), so a wrong frame conversion or
pose composition fails here.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from paramdiff.errors import InputError
from paramdiff.parse.sdf_include import MERGE_LIMIT, NESTING_LIMIT, load_model
from paramdiff.parse.sdf_paths import local_resolver, repo_include_paths, repo_resolver
from paramdiff.render.svg import render_svg
from paramdiff.simulation.geometry import ModelCheck, check_model, output_functions

PLUGIN = """
    <plugin name="ArduPilotPlugin" filename="ArduPilotPlugin">
{controls}
    </plugin>"""
CONTROL = """      <control channel="{ch}">
        <jointName>{joint}</jointName>
        <multiplier>{mult}</multiplier>
        <offset>{offset}</offset>
        <servo_min>1100</servo_min>
        <servo_max>1900</servo_max>
        <type>{type}</type>
      </control>"""

QUAD = {"FRAME_CLASS": 1.0, "FRAME_TYPE": 1.0, "MOT_PWM_MIN": 1100.0, "MOT_PWM_MAX": 1900.0}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def quad_frame(arm: float = 0.25) -> str:
    """Rotors in a nested model yawed +90° inside a model the vehicle includes yawed -90°:
    only when both rotations are applied do the rotors land where they are written (rotor_fr
    front-right, rotor_bl back-left, rotor_fl front-left, rotor_br back-right)."""
    spots = {"fr": (arm, -arm), "bl": (-arm, arm), "fl": (arm, arm), "br": (-arm, -arm)}
    links = []
    for name, (x, y) in spots.items():
        links.append(
            f'<link name="rotor_{name}"><pose>{x:.3f} {y:.3f} 0.05 0 0 0</pose></link>'
            f'<joint name="rotor_{name}_joint" type="revolute"><parent>base</parent>'
            f"<child>rotor_{name}</child><axis><xyz>0 0 1</xyz></axis></joint>"
        )
    return (
        '<?xml version="1.0"?>\n<sdf version="1.9"><model name="quad_frame">'
        '<link name="base"/><model name="arms"><pose degrees="true">0 0 0 0 0 90</pose>'
        '<link name="base"/>' + "".join(links) + "</model></model></sdf>\n"
    )


def quad_vehicle(signs: dict[str, int], joints: list[str] | None = None) -> str:
    order = joints or ["rotor_fr", "rotor_bl", "rotor_fl", "rotor_br"]
    controls = "\n".join(
        CONTROL.format(
            ch=i,
            joint=f"frame::arms::{name}_joint",
            mult=838 * signs.get(name, 1),
            offset=0,
            type="VELOCITY",
        )
        for i, name in enumerate(order)
    )
    return (
        '<?xml version="1.0"?>\n<sdf version="1.9"><model name="quad">'
        "<include><uri>model://quad_frame</uri><name>frame</name>"
        '<pose degrees="true">0 0 0.1 0 0 -90</pose></include>'
        + PLUGIN.format(controls=controls)
        + "</model></sdf>\n"
    )


# Quad X: Motor1 front-right CCW, Motor2 back-left CCW, Motor3 front-left CW, Motor4 back-right CW.
GOOD_SIGNS = {"rotor_fr": 1, "rotor_bl": 1, "rotor_fl": -1, "rotor_br": -1}


def quad(tmp_path: Path, signs: dict[str, int], joints: list[str] | None = None) -> Path:
    write(tmp_path / "models/quad_frame/model.sdf", quad_frame())
    return write(tmp_path / "models/quad/model.sdf", quad_vehicle(signs, joints))


def run(
    model: Path, params: dict[str, float], vehicle: str | None, roles: dict[str, int] | None = None
) -> ModelCheck:
    return check_model(
        model.read_bytes(), model.as_posix(), local_resolver({}), params, roles or {}, vehicle, None
    )


def test_include_places_scopes_and_composes_poses(tmp_path: Path) -> None:
    model = quad(tmp_path, GOOD_SIGNS)
    tree = load_model(model.read_bytes(), model.as_posix(), local_resolver({}))
    fr = tree.links["frame::arms::rotor_fr"].pose
    assert [round(c, 6) for c in fr.p] == [0.25, -0.25, 0.15]
    joint = tree.joints["frame::arms::rotor_fl_joint"]
    assert joint.child == "frame::arms::rotor_fl"
    assert [round(c, 6) for c in joint.axis] == [0.0, 0.0, 1.0]
    assert tree.includes == [(tmp_path / "models/quad_frame/model.sdf").as_posix()]


def test_relative_to_and_expressed_in(tmp_path: Path) -> None:
    model = write(
        tmp_path / "m/model.sdf",
        '<sdf version="1.9"><model name="m">'
        '<link name="a"><pose degrees="true">1 0 0 0 0 90</pose></link>'
        '<link name="b"><pose relative_to="a">1 0 0 0 0 0</pose></link>'
        '<joint name="j" type="revolute"><parent>a</parent><child>b</child>'
        "<axis><xyz>1 0 0</xyz></axis></joint>"
        '<joint name="k" type="revolute"><parent>a</parent><child>b</child>'
        '<axis><xyz expressed_in="__model__">1 0 0</xyz></axis></joint>'
        "</model></sdf>",
    )
    tree = load_model(model.read_bytes(), model.as_posix(), local_resolver({}))
    assert [round(c, 6) for c in tree.links["b"].pose.p] == [1.0, 1.0, 0.0]
    assert [round(c, 6) for c in tree.joints["j"].axis] == [0.0, 1.0, 0.0]
    assert [round(c, 6) for c in tree.joints["k"].axis] == [1.0, 0.0, 0.0]


def test_missing_include_names_the_file_and_line(tmp_path: Path) -> None:
    model = write(
        tmp_path / "models/v/model.sdf",
        '<sdf version="1.9"><model name="v">\n\n  <include>\n'
        "    <uri>model://nowhere</uri>\n  </include>\n</model></sdf>\n",
    )
    with pytest.raises(InputError) as err:
        load_model(model.read_bytes(), model.as_posix(), local_resolver({}))
    assert str(err.value).startswith(
        f"{model.as_posix()}:3: <include> model://nowhere not found (looked in "
        f"{(tmp_path / 'models/nowhere/model.sdf').as_posix()})"
    )


def test_cyclic_include_names_the_file_and_line(tmp_path: Path) -> None:
    a = write(
        tmp_path / "models/a/model.sdf",
        '<sdf version="1.9"><model name="a">\n<include><uri>model://b</uri></include>\n'
        "</model></sdf>\n",
    )
    b = write(
        tmp_path / "models/b/model.sdf",
        '<sdf version="1.9"><model name="b">\n\n<include><uri>model://a</uri></include>\n'
        "</model></sdf>\n",
    )
    with pytest.raises(InputError) as err:
        load_model(a.read_bytes(), a.as_posix(), local_resolver({}))
    assert str(err.value).startswith(
        f"{b.as_posix()}:3: <include> model://a includes itself "
        f"({a.as_posix()} -> {b.as_posix()} -> {a.as_posix()})"
    )


def test_gz_sim_resource_path_after_the_sibling_folders(tmp_path: Path) -> None:
    write(tmp_path / "elsewhere/quad_frame/model.sdf", quad_frame())
    model = write(tmp_path / "models/quad/model.sdf", quad_vehicle(GOOD_SIGNS))
    env = {"GZ_SIM_RESOURCE_PATH": f"{tmp_path / 'empty'}:{tmp_path / 'elsewhere'}"}
    tree = load_model(model.read_bytes(), model.as_posix(), local_resolver(env))
    assert tree.includes == [(tmp_path / "elsewhere/quad_frame/model.sdf").as_posix()]
    write(tmp_path / "models/quad_frame/model.sdf", quad_frame(arm=0.3))
    tree = load_model(model.read_bytes(), model.as_posix(), local_resolver(env))
    assert tree.includes == [(tmp_path / "models/quad_frame/model.sdf").as_posix()]


def test_repo_includes_are_sibling_model_folders() -> None:
    data = quad_vehicle(GOOD_SIGNS).encode()
    assert repo_include_paths("models/quad/model.sdf", data) == ["models/quad_frame/model.sdf"]
    resolve = repo_resolver("models/quad/model.sdf", {})
    with pytest.raises(InputError, match="not among the files fetched"):
        resolve("quad_frame", "models/quad/model.sdf", 1)


def includer(path: Path, uri: str) -> Path:
    return write(
        path,
        f'<sdf version="1.9"><model name="v">\n<include><uri>{uri}</uri></include>\n'
        "</model></sdf>\n",
    )


@pytest.mark.parametrize(
    "uri",
    [
        "model://../../x",
        "model://..",
        "model://a/b",
        "model://a\\..\\b",
        "model:///etc",
        "model://",
    ],
)
def test_include_name_must_be_one_folder_name(tmp_path: Path, uri: str) -> None:
    """model://../../x read <project>/../model.sdf: NAME is now one plain folder name, for
    local models, pinned ones (fetch) and their resolvers alike."""
    write(tmp_path / "model.sdf", quad_frame())  # what model://../../x used to merge
    model = includer(tmp_path / "p/models/v/model.sdf", uri)
    with pytest.raises(InputError) as err:
        load_model(model.read_bytes(), model.as_posix(), local_resolver({}))
    assert str(err.value).startswith(f"{model.as_posix()}:2: <include> model://")
    assert "does not name a model folder" in str(err.value)
    with pytest.raises(InputError, match="does not name a model folder"):
        repo_include_paths("models/v/model.sdf", model.read_bytes())
    for resolve in (repo_resolver("models/v/model.sdf", {}), local_resolver({})):
        with pytest.raises(InputError, match="does not name a model folder"):
            resolve("..", "models/v/model.sdf", 2)


def test_a_model_folder_linked_out_of_its_folder_is_refused(tmp_path: Path) -> None:
    """A sibling model folder that is a symlink to a folder outside was merged silently."""
    write(tmp_path / "outside/secretmodel/model.sdf", quad_frame())
    model = includer(tmp_path / "p/models/v/model.sdf", "model://evil2")
    (tmp_path / "p/models/evil2").symlink_to(tmp_path / "outside/secretmodel")
    with pytest.raises(InputError) as err:
        load_model(model.read_bytes(), model.as_posix(), local_resolver({}))
    assert str(err.value) == (
        f"{model.as_posix()}:2: <include> {(tmp_path / 'p/models/evil2/model.sdf').as_posix()} "
        f"leads outside {(tmp_path / 'p/models').as_posix()} (to "
        f"{(tmp_path / 'outside/secretmodel/model.sdf').resolve().as_posix()}) — replace the "
        "link with the model folder itself, inside the folder it is looked up in"
    )
    # the same through GZ_SIM_RESOURCE_PATH: the entry it was found in bounds it
    (tmp_path / "p/models/evil2").unlink()
    write(tmp_path / "res/placeholder", "")
    (tmp_path / "res/evil2").symlink_to(tmp_path / "outside/secretmodel")
    env = {"GZ_SIM_RESOURCE_PATH": str(tmp_path / "res")}
    with pytest.raises(InputError, match=r"leads outside .*/res "):
        load_model(model.read_bytes(), model.as_posix(), local_resolver(env))
    # a link that stays inside the folder is followed
    (tmp_path / "res/evil2").unlink()
    write(tmp_path / "res/real/model.sdf", quad_frame())
    (tmp_path / "res/evil2").symlink_to(tmp_path / "res/real")
    tree = load_model(model.read_bytes(), model.as_posix(), local_resolver(env))
    assert tree.includes == [(tmp_path / "res/evil2/model.sdf").as_posix()]


@pytest.mark.parametrize(
    ("elem", "text"),
    [("pose", "\u0661 0 0 0 0 0"), ("pose", "0 0 0 0 0 \uff11"), ("xyz", "0 0 \u0661")],
)
def test_sdf_numbers_are_ascii_like_every_other_number(
    tmp_path: Path, elem: str, text: str
) -> None:
    """float() reads Arabic-Indic and full-width digits; ArduPilot and sdformat do not."""
    pose = f"<pose>{text}</pose>" if elem == "pose" else ""
    xyz = f"<xyz>{text}</xyz>" if elem == "xyz" else "<xyz>0 0 1</xyz>"
    model = write(
        tmp_path / "m/model.sdf",
        f'<sdf version="1.9"><model name="m">\n<link name="a">{pose}</link>\n'
        f'<joint name="j" type="revolute"><parent>a</parent><child>a</child>\n'
        f"<axis>{xyz}</axis></joint></model></sdf>",
    )
    with pytest.raises(InputError) as err:
        load_model(model.read_bytes(), model.as_posix(), local_resolver({}))
    count = 6 if elem == "pose" else 3
    line = 2 if elem == "pose" else 4
    assert str(err.value) == (
        f"{model.as_posix()}:{line}: <{elem}> '{text}' is not {count} numbers (ASCII "
        f"digits 0-9, each within ±1e9) — write {count} numbers separated by spaces"
    )


def test_quad_x_matches_setup_quad_matrix(tmp_path: Path) -> None:
    result = run(quad(tmp_path, GOOD_SIGNS), QUAD, "ArduCopter")
    assert result.findings == []
    assert [v.function for v in result.geometry.views] == [33.0, 34.0, 35.0, 36.0]
    assert [v.spin for v in result.geometry.views] == [1, 1, -1, -1]  # CCW, CCW, CW, CW
    # SERVO1..4_FUNCTION unset: the firmware assigns Motor1..4 at boot.
    assert len(result.geometry.notes) == 4


def test_swapped_spin_names_the_motors_and_their_spin(tmp_path: Path) -> None:
    signs = {**GOOD_SIGNS, "rotor_fr": -1, "rotor_fl": 1}
    found = [str(f) for f in run(quad(tmp_path, signs), QUAD, "ArduCopter").findings]
    assert len(found) == 2
    assert found[0].startswith("channel 0 (frame::arms::rotor_fr_joint, SERVO1): Motor1 spins")
    assert "spinning clockwise seen from above" in found[0]
    assert "QUAD X spins counter-clockwise" in found[0]
    assert found[1].startswith("channel 2 (frame::arms::rotor_fl_joint, SERVO3): Motor3 spins")
    assert "spinning counter-clockwise seen from above" in found[1]


def test_swapped_rotors_point_at_the_right_joint(tmp_path: Path) -> None:
    order = ["rotor_fl", "rotor_bl", "rotor_fr", "rotor_br"]
    result = run(quad(tmp_path, GOOD_SIGNS, order), QUAD, "ArduCopter")
    fixes = {f.channel: f.fix for f in result.findings}
    assert fixes[0] == "<jointName>frame::arms::rotor_fr_joint</jointName>"
    assert fixes[2] == "<jointName>frame::arms::rotor_fl_joint</jointName>"
    assert "that is where QUAD X puts Motor3" in str(result.findings[0])


def test_copter_motor_range_is_mot_pwm_else_the_throttle_channel(tmp_path: Path) -> None:
    params = {"FRAME_CLASS": 1.0, "FRAME_TYPE": 1.0, "RC3_MIN": 1000.0, "RC3_MAX": 2000.0}
    found = [str(f) for f in run(quad(tmp_path, GOOD_SIGNS), params, "ArduCopter").findings]
    assert len(found) == 4
    assert "vs motor PWM range 1000–2000 (MOT_PWM_MIN/MAX unset: RC3_MIN/MAX" in found[0]


def test_boot_assignment_skips_outputs_already_used() -> None:
    functions, notes = output_functions(
        {"SERVO1_FUNCTION": 0.0, "SERVO2_FUNCTION": 33.0}, "ArduCopter", 4
    )
    assert functions == {1: 0.0, 2: 33.0, 3: 35.0, 4: 36.0}
    assert sorted(notes) == [3, 4]
    # Rover::load_parameters: output 1 GroundSteering, output 3 Throttle when no file sets them
    rover, rover_notes = output_functions({}, "Rover", 4)
    assert rover == {1: 26.0, 3: 70.0} and sorted(rover_notes) == [1, 3]


def boat(tmp_path: Path, port_joint: str, mult_port: int = 70) -> Path:
    """Port thruster on channel 0, starboard on channel 2; the link poses make the joint axis
    (0 0 -1) point forward, as in the SITL_Models BlueBoat."""
    links = ""
    for side, y in (("stbd", -0.295), ("port", 0.295)):
        joint = port_joint if side == "port" else "right_joint"
        links += (
            f'<link name="{side}_link"><pose degrees="true">-0.488 {y} -0.272 -90 0 90</pose>'
            f'</link><joint name="{joint}" type="revolute"><parent>base</parent>'
            f"<child>{side}_link</child><axis><xyz>0 0 -1</xyz></axis></joint>"
        )
    controls = "\n".join(
        [
            CONTROL.format(ch=0, joint=port_joint, mult=mult_port, offset=-0.5, type="COMMAND"),
            CONTROL.format(ch=2, joint="right_joint", mult=70, offset=-0.5, type="COMMAND"),
        ]
    )
    return write(
        tmp_path / "boat/model.sdf",
        f'<sdf version="1.9"><model name="boat"><link name="base"/>{links}'
        + PLUGIN.format(controls=controls)
        + "</model></sdf>",
    )


BOAT = {"SERVO1_FUNCTION": 74.0, "SERVO3_FUNCTION": 73.0}


def test_skid_steer_roles_from_geometry_whatever_the_joint_names(tmp_path: Path) -> None:
    result = run(boat(tmp_path, "thing_a"), BOAT, "Rover")
    found = [str(f) for f in result.findings if "FUNCTION" in str(f)]
    assert found[0].startswith(
        "channel 0 (thing_a, SERVO1): geometry: drives thing_a, the port thruster"
    )
    assert "which ArduPilot drives as 73; parameters: SERVO1_FUNCTION is 74" in found[0]
    assert result.findings[0].fix == "<jointName>right_joint</jointName>"
    good = {"SERVO1_FUNCTION": 73.0, "SERVO3_FUNCTION": 74.0}
    assert run(boat(tmp_path, "thing_a"), good, "Rover").findings == []


def test_skid_steer_thrust_backwards(tmp_path: Path) -> None:
    good = {"SERVO1_FUNCTION": 73.0, "SERVO3_FUNCTION": 74.0}
    found = run(boat(tmp_path, "p", mult_port=-70), good, "Rover").findings
    assert len(found) == 1 and "so the thruster pushes backwards" in str(found[0])
    assert found[0].fix == "<multiplier>70</multiplier>"
    # SERVO1_REVERSED compensates the negative multiplier: forward again.
    assert run(boat(tmp_path, "p", -70), {**good, "SERVO1_REVERSED": 1.0}, "Rover").findings == []


def test_joint_roles_cross_check_against_geometry(tmp_path: Path) -> None:
    good = {"SERVO1_FUNCTION": 73.0, "SERVO3_FUNCTION": 74.0}
    roles = {"p": 74, "right_joint": 74}
    found = run(boat(tmp_path, "p"), good, "Rover", roles).findings
    assert [f.fix for f in found] == ["joint_roles: {p: 73}"]
    # The fix belongs in sources.yaml, and says so (it said "in the model").
    assert found[0].fix_text() == " — in sources.yaml: `joint_roles: {p: 73}`"


def test_a_parameter_fix_is_worded_as_an_overlay_delta(tmp_path: Path) -> None:
    """SERVO1_FUNCTION 1 (RCPassThru) where Motor1 sits: no joint is what output 1 drives."""
    result = run(quad(tmp_path, GOOD_SIGNS), {**QUAD, "SERVO1_FUNCTION": 1.0}, "ArduCopter")
    assert result.findings[0].fix_text() == " — as an overlay delta: `SERVO1_FUNCTION 33`"


# A BlueROV2 Heavy layout written by hand in the Gazebo frame (x forward, y left, z up):
# horizontal thrusters at 45°, pushing for a positive command as bluerov2_gz's do.
HEAVY = [
    ((0.14, -0.092, 0.0), (-1, -1, 0)),
    ((0.14, 0.092, 0.0), (-1, 1, 0)),
    ((-0.15, -0.092, 0.0), (1, -1, 0)),
    ((-0.15, 0.092, 0.0), (1, 1, 0)),
    ((0.118, -0.215, 0.064), (0, 0, -1)),
    ((0.118, 0.215, 0.064), (0, 0, -1)),
    ((-0.118, -0.215, 0.064), (0, 0, -1)),
    ((-0.118, 0.215, 0.064), (0, 0, -1)),
]


def heavy(tmp_path: Path, flip: int | None = None) -> Path:
    body, controls = "", []
    for i, ((x, y, z), axis) in enumerate(HEAVY, 1):
        norm = math.sqrt(sum(a * a for a in axis))
        xyz = " ".join(f"{a / norm:.6f}" for a in axis)
        body += (
            f'<link name="t{i}"><pose>{x} {y} {z} 0 0 0</pose></link>'
            f'<joint name="t{i}_joint" type="revolute"><parent>base</parent><child>t{i}</child>'
            f"<axis><xyz>{xyz}</xyz></axis></joint>"
        )
        mult = -100 if flip == i else 100
        controls.append(
            CONTROL.format(ch=i - 1, joint=f"t{i}_joint", mult=mult, offset=-0.5, type="COMMAND")
        )
    return write(
        tmp_path / "rov/model.sdf",
        f'<sdf version="1.9"><model name="rov"><link name="base"/>{body}'
        + PLUGIN.format(controls="\n".join(controls))
        + "</model></sdf>",
    )


SUB = {"FRAME_CONFIG": 2.0, **{f"SERVO{i}_FUNCTION": 32.0 + i for i in range(1, 9)}}


def test_vectored_6dof_matches_ap_motors6dof(tmp_path: Path) -> None:
    result = run(heavy(tmp_path), SUB, "ArduSub")
    assert result.findings == []
    assert [v.expected for v in result.geometry.views] == list(range(33, 41))


def test_vectored_6dof_reversed_thruster(tmp_path: Path) -> None:
    found = run(heavy(tmp_path, flip=5), SUB, "ArduSub").findings
    assert len(found) == 1
    assert str(found[0]).startswith("channel 4 (t5_joint, SERVO5): Motor5 pushes the wrong way")
    assert "factors roll 1, pitch -1, throttle -1" in str(found[0])
    assert found[0].fix == "<multiplier>100</multiplier>"
    # MOT_5_DIRECTION -1 is ArduSub's own way to reverse it.
    assert run(heavy(tmp_path, flip=5), {**SUB, "MOT_5_DIRECTION": -1.0}, "ArduSub").findings == []


def test_vectored_6dof_swapped_outputs(tmp_path: Path) -> None:
    params = {**SUB, "SERVO5_FUNCTION": 38.0, "SERVO6_FUNCTION": 37.0}
    found = run(heavy(tmp_path), params, "ArduSub").findings
    assert [f.fix for f in found] == [
        "<jointName>t6_joint</jointName>",
        "<jointName>t5_joint</jointName>",
    ]
    assert "that fits Motor5 of vectored 6DOF" in str(found[0])


def test_svg_is_deterministic_and_marks_findings(tmp_path: Path) -> None:
    signs = {**GOOD_SIGNS, "rotor_fr": -1}
    result = run(quad(tmp_path, signs), QUAD, "ArduCopter")
    first = "\n".join(render_svg("quad", result.geometry))
    assert first == "\n".join(render_svg("quad", result.geometry))
    assert first.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    assert first.count("#c62828") >= 2  # the mismatched rotor is drawn red
    assert "findings [1]" in first and "SERVO1 · 33" in first
    assert "1 of 4 channel(s) with findings" in first


def doubling_chain(folder: Path, levels: int, plugin: str = "") -> Path:
    """Model m0 includes m1 twice (as a and b), m1 includes m2 twice, ...: 2^levels merged
    copies of the last model from ``levels + 1`` files of a few hundred bytes."""
    for i in range(levels):
        write(
            folder / f"m{i}/model.sdf",
            f'<sdf version="1.9"><model name="m{i}">\n'
            f"<include><uri>model://m{i + 1}</uri><name>a</name></include>\n"
            f"<include><uri>model://m{i + 1}</uri><name>b</name></include>\n"
            + (plugin if i == 0 else "")
            + "</model></sdf>\n",
        )
    last = f'<sdf version="1.9"><model name="m{levels}"><link name="l"/></model></sdf>\n'
    write(folder / f"m{levels}/model.sdf", last)
    return folder / "m0/model.sdf"


def test_includes_that_double_at_every_level_are_refused_at_the_bound(tmp_path: Path) -> None:
    """Gazebo would merge 2^N models; the merge stops at MERGE_LIMIT elements, at the line
    of the <include> that crossed it (before: 25 levels grew in memory until killed)."""
    top = doubling_chain(tmp_path, 14)  # 2^14 copies: past the bound, yet quick before the fix
    with pytest.raises(InputError) as err:
        load_model(top.read_bytes(), top.as_posix(), local_resolver({}))
    assert str(err.value) == (
        f"{(tmp_path / 'm10/model.sdf').as_posix()}:2: <include> model://m11 (copy 417) makes "
        f"the merged model larger than {MERGE_LIMIT} elements (links, joints, models, ...) — "
        "include each model once where the vehicle uses it (a model that includes another "
        "twice doubles the merged model at every level)"
    )
    # Below the bound the same shape merges: 2^8 copies of m8's link, each scoped.
    small = doubling_chain(tmp_path / "small", 8)
    tree = load_model(small.read_bytes(), small.as_posix(), local_resolver({}))
    assert len(tree.links) == 2**8 and "a::b::a::b::a::b::a::b::l" in tree.links
    assert len(tree.includes) == 8  # each file once


def test_models_nested_past_the_bound_are_refused_not_a_recursion_error(tmp_path: Path) -> None:
    deep = NESTING_LIMIT + 1
    nested = "".join(f'<model name="n{i}">\n' for i in range(deep)) + "</model>" * deep
    model = write(
        tmp_path / "m/model.sdf", f'<sdf version="1.9"><model name="m">{nested}</model></sdf>'
    )
    with pytest.raises(InputError) as err:
        load_model(model.read_bytes(), model.as_posix(), local_resolver({}))
    assert str(err.value) == (
        f"{model.as_posix()}:{deep}: models nest more than {NESTING_LIMIT} deep here — flatten "
        "the model (a vehicle nests a few models at most)"
    )


def test_a_long_relative_to_chain_is_placed_without_recursion(tmp_path: Path) -> None:
    """Each link relative_to the next one written: 3000 deep, once a RecursionError."""
    n = 3000
    links = "".join(
        f'<link name="l{i}"><pose relative_to="l{i + 1}">1 0 0 0 0 0</pose></link>'
        for i in range(n)
    )
    model = write(
        tmp_path / "m/model.sdf",
        f'<sdf version="1.9"><model name="m">{links}<link name="l{n}"/></model></sdf>',
    )
    tree = load_model(model.read_bytes(), model.as_posix(), local_resolver({}))
    assert tree.links["l0"].pose.p == (float(n), 0.0, 0.0)
    closed = f'<link name="l{n}"><pose relative_to="l0"/></link>'
    model.write_text(model.read_text().replace(f'<link name="l{n}"/>', closed))
    with pytest.raises(InputError, match=r"poses relative_to each other in a loop \(l0 -> l1 -> "):
        load_model(model.read_bytes(), model.as_posix(), local_resolver({}))


# -- channels that cannot move their actuator: each its own finding, never "spins the wrong way"


def quad_with(tmp_path: Path, joint: str, axis: str, signs: dict[str, int] | None = None) -> Path:
    """The good quad with rotor ``joint``'s axis written as ``axis`` (its frame: nested yaw
    +90° and include yaw -90° cancel, so it is the Gazebo model frame too)."""
    model = quad(tmp_path, signs or GOOD_SIGNS)
    frame = tmp_path / "models/quad_frame/model.sdf"
    old = f"<child>{joint}</child><axis><xyz>0 0 1</xyz>"
    frame.write_text(
        frame.read_text().replace(old, f"<child>{joint}</child><axis><xyz>{axis}</xyz>")
    )
    return model


def only(result: ModelCheck, channel: int) -> list[str]:
    return [str(f) + f.fix_text() for f in result.findings if f.channel == channel]


def test_a_rotor_with_multiplier_0_is_a_finding(tmp_path: Path) -> None:
    """Before: '4 channel(s) agree' (a multiplier of 0 counted as positive)."""
    result = run(quad(tmp_path, {**GOOD_SIGNS, "rotor_fr": 0}), QUAD, "ArduCopter")
    assert [str(f) + f.fix_text() for f in result.findings] == [
        "channel 0 (frame::arms::rotor_fr_joint, SERVO1): multiplier 0: the plugin scales every "
        "command to 0, so this rotor never moves and the channel does nothing — in the model: "
        "`<multiplier>838</multiplier>`"
    ]
    assert result.geometry.views[0].spin == 0 and result.geometry.views[0].expected_spin == 1


AXIS_FIX = '`<axis><xyz expressed_in="__model__">0 0 1</xyz></axis> in joint frame::arms::{}`'


def test_a_rotor_with_a_zero_axis_cannot_lift(tmp_path: Path) -> None:
    """Before: 'Motor1 spins the wrong way' with a multiplier fix that could not help."""
    result = run(quad_with(tmp_path, "rotor_fr", "0 0 0"), QUAD, "ArduCopter")
    assert only(result, 0) == [
        "channel 0 (frame::arms::rotor_fr_joint, SERVO1): the joint axis of "
        "frame::arms::rotor_fr_joint is zero (x 0, y 0, z 0) (Gazebo model frame: x forward, "
        "y left, z up): Gazebo refuses a zero axis (sdformat: the norm of the xyz vector "
        "cannot be zero) and this rotor cannot lift — in the model: "
        + AXIS_FIX.format("rotor_fr_joint")
    ]
    assert len(result.findings) == 1


def test_a_sideways_rotor_cannot_lift(tmp_path: Path) -> None:
    """Axis 1 0 0 on Motor1 (CCW, multiplier +838) and on Motor3 (CW, multiplier -838): each
    fix gives the axis that keeps the motor's spin with its multiplier (up for both)."""
    model = quad_with(tmp_path, "rotor_fr", "1 0 0")
    frame = tmp_path / "models/quad_frame/model.sdf"
    old = "<child>rotor_fl</child><axis><xyz>0 0 1</xyz>"
    frame.write_text(
        frame.read_text().replace(old, "<child>rotor_fl</child><axis><xyz>0 -1 0</xyz>")
    )
    result = run(model, QUAD, "ArduCopter")
    assert only(result, 0) == [
        "channel 0 (frame::arms::rotor_fr_joint, SERVO1): the joint axis of "
        "frame::arms::rotor_fr_joint is (x +1, y 0, z 0) (Gazebo model frame: x forward, y left, "
        "z up), 90° from vertical: this rotor cannot lift — in the model: "
        + AXIS_FIX.format("rotor_fr_joint")
    ]
    assert only(result, 2) == [
        "channel 2 (frame::arms::rotor_fl_joint, SERVO3): the joint axis of "
        "frame::arms::rotor_fl_joint is (x 0, y -1, z 0) (Gazebo model frame: x forward, y left, "
        "z up), 90° from vertical: this rotor cannot lift — in the model: "
        + AXIS_FIX.format("rotor_fl_joint")
    ]
    assert len(result.findings) == 2
    # A rotor tilted less than 45° still lifts and is judged by its spin as before.
    tilted = quad_with(tmp_path / "t", "rotor_fr", "0.3 0 1")
    assert run(tilted, QUAD, "ArduCopter").findings == []


def boat_axis(tmp_path: Path, axis: str, mult_port: int = 70) -> Path:
    """The boat with the port joint's axis replaced (expressed in the model frame)."""
    model = boat(tmp_path, "p", mult_port)
    old = "<child>port_link</child><axis><xyz>0 0 -1</xyz>"
    new = f'<child>port_link</child><axis><xyz expressed_in="__model__">{axis}</xyz>'
    model.write_text(model.read_text().replace(old, new))
    return model


SKID_OK = {"SERVO1_FUNCTION": 73.0, "SERVO3_FUNCTION": 74.0}


def test_a_skid_steer_thruster_with_multiplier_0_is_a_finding(tmp_path: Path) -> None:
    found = run(boat(tmp_path, "p", mult_port=0), SKID_OK, "Rover").findings
    assert [str(f) + f.fix_text() for f in found] == [
        "channel 0 (p, SERVO1): multiplier 0: the plugin scales every command to 0, so this "
        "thruster never moves and the channel does nothing — in the model: "
        "`<multiplier>70</multiplier>`"
    ]


def test_a_skid_steer_thruster_with_a_zero_or_vertical_axis(tmp_path: Path) -> None:
    """Before: 'the thruster pushes backwards', fixed by a multiplier flip that changes nothing."""
    found = run(boat_axis(tmp_path, "0 0 0"), SKID_OK, "Rover").findings
    fix = ' — in the model: `<axis><xyz expressed_in="__model__">1 0 0</xyz></axis> in joint p`'
    assert [str(f) + f.fix_text() for f in found] == [
        "channel 0 (p, SERVO1): the joint axis of p is zero (x 0, y 0, z 0) (Gazebo model "
        "frame: x forward, y left, z up): Gazebo refuses a zero axis (sdformat: the norm of the "
        "xyz vector cannot be zero) and this thruster cannot push" + fix
    ]
    found = run(boat_axis(tmp_path, "0 0 1"), SKID_OK, "Rover").findings
    assert [str(f) + f.fix_text() for f in found] == [
        "channel 0 (p, SERVO1): the joint axis of p is (x 0, y 0, z +1) (Gazebo model frame: x "
        "forward, y left, z up), 90° from fore-aft (x): this thruster cannot drive the vehicle "
        "forward" + fix
    ]
    # Pointing backwards along x is still the multiplier's sign, as before.
    found = run(boat_axis(tmp_path, "-1 0 0"), SKID_OK, "Rover").findings
    assert len(found) == 1 and "so the thruster pushes backwards" in str(found[0])


def test_a_6dof_thruster_with_multiplier_0_or_a_zero_axis(tmp_path: Path) -> None:
    """Before: 'fits no motor ... re-aim it' (multiplier 0 pushed as if positive)."""
    model = heavy(tmp_path)
    text = model.read_text()
    at = text.index("<jointName>t5_joint</jointName>")
    model.write_text(text[:at] + text[at:].replace("<multiplier>100<", "<multiplier>0<", 1))
    found = run(model, SUB, "ArduSub").findings
    assert [str(f) + f.fix_text() for f in found] == [
        "channel 4 (t5_joint, SERVO5): multiplier 0: the plugin scales every command to 0, so "
        "this thruster never moves and the channel does nothing — in the model: "
        "`<multiplier>100</multiplier>`"
    ]
    # With MOT_5_DIRECTION -1 the fix is the negative multiplier.
    found = run(model, {**SUB, "MOT_5_DIRECTION": -1.0}, "ArduSub").findings
    assert found[0].fix == "<multiplier>-100</multiplier>"
    zero = heavy(tmp_path / "z")
    text = zero.read_text()
    at = text.index("<child>t1</child>")
    zero.write_text(text[:at] + re.sub(r"<xyz>[^<]*</xyz>", "<xyz>0 0 0</xyz>", text[at:], count=1))
    found = run(zero, SUB, "ArduSub").findings
    assert [f.channel for f in found] == [0]
    assert "the joint axis of t1_joint is zero" in str(found[0])
    assert found[0].fix == "a non-zero <axis><xyz> in joint t1_joint, along the thruster's push"


def test_svg_outline_has_a_bow_ahead_of_the_origin_and_labels_the_expected(
    tmp_path: Path,
) -> None:
    """The boat's two stern thrusters and the origin made a triangle whose tip was the model
    origin; the outline is now the hull of the actuators and a bow marker ahead of both."""
    import xml.etree.ElementTree as ET

    result = run(boat(tmp_path, "p"), {"SERVO1_FUNCTION": 74.0, "SERVO3_FUNCTION": 73.0}, "Rover")
    svg = ET.fromstring("\n".join(render_svg("boat", result.geometry)).encode())
    ns = "{http://www.w3.org/2000/svg}"
    hull = [
        tuple(float(c) for c in point.split(","))
        for point in svg.find(f"{ns}polygon").get("points").split()  # type: ignore[union-attr]
    ]
    origin = next(c for c in svg.iter(f"{ns}circle") if c.get("r") == "5")
    origin_y = float(origin.get("cy", "0"))
    assert len(hull) == 3
    tip = min(hull, key=lambda p: p[1])
    assert tip[1] < origin_y - 50  # the nose is well ahead (up the page) of the origin
    texts = [t.text for t in svg.iter(f"{ns}text")]
    assert "bow" in texts
    assert "geometry: ThrottleLeft (73)" not in texts  # no metadata: plain numbers
    assert "geometry: 73" in texts and "geometry: 74" in texts
    # A rotor spinning the wrong way shows both spins.
    quad_result = run(quad(tmp_path / "q", {**GOOD_SIGNS, "rotor_fr": -1}), QUAD, "ArduCopter")
    quad_svg = "\n".join(render_svg("quad", quad_result.geometry))
    assert ">CW, expected CCW</text>" in quad_svg
    assert quad_svg.count("expected") == 1


def test_sdf_numbers_past_any_model_are_refused(tmp_path: Path) -> None:
    """Before: <xyz>0 0 1e308</xyz> overflowed the geometry: exit 3."""
    model = write(
        tmp_path / "m/model.sdf",
        '<sdf version="1.9"><model name="m">\n<link name="a"/>\n'
        '<joint name="j" type="revolute"><parent>a</parent><child>a</child>\n'
        "<axis><xyz>0 0 1e308</xyz></axis></joint></model></sdf>",
    )
    with pytest.raises(InputError, match="each within"):
        load_model(model.read_bytes(), model.as_posix(), local_resolver({}))
