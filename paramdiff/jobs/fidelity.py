"""A model's actuators against what SITL runs (simulation.actuator_fidelity): the report's section
and `check`'s actuator rule read the same values, once per pin."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paramdiff.parse.sdf_thruster import read_actuation
from paramdiff.pin import Pin
from paramdiff.simulation.actuator_fidelity import acknowledgement_of, fidelity

if TYPE_CHECKING:
    from paramdiff.parse.sdf import Channel
    from paramdiff.simulation.actuator_fidelity import Fidelity


def model_fidelity(
    pin: Pin, data: bytes, file: str, channels: list[Channel], sha256: str
) -> Fidelity:
    """A model's actuators (its own bytes) against what SITL runs."""

    return _fidelity(pin, channels, read_actuation(data, file), sha256)


def pinned_fidelity(pin: Pin, role: str) -> Fidelity:
    """A pinned model's actuators against what SITL runs, once per pin (the report and
    `check` read the same model)."""

    def made() -> Fidelity:

        f = pin.fetched([role])[role]
        actuation = read_actuation(f.data, f.spec.path)
        channels = pin.pinned_check(role).channels
        return _fidelity(pin, channels, actuation, f.entry.sha256)

    return pin.kept(f"fidelity {role}", made)


def acknowledged_actuators(pin: Pin, role: str) -> set[str]:
    """The ids of the pinned model's actuator findings an overlay acknowledgement accepts
    (the report marks them; check passes them)."""

    acks = pin.overlay().acknowledged
    return {
        f.id
        for f in pinned_fidelity(pin, role).findings
        if acknowledgement_of(acks, role, f) is not None
    }


def _fidelity(pin: Pin, channels: list[Channel], actuation: Any, sha256: str) -> Fidelity:

    return fidelity(
        channels,
        actuation,
        pin.sitl_params(),
        pin.profile.sitl_vehicle,
        sha256,
        pin.profile.vehicle_noun,
    )
