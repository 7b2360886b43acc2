"""Inputs that are not what they claim (issue 19, "also seen"): includes that name no file, a
directory, a FIFO or a symlink loop; SDF models that are binary or UTF-16; two plugin blocks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import run_cli

from paramdiff.errors import InputError, quote
from paramdiff.parse.any import parse_any


def _show_error(path: Path) -> str:
    result = run_cli(["show", str(path)])
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("Error: ")
    return result.output.rstrip("\n")


@pytest.mark.parametrize(
    ("target", "make", "what"),
    [
        ("", None, "%include '' names no file — write the path of the file to include"),
        ("  ", None, "%include '  ' names no file — write the path of the file to include"),
        (".", None, "%include '.' ({d}): is a directory, not a regular file"),
        ("sub", "dir", "%include 'sub' ({d}/sub): is a directory, not a regular file"),
        ("pipe", "fifo", "%include 'pipe' ({d}/pipe): is a FIFO (named pipe), not a regular file"),
        ("loop", "loop", "%include 'loop' ({d}/loop): is a symlink loop (ELOOP"),
        ("gone", "dangling", "%include 'gone' ({d}/gone): "),
        ("nope.params", None, "%include 'nope.params' ({d}/nope.params): cannot read the file"),
    ],
)
def test_an_include_that_cannot_be_read_names_the_including_line(
    target: str, make: str | None, what: str, tmp_path: Path
) -> None:
    (tmp_path / ".git").mkdir()  # the include root
    if make == "dir":
        (tmp_path / "sub").mkdir()
    elif make == "fifo":
        os.mkfifo(tmp_path / "pipe")
    elif make == "loop":
        os.symlink("loop", tmp_path / "loop")
    elif make == "dangling":
        os.symlink("nowhere", tmp_path / "gone")
    top = tmp_path / "top.params"
    top.write_text(f'// BlueOS\nSERVO1_MIN: 1100,\n%include "{target}"\n')
    line = _show_error(top)
    expected = what.format(d=tmp_path)
    if "({d}" in what:  # the path is quoted as all input is: at most 80 characters (xdist's
        start = what.index("({d}") + 1  # temporary paths are long enough to be cut)
        path = what[start : what.index(")", start)].format(d=tmp_path)
        expected = expected.replace(path, quote(path))
    assert line.startswith(f"Error: {top}:3: " + expected.split("{")[0])


def test_a_file_named_on_the_command_line_says_symlink_loop(tmp_path: Path) -> None:
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    assert _show_error(tmp_path / "a") == (
        f"Error: {tmp_path}/a: is a symlink loop (ELOOP: the links lead back to themselves) "
        "— point the link at a real file"
    )
    os.symlink("missing.params", tmp_path / "dangling")
    assert _show_error(tmp_path / "dangling") == (
        f"Error: {tmp_path}/dangling: is a symlink to missing.params, which does not exist "
        "— point the link at a real file"
    )
    assert (
        _show_error(tmp_path / "absent")
        == f"Error: {tmp_path}/absent: no such file — check the path"
    )


MODEL = (
    '<?xml version="1.0"?>\n<sdf version="1.9"><model name="m">\n'
    '<plugin filename="ArduPilotPlugin" name="ap">\n'
    '<control channel="0"><jointName>j</jointName></control>\n'
    "</plugin></model></sdf>\n"
)


@pytest.mark.parametrize("name", ["model.sdf", "model"])  # by extension, and by content
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_utf16_model_gets_an_sdf_error(name: str, encoding: str) -> None:
    with pytest.raises(InputError) as err:
        parse_any(MODEL.encode(encoding), name)
    assert str(err.value) == (
        f"{name}:1: SDF model is UTF-16 text; paramdiff reads SDF models as UTF-8 XML — save "
        'the model as UTF-8 (and say encoding="UTF-8" in its <?xml?> line, if any)'
    )


@pytest.mark.parametrize("name", ["model.sdf", "model"])
def test_a_nul_byte_in_a_model_gets_an_sdf_error(name: str) -> None:
    data = MODEL.replace("<control", "\0<control").encode()
    with pytest.raises(InputError) as err:
        parse_any(data, name)
    assert str(err.value) == (
        f"{name}:4: NUL byte in an SDF model (binary data, not XML text) — pass the model's "
        ".sdf text file"
    )


def test_other_model_bytes_get_sdf_errors() -> None:
    with pytest.raises(InputError, match=r"^m\.sdf:1: SDF file is empty"):
        parse_any(b" \n", "m.sdf")
    with pytest.raises(InputError, match=r"^m\.sdf:3: SDF model is not UTF-8 text"):
        parse_any(MODEL.replace('name="ap"', 'name="\xe9"').encode("latin-1"), "m.sdf")
    assert parse_any(MODEL.encode("utf-8-sig"), "m.sdf").format == "sdf"


def test_a_utf16_params_file_is_named_so() -> None:
    with pytest.raises(InputError) as err:
        parse_any("SERVO1_MIN 1100\n".encode("utf-16"), "x.params")
    assert str(err.value).startswith("x.params:1: UTF-16 text, not a parameter file")


def test_a_second_plugin_block_is_refused_at_its_line() -> None:
    second = '<plugin name="ArduPilotPlugin" filename="libArduPilotPlugin.so">\n</plugin>\n'
    data = MODEL.replace("</model>", second + "</model>").encode()
    with pytest.raises(InputError) as err:
        parse_any(data, "m.sdf")
    assert str(err.value) == (
        "m.sdf:5: a second ArduPilotPlugin block (the first at line 3); Gazebo runs each as "
        "its own plugin, driven by its own SITL — keep one ArduPilotPlugin in the model "
        "paramdiff compares (one model per vehicle)"
    )
