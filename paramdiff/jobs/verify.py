"""`paramdiff verify`: pull a running vehicle's parameters and compare them with what its
launch should run, layer by layer (the job; the comparison is ``stages.running``)."""

from __future__ import annotations

from collections.abc import Iterator

from ..derive.layers import Layers
from ..derive.running import Verification, verify_running
from ..errors import DriftError
from ..launch.verify import launch_layers
from ..pin import Pin
from ..render.texttable import table
from ..vehicle.pull import Progress, Pulled, PullLimits, pull
from .layers import layers

HEADERS = ["parameter", "runs", "expected", "set by", "likely cause"]


def verification_lines(pulled: Pulled, result: Verification) -> Iterator[str]:
    v = pulled.vehicle
    firmware = f", firmware {v.firmware}" if v.firmware else ""
    stack = ", ".join(s.file.file for s in result.layers.layers)
    yield f"{pulled.connection}: {v.type_name}{firmware}; {len(pulled.params)} parameters"
    yield f"expected: {stack} (last wins)"
    set_by_layers = result.matching + len(result.mismatches)
    yield (
        f"{result.matching} of {set_by_layers} parameters the layers set run that value; "
        f"{result.unset} more run firmware defaults no layer sets (counted, not listed)"
    )
    if result.mismatches:
        yield ""
        yield from table(HEADERS, [m.row() for m in result.mismatches], markdown=False)


def expected(pin: Pin, launch: str | None) -> tuple[Layers, bool]:
    """What the launch should run (``launch``, else the profile's first declared launch,
    else its sim_vehicle.py frame under the derived file) and whether it wipes storage."""
    found = launch_layers(pin, launch)
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
) -> Iterator[str]:
    """Lines for `paramdiff verify`; raises DriftError (exit 1) when a parameter a layer sets
    runs another value."""
    stack, wiped = expected(pin, launch)
    pulled = pull(connection, limits, progress)
    result = verify_running(stack, pulled.values(), wiped)
    yield from verification_lines(pulled, result)
    if not result.ok:
        raise DriftError(
            [str(m) for m in result.mismatches],
            "see the likely cause of each; a stored value wins over every defaults file "
            "unless the launch wipes it (-w)",
        )
