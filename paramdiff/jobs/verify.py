"""`paramdiff verify`: pull a running vehicle's parameters and compare them with what its
launch should run, layer by layer (the job; the comparison is ``comparison.running_vehicle``); with
``record``, keep what was read back of the derived file (``derive.record``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from paramdiff.comparison.running_vehicle import Verification, verify_running
from paramdiff.comparison.sitl_layers import Layers
from paramdiff.derive.record import (
    Firmware,
    Record,
    firmware_name,
    make_record,
    record_file,
    record_path,
    write_record,
)
from paramdiff.digests import sha256_of
from paramdiff.errors import DriftError, UsageError
from paramdiff.files import project_path
from paramdiff.jobs.layers import layers
from paramdiff.pin import Pin
from paramdiff.render.fit import fit_rows
from paramdiff.render.sinks import check_file, join_lines
from paramdiff.render.texttable import table
from paramdiff.simulation.launch_check import launch_layers
from paramdiff.vehicle.mavlink_pull import Progress, Pulled, PullLimits, pull

HEADERS = ["parameter", "runs", "expected", "set by", "likely cause"]


def verification_lines(pulled: Pulled, result: Verification) -> Iterator[str]:
    v = pulled.vehicle
    firmware = f", firmware {v.firmware}" if v.firmware else ""
    stack = ", ".join(s.file.file for s in result.layers.layers)
    yield f"{pulled.connection}: {v.type_name}{firmware}; {len(pulled.params)} parameters"
    yield f"expected: {stack} (last wins)"
    set_by_layers = result.matching + len(result.mismatches)
    unknown = f", {result.unknown} names the firmware's metadata does not know" * bool(
        result.unknown
    )
    yield (
        f"{result.matching} of {set_by_layers} parameters the layers set run that value; "
        f"{result.unset} more run firmware defaults no layer sets{unknown} (counted, not listed)"
    )
    if result.mismatches:
        yield ""
        rows = fit_rows(HEADERS, [m.row() for m in result.mismatches])  # the cause wraps
        yield from table(HEADERS, rows, markdown=False)


def expected(pin: Pin, launch: str | None) -> tuple[Layers, bool]:
    """What the launch should run (``launch``, else the profile's first declared launch,
    else its sim_vehicle.py frame under the derived file) and whether it wipes storage."""
    found = launch_layers(pin.layers_inputs([launch] if launch else []), launch)
    if found is not None:
        parsed, stack = found
        return stack, parsed.wipe
    stack, _ = layers(pin, None, [])
    return stack, False


def verify_vehicle(
    pin: Pin,
    connection: str,
    *,
    launch: str | None = None,
    limits: PullLimits | None = None,
    progress: Progress | None = None,
    record: bool = False,
) -> Iterator[str]:
    """Lines for `paramdiff verify`; raises DriftError (exit 1) when a parameter a layer sets
    runs another value. ``record``: write the pin's verification record (``verified/``) once
    every parameter is in (an incomplete pull raises before anything is written), whether or
    not the values match."""
    stack, wiped = expected(pin, launch)
    target = record_target(pin) if record else None  # refused before the pull
    pulled = pull(connection, limits, progress)
    metadata = pin.metadata()
    known = metadata.params if metadata is not None else None
    result = verify_running(stack, pulled.values(), wiped, known)
    yield from verification_lines(pulled, result)
    if target is not None:
        kept = record_of(pin, pulled, stack, launch_text(pin, launch))
        write_record(target, kept)
        yield f"recorded {record_path(pin.profile.name, pin.pin)}: {kept.summary(_rows(pin))}"
    if not result.ok:
        raise DriftError(
            [str(m) for m in result.mismatches],
            "see the likely cause of each; a stored value wins over every defaults file "
            "unless the launch wipes it (-w)",
        )


def launch_text(pin: Pin, launch: str | None) -> str | None:
    """The launch verified against: ``launch``, else the profile's first declared one."""
    if launch is not None:
        return launch
    return pin.profile.launches[0].command if pin.profile.launches else None


def record_target(pin: Pin) -> Path:
    """Where the pin's record goes, refused unless the committed derived file is what derive
    writes for this pin: SITL loads the committed file, and the record names its digest."""
    derived = pin.derived()
    path = project_path(pin.config.root, derived.target, generated=True)
    if not check_file(path, pin.derived_lines(), derived.target).up_to_date:
        raise UsageError(
            f"is not what derive writes for {pin.profile.name} pin {pin.pin}, so a record "
            "would not say which file SITL ran",
            f"run {derived.regenerate}, restart SITL on it, then verify --record again",
            file=derived.target,
        )
    return record_file(pin.config.root, pin.profile.name, pin.pin)


def _rows(pin: Pin) -> dict[str, float]:
    """The derived file's rows (name -> value), in its order, as read back."""
    return {name: p.value for name, p in pin.derived_source().file.params.items()}


def record_of(pin: Pin, pulled: Pulled, stack: Layers, launch: str | None) -> Record:
    """The record of one complete pull against the pin's derived file."""
    v = pulled.vehicle
    lock = pin.lock()
    return make_record(
        profile=pin.profile.name,
        pin=pin.pin,
        derived_file=pin.derived().target,
        derived_sha256=sha256_of(join_lines(pin.derived_lines()).encode()),
        derived=_rows(pin),
        lock_sha256=lock.sha256 if lock is not None else None,
        launch=launch,
        layers=[s.file.file for s in stack.layers],
        connection=pulled.connection,
        time=pulled.time,
        firmware=Firmware(
            firmware_name(v.mav_type, v.autopilot), v.type_name, v.firmware, v.git_hash
        ),
        running=pulled.values(),
    )
