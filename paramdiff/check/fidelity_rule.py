"""`check`'s actuator fidelity rule (simulation.actuator_fidelity): each model's thrust at
the firmware's full outputs against what its mixer assumes, acknowledgements applied; and the
world's physics step against SCHED_LOOP_RATE. Results are values; rules.py records them."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from paramdiff.digests import sha256_of
from paramdiff.files import project_path
from paramdiff.jobs.fidelity import model_fidelity, pinned_fidelity
from paramdiff.parse.named_files import read_local
from paramdiff.parse.sdf import read_channels
from paramdiff.parse.sdf_thruster import read_physics_step
from paramdiff.pin import Pin
from paramdiff.simulation.actuator_fidelity import (
    Fidelity,
    acknowledgement_of,
    actuator_findings,
    loop_rate_note,
)


class Failure(NamedTuple):
    """A failing finding: what, the fix, the file and line to fix (CheckOutcome.fail's)."""

    finding: str
    fix: str
    file: str | None
    line: int | None


def actuator_models(ctx: Pin, extra: list[Path]) -> list[tuple[str, str, str, Fidelity]]:
    """(name an acknowledgement gives: a role or a path; label; file to fix; actuator
    fidelity) of the report's model, the target models and each --model file."""

    out: list[tuple[str, str, str, Fidelity]] = []
    roles = ["sitl_models"] if "sitl_models" in ctx.specs else []
    roles += [t for t in ctx.profile.target_models if t in ctx.specs and t not in roles]
    for role in roles:
        label = ctx.pinned_model(role)[0]
        out.append((role, label, ctx.overlay().file, pinned_fidelity(ctx, role)))
    locals_ = [t for t in ctx.profile.target_models if t not in ctx.specs]
    paths = [(t, project_path(ctx.config.root, t)) for t in locals_]
    paths += [(p.as_posix(), p) for p in extra]
    for name, path in paths:
        data = read_local(path)
        channels = read_channels(data, name)[0]
        out.append((name, name, name, model_fidelity(ctx, data, name, channels, sha256_of(data))))
    return out


def actuator_outcome(ctx: Pin, models: list[Path]) -> tuple[list[str], list[Failure], set[int]]:
    """Each model's forward/reverse thrust (or rotor range) against what the firmware assumes;
    a finding fails unless an overlay acknowledgement accepts it for that model's bytes. The
    lines that passed, the failures, and the ids of the acknowledgements used (the others may
    be stale)."""
    overlay = ctx.overlay()
    passed: list[str] = []
    failures: list[Failure] = []
    used: set[int] = set()
    for name, label, file, fid in actuator_models(ctx, models):
        findings = actuator_findings(fid)
        for f in findings:
            ack = acknowledgement_of(overlay.acknowledged, name, f)
            if ack is not None:
                used.add(id(ack))
                passed.append(f"{label}: {f.id} acknowledged ({overlay.file}:{ack.line}): {f.what}")
                continue
            failures.append(
                Failure(
                    f"{label}: actuator {f}",
                    f"{f.fix} — in {overlay.file}: acknowledged: [{{model: {name}, finding: "
                    f"{f.id}, sha256: {f.model_sha256}, reason: ...}}]",
                    file,
                    None if file != overlay.file else 1,
                )
            )
        if fid.rows and not findings:
            passed.append(f"{label}: {len(fid.rows)} actuator(s) agree with the firmware")
    return passed, failures, used


def loop_rate_line(ctx: Pin, world: Path) -> tuple[bool, str]:
    """SCHED_LOOP_RATE against the world's physics step
    (simulation.actuator_fidelity.loop_rate_note), and whether it is a warning (the
    firmware's loop runs faster than the world steps)."""

    step, line = read_physics_step(read_local(world), world.as_posix())
    note = loop_rate_note(ctx.sitl_params(), (step, f"{world.as_posix()}:{line}"))
    loop = ctx.sitl_params().get("SCHED_LOOP_RATE")
    return loop is not None and loop > 1.0 / step, note
