"""Confirmed in SITL: `verify --record` against the tests' MAVLink vehicle (TCP on 127.0.0.1,
lossy and not) serving the derived values, the record it writes, the report's marks, check's
stale-record rule and review's note. The small offline project (frame defaults and
metadata, no ../shared)."""

from __future__ import annotations

import json
from pathlib import Path

import git
import pytest
from helpers import C1, run_cli
from mavlink_vehicle import MAV_PARAM_TYPE_REAL32, Faults, Vehicle, tcp_vehicle
from test_offline_project import fetched_offline_project

from paramdiff.derive.record import (
    CONFIRMED,
    DIFFERS,
    NOT_SEEN,
    Firmware,
    firmware_name,
    parse_record,
    record_text,
)
from paramdiff.errors import InputError
from paramdiff.jobs.verify import expected
from paramdiff.pin import Pin
from paramdiff.project import Project

RECORD = "verified/boat-1.0.json"
REPORT = "reports/boat-1.0.md"
LOSSY = Faults(drop=0.3, duplicate=0.2, reorder=True, seed=7)
FAST = ["--timeout", "30"]


@pytest.fixture
def boat(tmp_path: Path) -> tuple[Path, list[str]]:
    """The offline project, fetched, derived and reported."""
    root, loc = fetched_offline_project(tmp_path)
    for command in ("derive", "report"):
        result = run_cli([command, *loc])
        assert result.exit_code == 0, result.output
    return root, loc


def served(root: Path, loc: list[str]) -> dict[str, tuple[float, int]]:
    """What a SITL that runs the launch holds: every layer's winning value, and one
    parameter of the firmware's own."""
    options = Project(root=root, cache_dir=Path(loc[3]), mirror=loc[5])
    stack, _ = expected(Pin(options, None, None), None)
    params = {n: (e.param.value, MAV_PARAM_TYPE_REAL32) for n, e in stack.effective.items()}
    return params | {"STAT_BOOTCNT": (3.0, 4)}


def verify(vehicle: Vehicle, loc: list[str], *extra: str) -> object:
    with tcp_vehicle(vehicle) as connection:
        return run_cli(["verify", connection, "--record", *FAST, *loc, *extra])


def section(report: str) -> str:
    return report.split("## Confirmed in SITL", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("faults", [Faults(), LOSSY], ids=["clean", "lossy"])
def test_a_sitl_serving_the_derived_values_is_confirmed_row_by_row(
    boat: tuple[Path, list[str]], faults: Faults
) -> None:
    root, loc = boat
    before = (root / REPORT).read_bytes()
    result = verify(Vehicle(served(root, loc), faults=faults), loc)
    assert result.exit_code == 0, result.output
    assert (
        f"recorded {RECORD}: 15 of 15 values confirmed in SITL on ArduRover V4.7.0-beta "
        "(1a2b3c4d), 20"
    ) in result.stdout
    record = json.loads((root / RECORD).read_text())
    assert record["profile"] == "boat" and record["pin"] == "1.0"
    derived = (root / "derived/boat_sitl.params").read_bytes()
    import hashlib

    assert record["derived"]["sha256"] == hashlib.sha256(derived).hexdigest()
    assert record["lock_sha256"] == hashlib.sha256((root / "sources.lock").read_bytes()).hexdigest()
    assert record["vehicle"] == {
        "firmware": "ArduRover",
        "frame": "MAV_TYPE_SURFACE_BOAT",
        "version": "4.7.0-beta",
        "git_hash": "1a2b3c4d",
    }
    assert record["layers"] == ["rover.parm", "rover-skid.parm", "derived/boat_sitl.params"]
    assert record["summary"] == {"confirmed": 15, "differs": 0, "not_seen": 0}
    assert record["params"]["MOT_THST_ASYM"] == {"expected": 1.6, "read": 1.6, "matched": True}
    assert "STAT_BOOTCNT" not in record["params"]  # the firmware's own: not a derived row
    # one line per parameter: the record's diff in a pull request reads row by row
    assert '    "SERVO1_FUNCTION": {"expected": 74, "read": 74, "matched": true},' in (
        (root / RECORD).read_text().splitlines()
    )
    assert run_cli(["report", *loc]).exit_code == 0
    report = (root / REPORT).read_text()
    assert report != before.decode()
    assert "**15 of 15 values confirmed in SITL on ArduRover V4.7.0-beta (1a2b3c4d), 2026-" in (
        section(report)
    )
    assert "Not confirmed" not in section(report)
    rows = [ln for ln in section(report).splitlines() if ln.startswith("| `")]
    assert len(rows) == 15 and all(ln.endswith("| 🧪 confirmed |") for ln in rows)
    # the disagreements table gains the column
    assert "| derived | in SITL | consequence |" in report
    assert "| 1510 PWM | 🧪 confirmed |" in report  # SERVO3_TRIM's row
    assert run_cli(["check", *loc]).exit_code == 0
    assert run_cli(["check", "--require-confirmed", *loc]).exit_code == 0


def test_one_value_changed_on_the_vehicle_fails_and_the_row_differs(
    boat: tuple[Path, list[str]],
) -> None:
    root, loc = boat
    params = served(root, loc)
    params["SERVO1_FUNCTION"] = (73.0, 4)  # a stored value that survived
    result = verify(Vehicle(params), loc)
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("Error: SERVO1_FUNCTION runs 73")
    assert f"recorded {RECORD}: 14 of 15 values confirmed" in result.stdout
    record = json.loads((root / RECORD).read_text())
    assert record["params"]["SERVO1_FUNCTION"] == {"expected": 74, "read": 73, "matched": False}
    assert record["summary"] == {"confirmed": 14, "differs": 1, "not_seen": 0}
    assert run_cli(["report", *loc]).exit_code == 0
    shown = section((root / REPORT).read_text())
    assert "**14 of 15 values confirmed" in shown
    assert "Not confirmed: 1 differs, 0 not seen." in shown
    assert "| `SERVO1_FUNCTION` | 74 (ThrottleRight) | differs: runs 73 (ThrottleLeft) |" in shown
    warned = run_cli(["check", *loc])
    assert warned.exit_code == 0, warned.output
    assert "14 of 15 values confirmed in SITL" in warned.stdout and "warn" in warned.stdout
    failed = run_cli(["check", "--require-confirmed", *loc])
    assert failed.exit_code == 1 and "the others differ or were not seen" in failed.stderr


def test_a_parameter_the_vehicle_lacks_is_not_seen(boat: tuple[Path, list[str]]) -> None:
    root, loc = boat
    params = served(root, loc)
    del params["WP_RADIUS"]
    assert verify(Vehicle(params), loc).exit_code == 1
    record = json.loads((root / RECORD).read_text())
    assert record["params"]["WP_RADIUS"] == {"expected": 1, "read": None, "matched": False}
    assert run_cli(["report", *loc]).exit_code == 0
    assert "| `WP_RADIUS` | 1 m | not seen |" in section((root / REPORT).read_text())


def test_editing_the_overlay_after_recording_makes_the_record_stale(
    boat: tuple[Path, list[str]],
) -> None:
    root, loc = boat
    assert verify(Vehicle(served(root, loc)), loc).exit_code == 0
    overlay = root / "overlays/boat.yaml"
    overlay.write_text(overlay.read_text().replace("value: 1500", "value: 1490"))
    for command in ("derive", "report"):
        assert run_cli([command, *loc]).exit_code == 0
    warned = run_cli(["check", *loc])
    assert warned.exit_code == 0, warned.output
    (line,) = [ln for ln in warned.stdout.splitlines() if ln.startswith("warn") and RECORD in ln]
    assert f"{RECORD} is stale: it read back derived/boat_sitl.params with sha256" in line
    assert "paramdiff verify CONNECTION --profile boat --pin 1.0 --record" in line
    failed = run_cli(["check", "--require-confirmed", *loc])
    assert failed.exit_code == 1
    assert f"{RECORD} is stale" in failed.stderr
    shown = section((root / REPORT).read_text())
    assert "The record is **stale**" in shown
    # the changed trim was never seen live (no run read 1490): not seen, not "differs";
    # every other value was, and the summary says the record is of an earlier file
    assert "| `SERVO1_TRIM` | 1490 PWM | not seen |" in shown
    assert "differs: runs 1500" not in (root / REPORT).read_text()
    assert "**14 of 15 values confirmed in SITL on ArduRover V4.7.0-beta (1a2b3c4d), 20" in shown
    assert "(a record of an earlier derived file: 1 value changed since).**" in shown
    assert "Not confirmed: 0 differ, 1 not seen." in shown


def test_an_interrupted_read_writes_no_record(boat: tuple[Path, list[str]]) -> None:
    root, loc = boat
    result = verify(Vehicle(served(root, loc), faults=Faults(close_after=5)), loc)
    assert result.exit_code == 2
    assert "the vehicle closed the connection" in result.stderr
    assert not (root / "verified").exists() or not (root / RECORD).exists()
    # a record already there stays as it was
    assert verify(Vehicle(served(root, loc)), loc).exit_code == 0
    kept = (root / RECORD).read_bytes()
    lossy = Faults(drop=0.5, answer_reads=False, seed=3)
    result = verify(Vehicle(served(root, loc), faults=lossy), loc)
    assert result.exit_code == 2 and "did not arrive" in result.stderr
    assert (root / RECORD).read_bytes() == kept
    assert not [p.name for p in (root / "verified").iterdir() if p.name != "boat-1.0.json"]


def test_no_record_leaves_the_report_as_it_was_and_require_confirmed_fails(
    boat: tuple[Path, list[str]],
) -> None:
    root, loc = boat
    before = (root / REPORT).read_bytes()
    assert run_cli(["report", *loc]).exit_code == 0
    assert (root / REPORT).read_bytes() == before
    assert "Confirmed in SITL" not in before.decode() and "| in SITL |" not in before.decode()
    result = run_cli(["check", "--require-confirmed", *loc])
    assert result.exit_code == 1
    assert f"{RECORD}: no verification record of a running SITL" in result.stderr


def test_record_refused_while_the_derived_file_is_out_of_date(
    boat: tuple[Path, list[str]],
) -> None:
    """SITL loads the committed file: a record must name the file it ran. Refused before
    any connection is made (nothing listens on the port)."""
    root, loc = boat
    derived = root / "derived/boat_sitl.params"
    derived.write_text(derived.read_text() + "WP_SPEED 3\n")
    result = run_cli(["verify", "tcp:127.0.0.1:9", "--record", *loc])
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: derived/boat_sitl.params: is not what derive writes")
    assert not (root / "verified").exists()


@pytest.mark.parametrize(
    ("edit", "message", "line"),
    [
        (lambda t: t[:40], "is not JSON", None),
        (lambda t: t.replace('"profile": "boat"', '"profile": "rov"'), "of profile 'rov'", 3),
        (lambda t: t.replace('"pin": "1.0"', '"pin": "2.0"'), "of pin '2.0'", 4),
        (
            lambda t: t.replace('"read": 74, "matched": true', '"read": 73, "matched": true'),
            "SERVO1_FUNCTION: 'matched' is true",
            None,
        ),
        (lambda t: t.replace('"read": 74,', '"read": NaN,'), "NaN is not a number", None),
        (lambda t: t.replace('"sha256": "', '"sha256": "zz'), "'derived' must hold a sha256", 5),
        (lambda t: t.replace('"confirmed": 15', '"confirmed": 16'), "'summary' says", 12),
        (lambda t: t.replace('"time": "2', '"time": "yesterday 2'), "not UTC ISO 8601", 10),
        (
            lambda t: t.replace('"pin": "1.0",', '"pin": "1.0",\n  "pin": "1.0",'),
            "names 'pin' twice",
            5,
        ),
        (
            lambda t: t.replace(
                '"launch":', '"deep": ' + "[" * 50_000 + "]" * 50_000 + ',\n  "launch":'
            ),
            "is nested deeper than any verification record",
            1,
        ),
    ],
    ids=[
        "not-json",
        "other-profile",
        "other-pin",
        "matched-lies",
        "nan",
        "digest",
        "summary",
        "time",
        "duplicate-key",
        "deep",
    ],
)
def test_a_bad_record_is_an_error_with_its_line(
    boat: tuple[Path, list[str]], edit: object, message: str, line: int | None
) -> None:
    root, loc = boat
    assert verify(Vehicle(served(root, loc)), loc).exit_code == 0
    path = root / RECORD
    path.write_text(edit(path.read_text()))  # type: ignore[operator]
    for command in ("check", "report"):
        result = run_cli([command, *loc])
        assert result.exit_code == 2, result.output
        (error,) = result.stderr.splitlines()
        assert error.startswith(f"Error: {RECORD}:") and message in error, error
        if line is not None:
            assert error.startswith(f"Error: {RECORD}:{line}: ")


def _edit_delta(root: Path) -> None:
    overlay = root / "overlays/boat.yaml"
    overlay.write_text(overlay.read_text().replace("value: 1500", "value: 1490"))


def _move_hardware(root: Path) -> None:
    """hardware back to C1, where WP_RADIUS is 2 (fetch moves the role: its entry changed)."""
    sources = root / "sources.yaml"
    hw = "hardware: {repo: acme/params, ref: master,"
    sources.write_text(sources.read_text().replace(hw, hw.replace("master", C1)))


@pytest.mark.parametrize(
    ("change", "cause"),
    [(_edit_delta, "1 overlay delta change(s)"), (_move_hardware, "1 role(s) moved")],
    ids=["delta", "pin-move"],
)
def test_review_says_which_change_made_the_record_stale(
    boat: tuple[Path, list[str]], change: object, cause: str
) -> None:
    root, loc = boat
    assert verify(Vehicle(served(root, loc)), loc).exit_code == 0
    repo = git.Repo.init(root, initial_branch="main")
    repo.git.add(A=True)
    repo.git.commit(m="recorded", author="t <t@example.com>")
    fresh = run_cli(["review", "HEAD", *loc])
    assert "**Verification record:** `verified/boat-1.0.json` confirms this branch's" in (
        fresh.stdout
    )
    change(root)  # type: ignore[operator]
    for command in ("fetch", "derive", "report"):
        assert run_cli([command, *loc]).exit_code == 0
    result = run_cli(["review", "HEAD", *loc])
    assert "**Verification record (stale):** `verified/boat-1.0.json` is stale" in result.stdout
    assert f"this branch made it stale ({cause})" in result.stdout
    data = json.loads(run_cli(["review", "HEAD", "--format", "json", *loc]).stdout)
    assert data["profiles"][0]["record_stale"] is True
    # committed as it is, BASE's file already differs from the record: not this branch's doing
    repo.git.add(A=True)
    repo.git.commit(m="moved", author="t <t@example.com>")
    again = run_cli(["review", "HEAD", *loc]).stdout
    assert "it was stale at BASE already" in again


def _committed_record(root: Path, loc: list[str]) -> git.Repo:
    """The boat recorded against a SITL serving its derived values, reported, all committed."""
    assert verify(Vehicle(served(root, loc)), loc).exit_code == 0
    assert run_cli(["report", *loc]).exit_code == 0
    repo = git.Repo.init(root, initial_branch="main")
    repo.git.add(A=True)
    repo.git.commit(m="recorded", author="t <t@example.com>")
    return repo


def test_review_headline_says_the_record_is_stale(boat: tuple[Path, list[str]]) -> None:
    """A delta value edited, derived and reported: every output agrees with the inputs, but
    the record read the old value, so the headline cannot say nothing is stale."""
    root, loc = boat
    _committed_record(root, loc)
    assert "Nothing is stale" in run_cli(["review", "HEAD", *loc]).stdout
    overlay = root / "overlays/boat.yaml"
    overlay.write_text(overlay.read_text().replace("value: 1500", "value: 1505"))
    for command in ("derive", "report"):
        assert run_cli([command, *loc]).exit_code == 0
    lines = run_cli(["review", "HEAD", *loc]).stdout.splitlines()
    assert not any("Nothing is stale" in ln for ln in lines), "\n".join(lines)
    assert lines[2] == (
        "The lock, the overlays and the derived files agree, but the verification record of "
        "boat 1.0 is **stale**: it read back an earlier derived file (see its profile below)."
    )
    assert any("this branch made it stale (1 overlay delta change(s))" in ln for ln in lines)


def test_review_says_a_reason_only_edit_is_one(boat: tuple[Path, list[str]]) -> None:
    root, loc = boat
    _committed_record(root, loc)
    overlay = root / "overlays/boat.yaml"
    overlay.write_text(overlay.read_text().replace("the model is neutral", "SITL is neutral"))
    for command in ("derive", "report"):
        assert run_cli([command, *loc]).exit_code == 0
    out = run_cli(["review", "HEAD", *loc]).stdout
    assert "overlay delta change(s)" not in out
    assert (
        "this branch made it stale (1 delta reason-only edit(s): the derived file's DELTA "
        "comment lines changed, so its sha256 did, though no value did)"
    ) in out
    (row,) = [ln for ln in out.splitlines() if ln.startswith("| reason edited | `SERVO1_TRIM`")]
    assert "reason only; it was: one unit's neutral; the model is neutral at 1500" in row
    # the values stand: every row the record read is still confirmed in the report
    assert "**15 of 15 values confirmed" in (root / REPORT).read_text()


def test_a_new_record_makes_the_committed_report_out_of_date(
    boat: tuple[Path, list[str]],
) -> None:
    """The report marks its rows from the record, so the check kept for the old state is not
    reused once a record appears (the record is in its key)."""
    root, loc = boat
    assert run_cli(["check", *loc]).exit_code == 0
    assert verify(Vehicle(served(root, loc)), loc).exit_code == 0
    result = run_cli(["check", *loc])
    assert result.exit_code == 1 and f"{REPORT} differs from what report writes" in result.stderr
    assert run_cli(["report", *loc]).exit_code == 0
    assert run_cli(["check", *loc]).exit_code == 0


def test_a_record_through_a_link_out_of_the_project_is_refused(
    boat: tuple[Path, list[str]], tmp_path: Path
) -> None:
    root, loc = boat
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "verified").symlink_to(elsewhere)
    result = verify(Vehicle(served(root, loc)), loc)
    assert result.exit_code == 2 and "leads outside the project" in result.stderr
    assert not list(elsewhere.iterdir())
    (elsewhere / "boat-1.0.json").write_text("{}")
    result = run_cli(["report", *loc])
    assert result.exit_code == 2 and "leads outside the project" in result.stderr


def test_a_verified_that_is_a_file_is_an_error_not_a_traceback(
    boat: tuple[Path, list[str]],
) -> None:
    root, loc = boat
    (root / "verified").write_text("not a folder\n")
    result = verify(Vehicle(served(root, loc)), loc)
    assert result.exit_code == 2, result.output
    (error,) = result.stderr.splitlines()
    assert error.startswith("Error: verified:") and "not a folder" in error, error
    assert (root / "verified").read_text() == "not a folder\n"


def test_record_refused_before_the_pull_without_a_lock(boat: tuple[Path, list[str]]) -> None:
    root, loc = boat
    vehicle = Vehicle(served(root, loc))
    (root / "sources.lock").unlink()
    result = verify(vehicle, loc)
    assert result.exit_code == 2, result.output
    assert not (root / RECORD).exists()


def test_project_files_guard_the_record(boat: tuple[Path, list[str]]) -> None:
    root, loc = boat
    assert verify(Vehicle(served(root, loc)), loc).exit_code == 0
    result = run_cli(["derive", "-o", str(root / RECORD), *loc])
    assert result.exit_code == 2 and "verification record" in result.stderr


# --------------------------------------------------------------------------- the record's values


def test_firmware_as_the_vehicle_reports_it() -> None:
    assert firmware_name(11, 3) == firmware_name(10, 3) == "ArduRover"
    assert firmware_name(12, 3) == "ArduSub" and firmware_name(2, 3) == "ArduCopter"
    assert firmware_name(2, 12) is None  # PX4
    released = Firmware("ArduRover", "MAV_TYPE_SURFACE_BOAT", "4.7.0", "abc12345")
    assert released.label == "ArduRover V4.7.0 (abc12345)"
    silent = Firmware(None, "MAV_TYPE_GROUND_ROVER", None, None)
    assert silent.label == "MAV_TYPE_GROUND_ROVER (firmware version not reported)"


def test_a_record_reads_back_as_written(boat: tuple[Path, list[str]]) -> None:
    root, loc = boat
    params = served(root, loc)
    params["CRUISE_SPEED"] = (1.2, MAV_PARAM_TYPE_REAL32)
    assert verify(Vehicle(params), loc).exit_code == 1
    text = (root / RECORD).read_text()
    record = parse_record(text.encode(), RECORD, "boat", "1.0")
    assert record_text(record) == text  # stable: the same bytes again
    assert record.mark("CRUISE_SPEED", 1.0)[0] == DIFFERS
    assert record.mark("CRUISE_SPEED", 1.2) == (CONFIRMED, pytest.approx(1.2))  # float32
    assert record.mark("WP_SPEED", 3.0) == (NOT_SEEN, None)
    with pytest.raises(InputError, match="not a paramdiff verification record"):
        parse_record(b'{"format": "x"}', RECORD, "boat", "1.0")


# --------------------------------------------------------------------------- the real BlueBoat


def test_the_real_blueboat_confirmed_end_to_end(upstream: Path, tmp_path: Path) -> None:
    """A copy of this repository's project: the vehicle serves what the blueboat launch
    loads (495 derived rows under the frame files) plus parameters of its own."""
    import shutil

    from helpers import ROOT

    root = tmp_path / "project"
    root.mkdir()
    for name in ("sources.yaml", "sources.lock", "overlays", "derived", "reports"):
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, root / name)
    loc = ["--root", str(root), "--cache-dir", str(tmp_path / "c"), "--mirror", str(upstream)]
    options = Project(root=root, cache_dir=tmp_path / "c", mirror=str(upstream))
    stack, _ = expected(Pin(options, "blueboat", None), None)
    params = {n: (e.param.value, MAV_PARAM_TYPE_REAL32) for n, e in stack.effective.items()}
    params |= {f"FW_P{i:03d}": (float(i), 9) for i in range(200)}
    with tcp_vehicle(Vehicle(params)) as connection:
        result = run_cli(["verify", connection, "--profile", "blueboat", "--record", *loc])
    assert result.exit_code == 0, result.output
    assert "recorded verified/blueboat-4.7.json: 495 of 495 values confirmed" in result.stdout
    assert run_cli(["report", "--profile", "blueboat", *loc]).exit_code == 0
    report = (root / "reports/blueboat-4.7.md").read_text()
    assert "**495 of 495 values confirmed in SITL on ArduRover V4.7.0-beta (1a2b3c4d)" in report
    assert "| 74 (ThrottleRight) | 🧪 confirmed |" in report  # SERVO1_FUNCTION, derived
    checked = run_cli(
        ["check", "--profile", "blueboat", "--pin", "4.7", "--require-confirmed", *loc]
    )
    assert checked.exit_code == 0, checked.output
