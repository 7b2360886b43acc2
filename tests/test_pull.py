"""`pull`: the real pymavlink client against a parameter server on 127.0.0.1 (tests/
mavlink_vehicle.py) that drops, duplicates and reorders what it sends."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from mavlink_vehicle import Faults, Vehicle, boat_params, tcp_vehicle, udp_vehicle

from paramdiff.errors import FetchError, UsageError
from paramdiff.model.values import float32
from paramdiff.parse.param_text import parse_params
from paramdiff.vehicle.dump import dump_lines, vehicle_words
from paramdiff.vehicle.mavlink_pull import PullLimits, pull

FAST = PullLimits(timeout=20, heartbeat_timeout=5, quiet=0.3, retries=8, version_wait=0.5)


def _pull(
    vehicle: Vehicle, limits: PullLimits = FAST, udp: bool = False, allow_incomplete: bool = False
):
    serve = udp_vehicle if udp else tcp_vehicle
    with serve(vehicle) as connection:
        return pull(connection, limits, allow_incomplete=allow_incomplete)


def test_every_parameter_over_a_clean_link() -> None:
    vehicle = Vehicle(boat_params(300))
    pulled = _pull(vehicle)
    assert len(pulled.params) == 300
    assert pulled.params["SERVO1_FUNCTION"].value == 74
    assert pulled.params["SERVO1_FUNCTION"].mav_type == 4
    assert pulled.params["MOT_THST_ASYM"].value == float32(1.6)
    assert pulled.vehicle.firmware == "4.7.0-beta"
    assert pulled.vehicle.git_hash == "1a2b3c4d"
    assert pulled.vehicle.type_name == "MAV_TYPE_SURFACE_BOAT"
    assert vehicle.requests[0] == "command 512" and "list" in vehicle.requests
    assert not any(r.startswith("read") for r in vehicle.requests)  # nothing was missing


@pytest.mark.parametrize("udp", [False, True], ids=["tcp", "udpin"])
def test_a_lossy_link_still_gives_every_parameter(udp: bool) -> None:
    faults = Faults(drop=0.3, duplicate=0.2, reorder=True, seed=7)
    vehicle = Vehicle(boat_params(400), faults=faults)
    pulled = _pull(vehicle, udp=udp)
    assert len(pulled.params) == 400
    expected = {n: float32(v) for n, (v, _) in vehicle.params.items()}
    assert pulled.values() == expected
    reads = [r for r in vehicle.requests if r.startswith("read")]
    assert reads, "30% dropped: the missing indices were asked for one by one"


def test_a_vehicle_that_never_resends_is_an_error_naming_the_index() -> None:
    faults = Faults(drop=0.5, answer_reads=False, seed=3)
    limits = PullLimits(timeout=20, heartbeat_timeout=5, quiet=0.2, retries=2, version_wait=0)
    gave_up = r"\d+ of 50 parameters \(index \d+ first\) did not arrive in 3"
    with pytest.raises(FetchError, match=gave_up):
        _pull(Vehicle(boat_params(50), faults=faults), limits)


def test_a_slow_stream_is_not_a_lossy_one() -> None:
    """One parameter every 0.25 s with quiet 0.2 s: each round brings one, so the pull goes
    on (rounds that bring nothing are what it counts)."""
    faults = Faults(drop=0.6, answer_reads=True, seed=11)
    limits = PullLimits(timeout=20, heartbeat_timeout=5, quiet=0.05, retries=1, version_wait=0)
    pulled = _pull(Vehicle(boat_params(60), faults=faults), limits)
    assert len(pulled.params) == 60


def test_a_closed_connection_is_one_error() -> None:
    faults = Faults(close_after=5)
    with pytest.raises(FetchError, match=r"the vehicle closed the connection after \d+"):
        _pull(Vehicle(boat_params(40), faults=faults))


def test_only_the_vehicle_pulled_from_counts() -> None:
    """A gimbal (component 154) streaming its own PARAM_VALUEs on the same system, and
    NaN and infinity from the vehicle: left out (allowed), with a warning."""
    params = boat_params(20) | {"BAD_NAN": (float("nan"), 9), "BAD_INF": (float("inf"), 9)}
    pulled = _pull(Vehicle(params, faults=Faults(gimbal=True)), allow_incomplete=True)
    assert len(pulled.params) == 20 and not any(n.startswith("GIMBAL") for n in pulled.params)
    assert any("BAD_NAN" in w and "nan" in w for w in pulled.warnings)
    assert pulled.total == 22 and len(pulled.lost) == 2


NAN = boat_params(20) | {"BAD_NAN": (float("nan"), 9)}
TWICE = boat_params(20) | {"SERVO1_TRIMX": (1520.0, 4)}  # sent as SERVO1_TRIM (index 20)


@pytest.mark.parametrize(
    ("params", "rename", "why", "written"),
    [
        (NAN, {}, "BAD_NAN (index 20) is nan, which no loader reads", 20),
        (
            TWICE,
            {"SERVO1_TRIMX": "SERVO1_TRIM"},
            "SERVO1_TRIM is sent twice with different values",
            19,  # either value would be a guess: the name is left out whole
        ),
    ],
    ids=["nan", "twice"],
)
def test_an_incomplete_dump_is_an_error_unless_allowed(
    tmp_path: Path,
    params: dict[str, tuple[float, int]],
    rename: dict[str, str],
    why: str,
    written: int,
) -> None:
    from helpers import run_cli

    assert TWICE["SERVO1_TRIM"][0] != 1520.0
    out = tmp_path / "boat7.params"
    vehicle = Vehicle(params, faults=Faults(rename=rename))
    with tcp_vehicle(vehicle) as connection:
        result = run_cli(["pull", connection, "-o", str(out), "--timeout", "20"])
    assert result.exit_code == 2, result.output
    errors = [ln for ln in result.stderr.splitlines() if not ln.startswith("parameters: ")]
    assert len(errors) == 1 and errors[0].startswith("Error: "), result.stderr
    assert f"1 of 21 parameters cannot be written as the vehicle holds them ({why}" in (
        result.stderr
    )
    assert "--allow-incomplete" in result.stderr
    assert not out.exists()
    vehicle = Vehicle(params, faults=Faults(rename=rename))
    with tcp_vehicle(vehicle) as connection:
        result = run_cli(
            ["pull", connection, "-o", str(out), "--timeout", "20", "--allow-incomplete", "-q"]
        )
    assert result.exit_code == 0, result.output
    lost = 21 - written
    assert (
        f"warning: incomplete: {written} of 21 parameters written; {lost} left out: " + why
        in result.stderr
    )
    text = out.read_text()
    assert (
        f"# INCOMPLETE: {written} of the 21 parameters the vehicle announced; {lost} left out:\n"
        in text
    )
    assert f"#   {why}" in text
    assert "parameters: " not in result.stderr  # -q: no progress
    dump = parse_params(out.read_bytes(), "boat7.params")
    assert len(dump.params) == written and "BAD_NAN" not in dump.params
    assert "SERVO1_TRIM" not in dump.params or not rename


def test_progress_on_stderr_and_q_silences_it(tmp_path: Path) -> None:
    """Not a terminal (the test's stderr, as CI's log): a line at each 10%, the last at the
    total; stdout holds the file alone."""
    from helpers import run_cli

    with tcp_vehicle(Vehicle(boat_params(200))) as connection:
        result = run_cli(["pull", connection, "--timeout", "20"])
    assert result.exit_code == 0, result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("parameters: ")]
    assert lines[-1] == "parameters: 200/200"
    assert 2 <= len(lines) <= 11, lines
    assert "parameters: " not in result.stdout
    with tcp_vehicle(Vehicle(boat_params(200))) as connection:
        result = run_cli(["pull", connection, "--timeout", "20", "-q"])
    assert result.exit_code == 0 and "parameters: " not in result.stderr


def test_connections_that_are_not_links_are_refused(tmp_path: Path) -> None:
    file = tmp_path / "a.params"
    file.write_text("X 1\n")
    with pytest.raises(UsageError, match="not a serial device or a connection"):
        pull(str(file), FAST)
    with pytest.raises(UsageError, match="no such device"):
        pull(str(tmp_path / "missing"), FAST)
    with pytest.raises(FetchError, match="cannot connect"):
        pull("udpin:127.0.0.1:99999", FAST)


def test_the_overall_timeout_bounds_a_silent_vehicle() -> None:
    faults = Faults(answer_list=False)
    limits = PullLimits(timeout=1.5, heartbeat_timeout=1, quiet=0.2, retries=50, version_wait=0)
    with pytest.raises(FetchError, match=r"0 parameters after 1.5 s"):
        _pull(Vehicle(boat_params(10), faults=faults), limits)


def test_no_heartbeat_is_an_error() -> None:
    faults = Faults(heartbeat=False)
    limits = PullLimits(timeout=5, heartbeat_timeout=0.5)
    with pytest.raises(FetchError, match=r"no vehicle HEARTBEAT within 0\.5 s"):
        _pull(Vehicle(boat_params(10), faults=faults), limits)


def test_a_refused_connection_names_the_fix() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    with pytest.raises(FetchError, match=r"cannot connect .*tcp:127.0.0.1:5760"):
        pull(f"tcp:127.0.0.1:{port}", FAST)
    with pytest.raises(UsageError, match="names no connection"):
        pull(",115200", FAST)


def test_without_autopilot_version_the_header_says_so() -> None:
    vehicle = Vehicle(boat_params(5), faults=Faults(send_version=False))
    pulled = _pull(vehicle)
    assert pulled.vehicle.firmware is None
    text = "\n".join(dump_lines(pulled))
    assert "did not answer AUTOPILOT_VERSION" in text and "# Version:" not in text


@pytest.mark.parametrize("fmt", ["params", "mp", "qgc"])
def test_the_dump_reads_back_exactly(fmt: str) -> None:
    vehicle = Vehicle(boat_params(40))
    pulled = _pull(vehicle)
    data = "\n".join(dump_lines(pulled, fmt)).encode() + b"\n"
    parsed = parse_params(data, f"boat.{fmt}", fmt)
    # the shortest decimal of each float32 reads back as that very float32
    assert {n: float32(p.value) for n, p in parsed.params.items()} == pulled.values()
    assert parsed.header.get("Vehicle") == "Surface Boat"
    if fmt == "qgc":
        assert {n: p.mav_type for n, p in parsed.params.items()} == {
            n: p.mav_type for n, p in pulled.params.items()
        }
    else:
        assert parsed.header.get("Version") == "4.7.0-beta"


def test_vehicle_words() -> None:
    assert vehicle_words("MAV_TYPE_SUBMARINE") == "Submarine"
    assert vehicle_words("MAV_TYPE_QUADROTOR") == "Quadrotor"


# --------------------------------------------------------------------------- the command


def test_pull_command_writes_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from helpers import run_cli

    monkeypatch.chdir(tmp_path)
    vehicle = Vehicle(boat_params(30), faults=Faults(drop=0.2, seed=5))
    with tcp_vehicle(vehicle) as connection:
        result = run_cli(["pull", connection, "-o", "boat7.params", "--timeout", "20"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "boat7.params").read_text()
    assert text.startswith("# Date: ")
    assert "# Vehicle: Surface Boat\n# Version: 4.7.0-beta\n# Git: 1a2b3c4d\n" in text
    assert "\nSERVO1_FUNCTION  74\n" in text
    assert "boat7.params written" in result.stderr


def test_pull_to_stdout_in_qgc(tmp_path: Path) -> None:
    from helpers import run_cli

    with tcp_vehicle(Vehicle(boat_params(5))) as connection:
        result = run_cli(["pull", connection, "--format", "qgc"])
    assert result.exit_code == 0, result.output
    assert "1\t1\tSERVO1_FUNCTION\t74\t4" in result.stdout.splitlines()


def test_pull_errors_are_one_line(tmp_path: Path) -> None:
    from helpers import run_cli

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    result = run_cli(["pull", f"tcp:127.0.0.1:{port}", "-o", str(tmp_path / "x.params")])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: tcp:127.0.0.1:{port}: cannot connect")
    assert len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "x.params").exists()


@pytest.mark.parametrize("seconds", ["nan", "inf", "1e400", "0.5", "soon"])
def test_a_timeout_is_a_finite_number_of_seconds(seconds: str) -> None:
    from helpers import run_cli

    result = run_cli(["pull", "tcp:127.0.0.1:1", "--timeout", seconds])
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: Invalid value for '--timeout'")
    assert len(result.stderr.splitlines()) == 1
