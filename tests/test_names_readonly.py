"""Names as ArduPilot matches them (issue 19 item 12) and ``NAME VALUE @READONLY`` (item 13).

ArduPilot: libraries/AP_Param/AP_Param.cpp at ardupilot@00bc48841c2292adefdc6b536344d3da0eb9018c.
``AP_Param::find`` compares a group's prefix with strncmp (and a Vector3f's _X/_Y/_Z
exactly), so ``servo1_function 74`` sets nothing; ``parse_param_line`` reads a third token
and compares it with strcmp against "@READONLY".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import (
    HW,
    OVERLAY_YAML,
    SOURCES_YAML,
    build_mirror,
    location_args,
    run_cli,
    small_upstream,
    tree_bytes,
)

from paramdiff.errors import InputError
from paramdiff.parse.loaders import LOADERS, ardupilot_defaults, mavproxy_param_load
from paramdiff.parse.param_text import parse_params

QGC_HEAD = "# Onboard parameters for Vehicle 1\n"
CASE_FORMATS = {
    "params": ("{name} 74\n", 1),
    "mp": ("{name},74\n", 1),
    "qgc": (QGC_HEAD + "1\t1\t{name}\t74\t9\n", 2),
    "blueos": ("// BlueOS\n{name}: 74,\n", 2),
}
NAMES = ["servo1_function", "Servo1_Function", "SERVO1_function", "sERVO1_FUNCTION"]


@pytest.mark.parametrize("fmt", list(CASE_FORMATS))
@pytest.mark.parametrize("name", NAMES)
def test_a_name_that_is_not_upper_case_is_an_input_error(fmt: str, name: str) -> None:
    template, line = CASE_FORMATS[fmt]
    data = template.format(name=name).encode()
    with pytest.raises(InputError) as err:
        parse_params(data, "x.params", fmt)
    assert str(err.value) == (
        f"x.params:{line}: name '{name}' is not upper-case; ArduPilot matches parameter names "
        "case-sensitively (AP_Param::find) and ignores this line — write it as SERVO1_FUNCTION"
    )


@pytest.mark.parametrize("fmt", list(CASE_FORMATS))
def test_lenient_warns_and_reads_nothing_for_that_line(fmt: str) -> None:
    template, line = CASE_FORMATS[fmt]
    data = (template.format(name="servo1_function") + "").encode()
    if fmt == "qgc":
        data += b"1\t1\tSERVO1_MIN\t1100\t4\n"
    elif fmt == "blueos":
        data += b"SERVO1_MIN: 1100,\n"
    else:
        data += b"SERVO1_MIN 1100\n"
    got = parse_params(data, "x.params", fmt, lenient=True)
    assert list(got.params) == ["SERVO1_MIN"]  # never read as SERVO1_FUNCTION
    assert [(w.line, w.message.split(";")[0]) for w in got.warnings] == [
        (line, "name 'servo1_function' is not upper-case")
    ]


def test_the_cli_refuses_it_and_lenient_shows_the_warning(tmp_path: Path) -> None:
    path = tmp_path / "x.params"
    path.write_text("SERVO1_MIN 1100\nservo1_function 74\n")
    strict = run_cli(["show", str(path)])
    assert strict.exit_code == 2
    assert strict.output == (
        f"Error: {path}:2: name 'servo1_function' is not upper-case; ArduPilot matches "
        "parameter names case-sensitively (AP_Param::find) and ignores this line — write it "
        "as SERVO1_FUNCTION\n"
    )
    lenient = run_cli(["show", "--lenient", str(path)])
    assert lenient.exit_code == 0
    assert "SERVO1_FUNCTION" not in lenient.stdout.split("Warnings:")[0]
    assert f"{path}:2: name 'servo1_function' is not upper-case" in lenient.stdout


def test_ardupilots_loader_skips_a_name_that_is_not_upper_case() -> None:
    got = ardupilot_defaults(b"servo1_function 74\nSERVO1_MIN 1100\nCompass_ofs_x 3\n")
    assert list(got.values) == ["SERVO1_MIN"]
    assert [n for n, _ in got.skipped] == [1, 3]


def test_the_loaders_agree_on_case() -> None:
    """Every loader keeps the name as written (pymavlink's dict, Mission Planner's and QGC's
    maps) or refuses it (Methodic Configurator's ^[A-Z][A-Z_0-9]*$); none uppercases it."""
    data = b"servo1_function 74\n"
    for key, load in LOADERS.items():
        got = load(data)
        assert "SERVO1_FUNCTION" not in got.values, key


# --------------------------------------------------------------------------- @READONLY


def test_readonly_is_read_and_kept_on_the_row() -> None:
    data = (
        b"SERVO1_FUNCTION 74 @READONLY\n"
        b"SERVO1_MIN,1100,@READONLY # from the board\n"
        b"SERVO1_MAX=1900\t@READONLY\n"
        b"SERVO1_TRIM 1500\n"
    )
    got = parse_params(data, "x.params")
    assert {n: p.read_only for n, p in got.params.items()} == {
        "SERVO1_FUNCTION": True,
        "SERVO1_MIN": True,
        "SERVO1_MAX": True,
        "SERVO1_TRIM": False,
    }
    assert got.params["SERVO1_MIN"].comment == "from the board"
    # ArduPilot reads the same lines the same way.
    loaded = ardupilot_defaults(data)
    assert {n: v.read_only for n, v in loaded.values.items()} == {
        n: p.read_only for n, p in got.params.items()
    }


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "SERVO1_MIN 1100 @readonly",
            "'@readonly' is not ArduPilot's read-only flag (it compares the exact text "
            "@READONLY) and would load the value as writable — write @READONLY",
        ),
        (
            "SERVO1_MIN 1100 @ReadOnly",
            "'@ReadOnly' is not ArduPilot's read-only flag (it compares the exact text "
            "@READONLY) and would load the value as writable — write @READONLY",
        ),
        (
            "SERVO1_MIN 1100 @READONLY extra",
            "unexpected text after the value: '@READONLY extra' — remove it, or put it after a "
            "# as a comment (ArduPilot ignores it silently; only a single @READONLY is read)",
        ),
        (
            "SERVO1_MIN 1100 READONLY",
            "unexpected text after the value: 'READONLY' — remove it, or put it after a "
            "# as a comment (ArduPilot ignores it silently; only a single @READONLY is read)",
        ),
    ],
)
def test_anything_else_after_the_value_is_an_input_error(line: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        parse_params(f"SERVO1_MAX 1900\n{line}\n".encode(), "x.params")
    assert str(err.value) == f"x.params:2: {message}"


def test_show_diff_and_json_mark_a_read_only_value(tmp_path: Path) -> None:
    ro = tmp_path / "ro.params"
    ro.write_text("SERVO1_FUNCTION 74 @READONLY\nSERVO1_MIN 1100\n")
    other = tmp_path / "other.params"
    other.write_text("SERVO1_FUNCTION 74\nSERVO1_MIN 1000\n")
    shown = run_cli(["show", str(ro)])
    assert shown.exit_code == 0
    rows = {line.split()[0]: line.split()[1:] for line in shown.stdout.splitlines() if line}
    assert rows["SERVO1_FUNCTION"][:2] == ["74", "[RO]"]
    assert rows["SERVO1_MIN"][:2] == ["1100", "set"]
    diffed = run_cli(["diff", str(ro), str(other)])
    rows = {line.split()[0]: line.split()[1:] for line in diffed.stdout.splitlines() if line}
    assert rows["SERVO1_FUNCTION"][:4] == ["74", "[RO]", "74", "same"]
    as_json = run_cli(["show", "--format", "json", str(ro)])
    doc = json.loads(as_json.stdout)
    by_name = {p["name"]: p["values"]["ro.params"] for p in doc["parameters"]}
    assert by_name["SERVO1_FUNCTION"]["read_only"] is True
    assert "read_only" not in by_name["SERVO1_MIN"]


def test_a_two_field_loader_would_drop_the_flagged_line() -> None:
    """Why the derived file never carries the flag: MAVProxy skips a three-word line."""
    assert mavproxy_param_load(b"SERVO1_MIN 1100 @READONLY\n").values == {}


def test_derive_writes_a_read_only_value_as_name_value(tmp_path: Path) -> None:
    upstream = small_upstream()
    files = upstream["acme/params"]["files"]
    assert isinstance(files, dict)
    for commit in files:
        files[commit]["boats/hw.params"] = HW.replace(
            b"SERVO3_MAX       1900", b"SERVO3_MAX       1900 @READONLY"
        )
    build_mirror(tmp_path / "mirror", upstream)
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    (root / "sources.yaml").write_text(SOURCES_YAML)
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    loc = location_args(root, tmp_path / "cache", tmp_path / "mirror")
    assert run_cli(["fetch", *loc]).exit_code == 0
    derived = run_cli(["derive", *loc])
    assert derived.exit_code == 0, derived.output
    text = (root / "derived" / "boat_sitl.params").read_text()
    assert "@READONLY\n" not in text.replace("NAME VALUE @READONLY;", "")
    assert "\nSERVO3_MAX 1900\n" in text
    assert "# Read-only in the shipped file (NAME VALUE @READONLY; written here as NAME" in text
    assert "SERVO3_MAX." in text.split("Read-only in the shipped file")[1].split("\n\n")[0]
    for key, load in LOADERS.items():
        assert load(text.encode()).values["SERVO3_MAX"].value == 1900.0, key
    before = tree_bytes(root)
    checked = run_cli(["check", "-v", *loc])
    assert "derived/boat_sitl.params: the same 15 values in all 6 real loaders" in checked.output
    assert tree_bytes(root) == before


@pytest.mark.parametrize(
    "line", ["SERVO1_TRIM 1500 @READONLY#x", "SERVO1_TRIM 1500#c @READONLY", "X_Y 1,@READONLY#"]
)
def test_a_hash_that_makes_ardupilot_read_the_flag_otherwise_is_refused(line: str) -> None:
    """ArduPilot's parse_param_line has no inline comments: where a '#' touching a token
    changes whether the third token is @READONLY, the line reads two ways."""
    from paramdiff.errors import InputError
    from paramdiff.parse.param_text import parse_params

    data = (line + "\n").encode()
    with pytest.raises(InputError, match="put a space before the #"):
        parse_params(data, "x.params", "params")
