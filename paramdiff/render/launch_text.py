"""A launch as text: its layer stack, its physics, its pilot-input table (report and CLI)."""

from __future__ import annotations

from collections.abc import Iterator

from paramdiff.parse import vehicleinfo
from paramdiff.render.texttable import markdown_table
from paramdiff.simulation.launch_check import LaunchResult
from paramdiff.simulation.physics import BUILT_IN, JSON


def _where(result: LaunchResult, i: int) -> tuple[str, str]:
    """(role, where it is from) of the i-th layer."""
    ly = result.layers[i]
    s = ly.source
    if ly.kind == "derived":
        return "the derived file", "this repository (paramdiff derive)"
    if ly.kind == "local":
        return "local file", "read from disk"
    return s.role, f"{s.repo}@{(s.commit or '')[:12]}"


def _backend(result: LaunchResult) -> str:
    b = result.backend
    if b.kind == JSON:
        model = (
            f"`{result.model}` (sha256 `{(result.model_sha256 or '')[:12]}`)"
            if result.model
            else "no model (none to verify against)"
        )
        return f"`--model {b.model}`: the Gazebo ArduPilotPlugin (SITL's JSON backend) with {model}"
    if b.kind == BUILT_IN:
        return f"`--model {b.model}`: SITL's built-in {b.name} ({b.source})"
    return f"`--model {b.model}`: {b.name} ({b.source})"


def launch_md(results: list[LaunchResult], overlay: str = "the overlay") -> Iterator[str]:
    if not results:
        return
    yield "## Launches"
    yield ""
    yield (
        "Each launch the profile declares (`launches:` in sources.yaml), as `paramdiff check` "
        "verifies it: the files it loads in order (sim_vehicle.py's frame files as "
        f"vehicleinfo.py chooses them at ArduPilot/ardupilot@{vehicleinfo.commit()[:12]}), "
        "the physics that runs, and each pilot stick followed through ArduPilot's mixer and "
        "that physics to the body (FRD: x forward, y right, z down). The derived file's "
        '"Load it with" line is the first launch that loads the derived file and passes.'
    )
    yield ""
    for r in results:
        yield from _one(r, overlay)


def _one(r: LaunchResult, overlay: str) -> Iterator[str]:
    verdict = "passes" if r.passed else f"FAILS ({len(r.findings)} finding(s))"
    if r.acknowledged:
        verdict += f", {len(r.acknowledged)} finding(s) acknowledged"
    yield f"### Launch `{r.name}` — {verdict}"
    yield ""
    yield f"`{r.launch.text}`"
    yield ""
    rows = []
    for i, ly in enumerate(r.layers):
        role, where = _where(r, i)
        rows.append([str(i + 1), f"`{ly.path.rsplit('/', 1)[-1]}`", ly.origin, role, where])
    if rows:
        yield (
            "Files loaded, in order (the last file wins"
            + ("" if r.launch.wipe else "; without `-w` a value stored by an earlier run wins "
               "over all of them")
            + "):"
        )  # fmt: skip
        yield ""
        yield from markdown_table(["#", "file", "loaded by", "role", "from"], rows)
    else:
        yield "No defaults file is loaded: the firmware's own defaults run."
    yield ""
    yield f"Physics: {_backend(r)}."
    yield ""
    if r.rows:
        table = [[x.axis.name, x.axis.demand, x.outputs, x.result, x.verdict] for x in r.rows]
        yield from markdown_table(["axis", "pilot", "outputs (PWM)", "the vehicle", "verdict"],
                                  table)  # fmt: skip
        yield ""
    for f in r.findings:
        yield f"- **{f.text}** — {f.fix}"
    for f, a in r.acknowledged:
        yield f"- acknowledged ({overlay}:{a.line}): {f.text} — {a.reason}"
    for note in r.notes:
        yield f"- note: {note}"
    if r.findings or r.acknowledged or r.notes:
        yield ""


def launch_text(r: LaunchResult) -> Iterator[str]:
    """`paramdiff layers --launch`: the stack, the physics and the pilot test as plain text."""
    yield f"launch: {r.launch.text}"
    for i, ly in enumerate(r.layers):
        role, where = _where(r, i)
        yield f"  {i + 1}. {ly.path} ({ly.origin}): {role}, {where}"
    if not r.layers:
        yield "  no defaults file: the firmware's own defaults run"
    yield f"physics: {_backend(r).replace('`', '')}"
    for x in r.rows:
        yield f"  {x.axis.name:9} {x.axis.demand} → {x.result} [{x.verdict}]"
    for f in r.findings:
        yield f"FAIL {f.text} — {f.fix}"
    for f, a in r.acknowledged:
        yield f"acknowledged: {f.text} — {a.reason}"
    for note in r.notes:
        yield f"note: {note}"


def load_line(results: list[LaunchResult]) -> tuple[str, list[str]] | None:
    """The first declared launch that loads the derived file and passes, with the files it
    loads."""
    for result in results:
        # A launch that loads no derived file says nothing about this file: never its line.
        if result.passed and any(ly.kind == "derived" for ly in result.layers):
            return result.launch.text, [ly.path.rsplit("/", 1)[-1] for ly in result.layers]
    return None


def load_model(results: list[LaunchResult]) -> str | None:
    """The Gazebo model the launch ``load_line`` names runs (its label), if it runs one."""
    for result in results:
        if result.passed and any(ly.kind == "derived" for ly in result.layers):
            return result.model
    return None
