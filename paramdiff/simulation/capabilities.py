"""What each SITL physics backend simulates that parameters depend on, and the derived values
that need what a launch's backend lacks.

SITL reports ESC telemetry (RPM) only for the motors the physics backend fills in:
libraries/AP_ESC_Telem/AP_ESC_Telem_SITL.cpp walks sitl->state.motor_mask and takes each
motor's RPM from sitl->state.rpm (at least SIM_ESC_ARM_RPM when armed). The built-in
multicopter sets both (libraries/SITL/SIM_Multicopter.cpp calculate_forces: motor_mask, and the
rpm SIM_Frame.cpp computes per motor); ArduCopter/takeoff_check.cpp holds the spool-up while
that telemetry is inactive ("Takeoff blocked: waiting for ESC RPM"). The
JSON backend's input has no RPM key (libraries/SITL/SIM_JSON.cpp, keys documented in
libraries/SITL/examples/JSON/readme.md: timestamp, imu, position, velocity, attitude or
quaternion, rng_1..6, windvane, velocity_wind, airspeed, rc, battery). GPS comes from the
backend's position on every backend (libraries/SITL/SIM_GPS.cpp). The ROS 2 launch path
(ardurover/arducopter --model JSON from ardupilot_gz) is the same JSON backend.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from paramdiff.model.values import format_value
from paramdiff.simulation.physics import JSON, Backend

ESC_RPM, RANGEFINDER, GPS, BATTERY = "ESC telemetry RPM", "rangefinder", "GPS", "battery"


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What one backend gives the firmware, each with the ArduPilot file that says so."""

    backend: str
    has: dict[str, str]  # capability → where ArduPilot fills it in
    lacks: dict[str, str]  # capability → why the backend does not give it


_GPS = "libraries/SITL/SIM_GPS.cpp (from the backend's position)"
_JSON_KEYS = "libraries/SITL/SIM_JSON.cpp (keys: libraries/SITL/examples/JSON/readme.md)"
_BUILT_IN_BATTERY = "libraries/SITL/SIM_Battery.cpp / SIM_Aircraft.cpp (simulated voltage)"
BY_CONSTRUCTOR: dict[str, Capabilities] = {
    "MultiCopter": Capabilities(
        "SIM_Multicopter",
        {
            ESC_RPM: "libraries/SITL/SIM_Multicopter.cpp sets motor_mask and each motor's rpm "
            "(SIM_Frame.cpp), reported by libraries/AP_ESC_Telem/AP_ESC_Telem_SITL.cpp",
            RANGEFINDER: "libraries/SITL/SIM_Aircraft.cpp (range from the height)",
            GPS: _GPS,
            BATTERY: _BUILT_IN_BATTERY,
        },
        {},
    ),
    "SimRover": Capabilities(
        "SIM_Rover",
        {RANGEFINDER: "libraries/SITL/SIM_Aircraft.cpp", GPS: _GPS},
        {ESC_RPM: "libraries/SITL/SIM_Rover.cpp fills no motor rpm"},
    ),
    "MotorBoat": Capabilities(
        "SIM_Rover (motorboat)",
        {RANGEFINDER: "libraries/SITL/SIM_Aircraft.cpp", GPS: _GPS},
        {ESC_RPM: "libraries/SITL/SIM_Rover.cpp fills no motor rpm"},
    ),
    "Submarine": Capabilities(
        "SIM_Submarine",
        {RANGEFINDER: "libraries/SITL/SIM_Aircraft.cpp", GPS: _GPS},
        {ESC_RPM: "libraries/SITL/SIM_Submarine.cpp fills no thruster rpm"},
    ),
    JSON: Capabilities(
        "JSON (Gazebo ArduPilotPlugin, and the ROS 2 ardupilot_gz path)",
        {
            RANGEFINDER: f"rng_1..rng_6 in {_JSON_KEYS}",
            GPS: _GPS,
            BATTERY: f"battery in {_JSON_KEYS}, when the plugin sends it",
        },
        {ESC_RPM: f"{_JSON_KEYS} has no RPM key, so state.rpm stays 0"},
    ),
}


def of(backend: Backend) -> Capabilities | None:
    return BY_CONSTRUCTOR.get(backend.constructor)


@dataclass(frozen=True, slots=True)
class Need:
    """A parameter value that needs a capability, and the value that does without it."""

    param: str
    vehicle: str
    needs: str
    applies: str  # what the value does, for the finding
    without: float  # the SITL delta that does without it
    without_means: str
    user: str  # what needs it, with the ArduPilot file

    def active(self, value: float) -> bool:
        if self.param == "INS_HNTCH_MODE":
            return int(value) == 3
        return value > 0


NEEDS = (
    Need(
        "TKOFF_RPM_MIN",
        "ArduCopter",
        ESC_RPM,
        "holds the takeoff until every motor reports that RPM",
        0,
        "no RPM takeoff check",
        "Copter's takeoff check (ArduCopter/takeoff_check.cpp)",
    ),
    Need(
        "INS_HNTCH_MODE",
        "ArduCopter",
        ESC_RPM,
        "tracks the harmonic notch from ESC telemetry RPM",
        1,
        "the notch tracks throttle",
        "the harmonic notch (libraries/AP_InertialSensor/AP_InertialSensor.cpp, "
        "update_harmonic_notch_freq_hz)",
    ),
)


def lacking(
    backend: Backend,
    vehicle: str,
    params: dict[str, float],
    from_layers: Callable[[str, float], str | None] = lambda name, value: None,
) -> list[tuple[str, str]]:
    """(finding, fix) for each value that needs what ``backend`` does not simulate. The fix is
    a SITL delta, or ``from_layers`` (simulation/frame.py layered_fix) when the derived file
    already carries that delta and the launch's layers lose it."""
    caps = of(backend)
    if caps is None:
        return []
    out = []
    for need in NEEDS:
        value = params.get(need.param)
        if need.vehicle != vehicle or value is None or not need.active(value):
            continue
        if need.needs in caps.lacks:
            out.append(
                (
                    f"{need.param} {format_value(value)} {need.applies} ({need.user}), but "
                    f"{caps.backend} gives no {need.needs}: {caps.lacks[need.needs]}",
                    from_layers(need.param, need.without)
                    or f"a SITL delta in the overlay: {need.param} {format_value(need.without)} "
                    f"({need.without_means}), with the reason that {caps.backend} has no "
                    f"{need.needs}; or run the built-in physics, which has it",
                )
            )
    return out


def takeoff_blocked(backend: Backend, vehicle: str, params: dict[str, float]) -> str:
    """Why a copter would not take off on this backend (empty when nothing blocks it)."""
    caps = of(backend)
    rpm = params.get("TKOFF_RPM_MIN", 0.0)
    if caps is None or vehicle != "ArduCopter" or rpm <= 0 or ESC_RPM not in caps.lacks:
        return ""
    return (
        f"TKOFF_RPM_MIN {format_value(rpm)} waits for ESC RPM that {caps.backend} never "
        "reports (ArduCopter/takeoff_check.cpp, libraries/AP_ESC_Telem/AP_ESC_Telem_SITL.cpp)"
    )


def esc_note(backend: Backend, vehicle: str, params: dict[str, float]) -> str:
    """The ESC telemetry question a copter launch on a backend without RPM raises, answered
    with the values the launch runs."""
    caps = of(backend)
    if caps is None or vehicle != "ArduCopter" or ESC_RPM not in caps.lacks:
        return ""
    values = ", ".join(
        f"{n.param} {format_value(params[n.param])}" for n in NEEDS if n.param in params
    )
    return (
        f"ESC telemetry: {caps.backend} gives no motor RPM ({caps.lacks[ESC_RPM]}; "
        "libraries/AP_ESC_Telem/AP_ESC_Telem_SITL.cpp reports only the backend's rpm), so "
        "no value may need it: TKOFF_RPM_MIN > 0 holds the takeoff "
        "(ArduCopter/takeoff_check.cpp), INS_HNTCH_MODE 3 loses the notch's frequency"
        + (f"; this launch runs {values}" if values else "")
    )
