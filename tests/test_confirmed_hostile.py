"""Confirmed in SITL, attacked: a verification record is a file a pull request can change and
a vehicle's answers are bytes off a socket, so every field of both is untrusted input. Each
hostile record or vehicle here is one `Error: verified/<profile>-<pin>.json:<line>: …` line
(exit 2, no traceback) or is shown as visible text — never a terminal escape, a broken
markdown line or a second workflow command. Over the tests' MAVLink vehicle on 127.0.0.1 and
the small offline project (test_confirmed.py's fixture)."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import run_cli
from mavlink_vehicle import Vehicle
from test_confirmed import FAST, RECORD, REPORT, boat, section, served, verify

from paramdiff.derive.record import Firmware, make_record, parse_record, record_text

__all__ = ["boat"]  # the fixture, used by name

ESC = "\x1b"
HOSTILE = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\u202e\n## 15 of 15 confirmed\r\n::warning::x"


def _recorded(root: Path, loc: list[str]) -> dict[str, object]:
    result = verify(Vehicle(served(root, loc)), loc)
    assert result.exit_code == 0, result.output
    return json.loads((root / RECORD).read_text())  # type: ignore[no-any-return]


def _rewrite(root: Path, change: dict[str, object]) -> None:
    """The record with top-level fields replaced, in the tool's own layout otherwise."""
    text = (root / RECORD).read_text()
    lines = text.splitlines()
    for key, value in change.items():
        (i,) = [n for n, ln in enumerate(lines) if ln.startswith(f'  "{key}": ')]
        lines[i] = f"  {json.dumps(key)}: {json.dumps(value)},"
    (root / RECORD).write_text("\n".join(lines) + "\n")


def _one_error(result: object, line: int | None = None) -> str:
    assert result.exit_code == 2, result.output  # type: ignore[attr-defined]
    (error,) = result.stderr.splitlines()  # type: ignore[attr-defined]
    prefix = f"Error: {RECORD}:" if line is None else f"Error: {RECORD}:{line}: "
    assert error.startswith(prefix), error
    assert "Traceback" not in result.output  # type: ignore[attr-defined]
    return error


# --------------------------------------------------------------------------- the vehicle's bytes


def test_a_vehicle_reporting_escapes_in_its_git_hash_records_them_visibly(
    boat: tuple[Path, list[str]],
) -> None:
    """flight_custom_version is 8 raw bytes (GCS_Common.cpp send_autopilot_version copies
    fw_hash_str, 8 hex digits): anything else is recorded as visible escapes, so neither the
    record, verify's line, the report nor check's annotation carries a control character."""
    root, loc = boat
    vehicle = Vehicle(served(root, loc), git_hash=b"\x1b[2J\n#\x9b\xff")
    result = verify(vehicle, loc)
    assert result.exit_code == 0, result.output
    record = json.loads((root / RECORD).read_text())
    assert record["vehicle"]["git_hash"] == "\\x1b[2J\\x0a#\\x9b\\xff"
    assert ESC not in result.stdout
    assert run_cli(["report", *loc]).exit_code == 0
    shown = section((root / REPORT).read_text())
    (summary,) = [ln for ln in shown.splitlines() if "values confirmed" in ln]
    assert "V4.7.0-beta (\\x1b[2J\\x0a#\\x9b\\xff), 20" in summary and summary.endswith(".**")
    checked = run_cli(["check", "-v", "--format", "github", "--require-confirmed", *loc])
    assert checked.exit_code == 0, checked.output
    assert ESC not in checked.output and "\\x0a#" in checked.stdout


def test_a_printable_git_hash_is_recorded_as_sent(boat: tuple[Path, list[str]]) -> None:
    root, loc = boat
    result = verify(Vehicle(served(root, loc), git_hash=b"abc1234\0"), loc)
    assert result.exit_code == 0, result.output
    assert json.loads((root / RECORD).read_text())["vehicle"]["git_hash"] == "abc1234"


# --------------------------------------------------------------------------- a hostile record


@pytest.mark.parametrize("key", ["launch", "connection", "vehicle", "layers", "derived"])
def test_control_characters_in_a_records_text_are_refused(
    boat: tuple[Path, list[str]], key: str
) -> None:
    """No record paramdiff writes holds one (the vehicle's bytes are escaped as they come
    in): a record that does was written by hand to put it in the report or a terminal."""
    root, loc = boat
    record = _recorded(root, loc)
    value: object = HOSTILE
    if key == "vehicle":
        value = {**record["vehicle"], "version": "4.7.0" + HOSTILE}  # type: ignore[dict-item]
    elif key == "layers":
        value = ["rover.parm", HOSTILE]
    elif key == "derived":
        value = {**record["derived"], "file": "derived/" + HOSTILE}  # type: ignore[dict-item]
    _rewrite(root, {key: value})
    line = (
        (root / RECORD)
        .read_text()
        .splitlines()
        .index(
            next(
                ln for ln in (root / RECORD).read_text().splitlines() if ln.startswith(f'  "{key}"')
            )
        )
    )
    for command in (["report"], ["check"], ["check", "--format", "github"]):
        result = run_cli([*command, *loc])
        error = _one_error(result, line + 1)
        assert "not printable" in error and ESC not in result.output
        assert "::warning" not in result.stdout


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("version", "4.7.0 <img src=https://example.com/p.png>"),
        ("git_hash", "1a2b3c4d **and 9 more confirmed**"),
        ("frame", "ArduRover V4.8.0 (ffffffff), 2027"),
        ("firmware", "ArduRover V4.8.0"),
    ],
)
def test_vehicle_fields_are_only_what_a_vehicle_reports(
    boat: tuple[Path, list[str]], key: str, value: str
) -> None:
    """The report's summary line is built from them: a record cannot put markup or a banner
    of its own there."""
    root, loc = boat
    record = _recorded(root, loc)
    _rewrite(root, {"vehicle": {**record["vehicle"], key: value}})  # type: ignore[dict-item]
    lines = (root / RECORD).read_text().splitlines()
    line = next(n for n, ln in enumerate(lines, 1) if ln.startswith('  "vehicle"'))
    error = _one_error(run_cli(["report", *loc]), line)
    assert f"'vehicle' {key!r} is" in error and "not as the vehicle reports it" in error


def test_a_launch_with_backticks_stays_one_code_span(boat: tuple[Path, list[str]]) -> None:
    root, loc = boat
    _recorded(root, loc)
    _rewrite(root, {"launch": "sim_vehicle.py -v Rover ` ![x](https://example.com/p.png) ``"})
    assert run_cli(["report", *loc]).exit_code == 0
    shown = section((root / REPORT).read_text())
    assert (
        "launched with ``` sim_vehicle.py -v Rover ` ![x](https://example.com/p.png) `` ```;"
        in (shown)
    )


def test_a_duplicate_key_is_refused_on_its_second_line(boat: tuple[Path, list[str]]) -> None:
    """JSON keeps the last of two equal keys, a reviewer reads the first: refused."""
    root, loc = boat
    _recorded(root, loc)
    lines = (root / RECORD).read_text().splitlines()
    at = lines.index('  "profile": "boat",')
    lines.insert(at + 2, '  "profile": "boat",')
    (root / RECORD).write_text("\n".join(lines) + "\n")
    error = _one_error(run_cli(["check", *loc]), at + 3)
    assert "'profile' twice" in error


def test_a_parameter_recorded_twice_is_refused(boat: tuple[Path, list[str]]) -> None:
    root, loc = boat
    _recorded(root, loc)
    lines = (root / RECORD).read_text().splitlines()
    row = next(n for n, ln in enumerate(lines) if ln.startswith('    "SERVO1_FUNCTION"'))
    # a second row of the same name, further down, that says the vehicle ran 73
    lines.insert(row + 3, lines[row].replace('"read": 74', '"read": 73').replace("true", "false"))
    (root / RECORD).write_text("\n".join(lines) + "\n")
    error = _one_error(run_cli(["report", *loc]), row + 4)
    assert "'SERVO1_FUNCTION' twice" in error


def test_deeply_nested_json_is_an_error_not_a_traceback(boat: tuple[Path, list[str]]) -> None:
    root, loc = boat
    _recorded(root, loc)
    (root / RECORD).write_text("[" * 200_000 + "]" * 200_000)
    error = _one_error(run_cli(["check", *loc]), 1)
    assert "nested" in error


def test_a_record_over_the_size_limit_is_refused_unread(boat: tuple[Path, list[str]]) -> None:
    root, loc = boat
    _recorded(root, loc)
    with (root / RECORD).open("a") as f:
        f.write(" " * (2 << 20))
    error = _one_error(run_cli(["report", *loc]))
    assert "over paramdiff's input limit" in error


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('"expected": 74,', '"expected": 1' + "0" * 60 + ",", "past what a float32"),
        ('"expected": 74,', '"expected": 1' + "0" * 400 + ",", "integer of 401 digits"),
        ('"read": 74,', '"read": 1e39,', "'read' is 1e+39, past what a float32"),
        ('"read": 74,', '"read": "74",', "'read' must be a number"),
        ('"read": 74,', '"read": true,', "'read' must be a number"),
        ('"expected": 74,', '"expected": Infinity,', "Infinity is not a number a vehicle"),
        ('"expected": 74,', '"expected": -1e999,', "-Infinity is not a number a vehicle"),
        ('"read": 74,', '"read": -1' + "1" * 5000 + ",", "'read' is an integer of 5001 digits"),
    ],
    ids=[
        "int-over-float32",
        "int-over-double",
        "over-float32",
        "string",
        "bool",
        "infinity",
        "overflow",
        "digits",
    ],
)
def test_numbers_a_vehicle_cannot_hold_are_refused_on_their_line(
    boat: tuple[Path, list[str]], old: str, new: str, message: str
) -> None:
    root, loc = boat
    _recorded(root, loc)
    text = (root / RECORD).read_text()
    line = next(n for n, ln in enumerate(text.splitlines(), 1) if '"SERVO1_FUNCTION"' in ln)
    (root / RECORD).write_text(text.replace(old, new, 1))
    error = _one_error(run_cli(["check", *loc]), line)
    assert message in error


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("profile", None, "of profile None"),
        ("pin", 1.0, "of pin 1.0"),
        ("layers", "rover.parm", "'layers' must be a list"),
        ("launch", 7, "'launch' must be a string"),
        ("lock_sha256", "", "'lock_sha256' must hold a sha256"),
        ("vehicle", [], "'vehicle' must be an object"),
        ("params", [], "'params' must be an object"),
        ("summary", None, "'summary' says null"),
    ],
)
def test_a_field_of_the_wrong_type_is_an_error_on_its_line(
    boat: tuple[Path, list[str]], key: str, value: object, message: str
) -> None:
    root, loc = boat
    _recorded(root, loc)
    if key in ("params", "summary"):
        text = (root / RECORD).read_text()
        head = text.split(f'  "{key}": ', 1)[0]
        rest = '  "params": {}\n}\n' if key == "summary" else ""
        body = f'  "{key}": {json.dumps(value)}' + (",\n" if rest else "\n}\n")
        if key == "params":
            head = head.replace('"confirmed": 15', '"confirmed": 0')
        (root / RECORD).write_text(head + body + rest)
    else:
        _rewrite(root, {key: value})
    lines = (root / RECORD).read_text().splitlines()
    line = next(n for n, ln in enumerate(lines, 1) if ln.startswith(f'  "{key}"'))
    error = _one_error(run_cli(["check", *loc]), line)
    assert message in error


def test_what_the_writer_records_its_reader_takes_back() -> None:
    """A launch, connection, layer or firmware text given with control characters (a
    --launch from a script, a vehicle of another autopilot), and no sources.lock, are
    recorded so that every record the writer makes is one its reader takes."""
    firmware = Firmware(None, "MAV_TYPE 200", "4.7.0", "\\x1b[2J")  # as pull makes them
    record = make_record(
        profile="boat",
        pin="1.0",
        derived_file="derived/boat\tsitl.params",
        derived_sha256="0" * 64,
        derived={"WP_RADIUS": 1.0},
        lock_sha256=None,  # no sources.lock: null (the reader refuses "")
        launch="sim_vehicle.py -m '\x1b]52;c;x\x07\n#'",
        layers=["rover.parm\r"],
        connection="tcp:127.0.0.1:5760\x00",
        time="2026-12-02T07:25:36Z",
        firmware=firmware,
        running={"WP_RADIUS": 1.0},
    )
    text = record_text(record)
    written = json.loads(text)
    assert written["launch"].isprintable() and written["layers"][0].isprintable()
    back = parse_record(text.encode(), RECORD, "boat", "1.0")
    assert back == replace(record, file=RECORD)
    assert back.launch == "sim_vehicle.py -m '\\x1b]52;c;x\\x07\\n#'"
    assert back.firmware.label == "MAV_TYPE 200 V4.7.0 (\\x1b[2J)"
    assert back.lock_sha256 is None and '  "lock_sha256": null,' in text.splitlines()
    assert back.derived_file == "derived/boat\\tsitl.params"
    assert back.layers == ("rover.parm\\r",)
    assert back.connection == "tcp:127.0.0.1:5760\\x00"


# --------------------------------------------------------------------------- verified/ itself


@pytest.mark.parametrize("kind", ["file", "fifo", "dir-link-out", "record-dir", "record-fifo"])
def test_verified_that_is_not_a_folder_of_records_is_one_error(
    boat: tuple[Path, list[str]], tmp_path: Path, kind: str
) -> None:
    """verify --record is refused before it connects (nothing listens on the port), check and
    report say what is there: one Error line, nothing written anywhere."""
    root, loc = boat
    verified = root / "verified"
    outside = tmp_path / "outside"
    outside.mkdir()
    if kind == "file":
        verified.write_text("not a folder\n")
    elif kind == "fifo":
        os.mkfifo(verified)
    elif kind == "dir-link-out":
        verified.symlink_to(outside, target_is_directory=True)
    else:
        verified.mkdir()
        if kind == "record-dir":
            (root / RECORD).mkdir()
        else:
            os.mkfifo(root / RECORD)
    result = run_cli(["verify", "tcp:127.0.0.1:9", "--record", *FAST, *loc])
    assert result.exit_code == 2, result.output
    (error,) = result.stderr.splitlines()
    assert error.startswith("Error: verified"), error
    assert "Traceback" not in result.output and not list(outside.iterdir())
    for command in ("check", "report"):
        result = run_cli([command, *loc])
        assert result.exit_code == 2, result.output
        (error,) = result.stderr.splitlines()
        assert error.startswith("Error: verified"), error


# --------------------------------------------------------------------------- records that lie


def test_a_record_whose_expected_disagrees_with_the_file_it_names_is_an_error(
    boat: tuple[Path, list[str]],
) -> None:
    """The sha256 is the current derived file's, but a row's 'expected' was edited (and its
    read and matched with it, so the record parses): verify never writes that."""
    root, loc = boat
    _recorded(root, loc)
    text = (root / RECORD).read_text()
    edited = text.replace(
        '"SERVO1_TRIM": {"expected": 1500, "read": 1500,',
        '"SERVO1_TRIM": {"expected": 1490, "read": 1490,',
    )
    assert edited != text
    (root / RECORD).write_text(edited)
    (line,) = [n for n, ln in enumerate(edited.splitlines(), 1) if '"SERVO1_TRIM"' in ln]
    error = _one_error(run_cli(["check", *loc]), line)
    assert "SERVO1_TRIM: 'expected' is 1490, but derived/boat_sitl.params" in error
    assert "holds 1500: the record is not what verify wrote" in error
    assert f"(or delete {RECORD})" in error


def test_a_record_of_a_pin_the_profile_lacks_is_warned_about(
    boat: tuple[Path, list[str]],
) -> None:
    root, loc = boat
    _recorded(root, loc)
    orphan = root / "verified/boat-9.9.json"
    orphan.write_text((root / RECORD).read_text().replace('"pin": "1.0"', '"pin": "9.9"'))
    assert run_cli(["report", *loc]).exit_code == 0  # the new record is in the report
    result = run_cli(["check", *loc])
    assert result.exit_code == 0, result.output
    (warning,) = [ln for ln in result.stdout.splitlines() if "boat-9.9" in ln]
    assert warning.startswith("warn  verified/boat-9.9.json is no pin's verification record")
    assert "delete it (git rm verified/boat-9.9.json)" in warning
    orphan.unlink()
    assert "boat-9.9" not in run_cli(["check", *loc]).stdout
