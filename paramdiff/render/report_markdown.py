"""The markdown a reviewer reads in a pull request: what the sources disagree on, what we chose.
The model section and the picture beside the report are report_model.py's."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from paramdiff.comparison.side_by_side import (
    DIFFERS,
    RENAMED,
    RENAMED_DIFFERS,
    SAME,
    Comparison,
    Status,
)
from paramdiff.config.roles import LOCAL_REPO
from paramdiff.model.values import format_value, same_value
from paramdiff.render.comparison import render
from paramdiff.render.confirmed_section import confirmed_section, sitl_cell
from paramdiff.render.fidelity_section import actuator_consequence, actuator_section
from paramdiff.render.launch_text import launch_md
from paramdiff.render.layers_section import layer_md
from paramdiff.render.model_side import model_side_section
from paramdiff.render.report_inputs import ReportInputs
from paramdiff.render.report_model import channel_section

# paramdiff/cli.py imports these two from here (the click CLI may import report_model's)
from paramdiff.render.texttable import markdown_table

STATUS_KEY = [
    ("same", "every source that can express the parameter has the same value (float32)"),
    ("differs", "at least two sources set different values"),
    (
        "renamed",
        "ArduPilot renamed it between the sources' firmware versions (`OLD → NEW`); the values "
        "agree once the old one is converted as the firmware converts it",
    ),
    ("renamed, differs", "renamed, and the converted values differ (`old → converted` shown)"),
    ("only in X", "one source sets it; the others could but do not"),
    ("missing in X", "several sources set it; X could but does not"),
    ("— (in a value column)", "the source could set this parameter but does not"),
    ("not representable (n/r)", "the source (a Gazebo model) cannot express this parameter"),
    ("deliberate delta", "the derived file changes the shipped value, for the reason given"),
    ("stale", "a delta's `was` no longer matches upstream; derive and check refuse until reviewed"),
]


def link(repo: str | None, commit: str | None, path: str | None) -> str:
    if repo == LOCAL_REPO:  # a file of this repository, pinned by its digests
        return "this repository"
    if not (repo and commit and path):
        return path or ""
    url_path = path.replace(" ", "%20")
    return f"[{repo}@{commit[:12]}](https://github.com/{repo}/blob/{commit}/{url_path})"


def consequence(comp: Comparison, name: str, noun: str = "vehicle") -> str:
    """What the disagreement does to the vehicle (``noun``: "boat", "ROV"), where we know."""
    values = {r: v for r in comp.roles if (v := comp.value(r, name)) is not None}
    vs = set(values.values())
    if name.endswith("_FUNCTION") and name.startswith("SERVO"):
        notes = []
        if {73.0, 74.0} <= vs:
            notes.append(f"port and starboard swapped: the {noun} turns the wrong way")
        if vs & {26.0, 70.0}:
            notes.append("a steering + throttle mapping (26/70) is not skid-steer")
        return "; ".join(notes) or "different output function"
    if name.startswith("SERVO") and name.endswith(("_MIN", "_MAX")):
        return _span_note(comp, name.rsplit("_", 1)[0])
    if name.startswith("SERVO") and name.endswith("_TRIM"):
        # The model's value is where its command is zero; the others are trims.
        models = [v for r, v in values.items() if comp.source(r).file.format == "sdf"]
        neutral = models[0] if models else min(vs)
        trims = sorted(v for v in vs if not same_value(v, neutral))
        return (
            f"neutral {format_value(neutral)} vs trim {', '.join(map(format_value, trims))} is a "
            f"standing command at zero throttle: the {noun} creeps"
        )
    if name.startswith("SERVO") and name.endswith("_REVERSED"):
        return "one thruster pushes the other way; in the model, reversal is the multiplier's sign"
    known = {
        "MOT_THST_ASYM": "forward/reverse thrust asymmetry (the model's ratio: see Actuator "
        "fidelity)",
        "MOT_SLEWRATE": "throttle slew-rate limit, applied by the firmware (in SITL too)",
        "MOT_STR_THR_MIX": "how steering and throttle share thrust; turning feel differs",
        "CRUISE_SPEED": "the speed/throttle pair AUTO uses to feed forward throttle",
        "CRUISE_THROTTLE": "the speed/throttle pair AUTO uses to feed forward throttle",
        "WP_SPEED": "mission speed",
        "FS_ACTION": "what a failsafe does",
        "ACRO_TURN_RATE": "maximum turn rate in ACRO",
    }
    if name in known:
        return known[name]
    if name.startswith("ATC_"):
        return f"control gain or limit: the simulated {noun} will respond differently"
    return ""


def _span_note(comp: Comparison, output: str) -> str:
    """How the PWM spans of SERVOn_MIN..SERVOn_MAX differ between the sources."""
    spans = set()
    for role in comp.roles:
        lo, hi = comp.params[role].get(f"{output}_MIN"), comp.params[role].get(f"{output}_MAX")
        if lo is not None and hi is not None:
            spans.add((lo.value, hi.value))
    if len(spans) < 2:
        return "different PWM range"
    (a_lo, a_hi), (b_lo, b_hi) = (
        min(spans, key=lambda s: s[1] - s[0]),
        max(spans, key=lambda s: s[1] - s[0]),
    )
    less = round((1 - (a_hi - a_lo) / (b_hi - b_lo)) * 100)
    if less == 0:
        return "same PWM span, shifted: every command maps to a different PWM"
    return (
        f"{format_value(a_lo)}–{format_value(a_hi)} is {less}% less PWM span than "
        f"{format_value(b_lo)}–{format_value(b_hi)}, so every command scales differently"
    )


def render_report(inp: ReportInputs) -> Iterator[str]:
    """The report, section by section; each section ends with a blank line."""
    for section in (
        _intro,
        _sources,
        _versions,
        _status_key,
        _summary,
        _disagreements,
        channel_section,
        _actuators,
        _deltas,
        _left_out,
        _sitl,
        _confirmed,
        _launches,
        _warnings,
        _full_table,
    ):
        yield from section(inp)


def _actuators(inp: ReportInputs) -> Iterator[str]:
    yield from actuator_section(inp.actuators, inp.model_label, inp.acknowledged)
    thrusters = inp.profile.thrusters
    yield from model_side_section(
        inp.thrust,
        inp.derived_model,
        inp.thrust_findings,
        thrusters.model if thrusters else None,
        inp.derived_params,
    )


def _intro(inp: ReportInputs) -> Iterator[str]:
    name, pin = inp.profile.name, inp.pin
    yield f"# {name} SITL parameters — pin {pin}"
    yield ""
    yield (
        f"Generated by `paramdiff report --profile {name} --pin {pin}` from the "
        "commits in `sources.lock`. Do not edit by hand; `paramdiff check` fails when it is "
        "out of date."
    )
    yield ""
    yield f"{inp.profile.description}."
    yield ""


def _sources(inp: ReportInputs) -> Iterator[str]:
    d = inp.derived
    yield "## Sources"
    yield ""
    rows = []
    compared = {s.role for s in inp.comparison.sources}
    # the overlay's base when the comparison does not show it (a field dump, `file:`)
    base = [] if d.base.role in compared else [d.base]
    for s in [*base, *inp.comparison.sources, *d.inputs[1:]]:
        sha = f"`{(s.sha256 or '')[:12]}`"
        rows.append([s.role, link(s.repo, s.commit, s.path), f"`{s.path}`", s.version or "—", sha])
        for inc in s.includes:
            rows.append(
                [
                    f"{s.role} ({'<include>' if s.file.format == 'sdf' else '%include'})",
                    link(s.repo, s.commit, inc.path),
                    f"`{inc.path}`",
                    "—",
                    f"`{inc.sha256[:12]}`",
                ]
            )
    rows.append(
        ["overlay", f"`{d.overlay.file}`", "(this repository)", "—", f"`{d.overlay.sha256[:12]}`"]
    )
    yield from markdown_table(["role", "source", "path", "version", "sha256"], rows)
    yield ""


def _versions(inp: ReportInputs) -> Iterator[str]:
    yield "## Versions"
    yield ""
    for line in [*inp.comparison.version_lines(), *firmware_evidence(inp)]:
        yield f"- {line}"
    yield ""


def firmware_evidence(inp: ReportInputs) -> list[str]:
    """For a parameter file without a version header: the names only one pinned firmware's
    metadata knows, which is how its declared firmware was worked out."""
    by = inp.firmwares
    if len(by) < 2:
        return []
    out = []
    for s in inp.comparison.sources:
        if s.file.format == "sdf" or s.version_origin == "header":
            continue
        parts = []
        for firmware, meta in sorted(by.items()):
            others = [m for f, m in by.items() if f != firmware]
            only = sorted(n for n in s.file.params if n in meta and all(n not in m for m in others))
            if only:
                parts.append(f"only {meta.file} has {', '.join(f'`{n}`' for n in only)}")
        if parts:
            out.append(
                f"{s.role} has no version header; names that tell the firmware apart: "
                + "; ".join(parts)
            )
    return out


def _status_key(inp: ReportInputs) -> Iterator[str]:
    yield "## Status key"
    yield ""
    yield from markdown_table(["status", "meaning"], [[f"**{s}**", m] for s, m in STATUS_KEY])
    yield ""


def _summary(inp: ReportInputs) -> Iterator[str]:
    yield "## Summary"
    yield ""
    counts = inp.tally
    cats = sorted({c for c, _ in counts})
    statuses = sorted({s for _, s in counts})
    rows = [
        [
            c,
            *(str(counts.get((c, s), 0)) for s in statuses),
            str(sum(counts.get((c, s), 0) for s in statuses)),
        ]
        for c in cats
    ]
    yield from markdown_table(["category", *map(str, statuses), "total"], rows)
    yield ""


def _disagreements(inp: ReportInputs) -> Iterator[str]:
    comp, d, record = inp.comparison, inp.derived, inp.record
    yield "## Vehicle parameters the sources disagree on"
    yield ""
    yield (
        "Category `vehicle` only (calibration, board, radio, script and sim parameters are "
        "listed in the full table). `derived` is what `"
        + d.target
        + "` sets."
        + (" `in SITL`: what the verification record saw running." if record else "")
    )
    yield ""
    rows = [
        [
            f"`{comp.shown_name(name)}`",
            row.display_name,
            *(comp.cell(r, name) for r in comp.roles),
            _derived_cell(inp, name),
            *_sitl_cells(inp, name),
            actuator_consequence(name, inp.actuators, inp.profile.vehicle_noun)
            or consequence(comp, name, inp.profile.vehicle_noun),
        ]
        for name, row in comp.rows.items()
        if row.category == "vehicle" and row.status in (DIFFERS, RENAMED_DIFFERS)
    ]
    sitl = ["in SITL"] if record else []
    yield from markdown_table(
        ["param", "display name", *comp.roles, "derived", *sitl, "consequence"],
        rows,
        empty="None: no vehicle parameter is set to different values.",
    )
    yield ""
    partial: Counter[Status] = Counter()
    for (category, status), n in inp.tally.items():
        if category == "vehicle" and status not in (SAME, DIFFERS, RENAMED, RENAMED_DIFFERS):
            partial[status] += n
    if partial:
        yield (
            "Set by some sources only (see the full table): "
            + ", ".join(f"{n} {s}" for s, n in sorted(partial.items()))
            + "."
        )
        yield ""


def _derived_cell(inp: ReportInputs, name: str) -> str:
    """What the derived file sets for ``name``, labelled, and whether it is a delta."""
    meta = inp.comparison.metadata
    dv = inp.derived_params.get(name)
    delta = " **(delta)**" if inp.derived.overlay.delta(name) else ""
    if dv is None:
        return "left out" + delta
    return (meta.label(name, dv) if meta else format_value(dv)) + delta


def _sitl_cells(inp: ReportInputs, name: str) -> list[str]:
    """The row's "in SITL" cell, when the pin has a verification record (else no column)."""
    if inp.record is None:
        return []
    return [
        sitl_cell(
            inp.record,
            name,
            inp.derived_params.get(name),
            inp.comparison.metadata,
            inp.derived_sha256,
        )
    ]


def _confirmed(inp: ReportInputs) -> Iterator[str]:
    yield from confirmed_section(
        inp.record, inp.derived_params, inp.derived_sha256, inp.comparison.metadata
    )


def _deltas(inp: ReportInputs) -> Iterator[str]:
    d = inp.derived
    yield "## Overlay: deliberate deltas"
    yield ""
    rows = []
    for delta in d.overlay.deltas:
        shipped = d.base.file.params.get(delta.param)
        where = (
            f"{shipped.text} ({shipped.file.rsplit('/', 1)[-1]}:{shipped.line})"
            if shipped
            else "not set"
        )
        rows.append(
            [f"`{delta.param}`", where, format_value(delta.value), delta.reason, delta.ref or ""]
        )
    yield from markdown_table(
        ["param", "shipped", "derived", "reason", "ref"],
        rows,
        empty="None: every value in the derived file is the shipped one.",
    )
    yield ""


def _left_out(inp: ReportInputs) -> Iterator[str]:
    d = inp.derived
    yield "### Left out of the derived file"
    yield ""
    rows = []
    for rule, params in d.excluded.items():
        names = sorted(p.name for p in params)
        shown = ", ".join(f"`{n}`" for n in names[:8]) + (
            f" … (+{len(names) - 8})" if len(names) > 8 else ""
        )
        rows.append([rule.label, str(len(params)), rule.reason, shown])
    yield from markdown_table(
        ["rule", "count", "reason", "parameters"], rows, empty="Nothing: every shipped parameter."
    )
    yield ""
    total = len(d.base.file.params)
    yield f"The derived file carries {len(d.lines)} of {total} shipped parameters."
    yield ""


def _sitl(inp: ReportInputs) -> Iterator[str]:
    if inp.sitl is None:
        return
    yield "## What SITL actually runs"
    yield ""
    yield from layer_md(
        inp.sitl.layers, inp.derived, inp.sitl.flags, inp.sitl.accepted, inp.metadata
    )
    yield ""


def _launches(inp: ReportInputs) -> Iterator[str]:
    if inp.launches:
        yield from launch_md(inp.launches, inp.derived.overlay.file)


def _warnings(inp: ReportInputs) -> Iterator[str]:
    comp = inp.comparison
    yield "## Warnings"
    yield ""
    warnings = [f"{role}: {w}" for role, w in comp.warnings]
    versions = {s.role: s.version for s in comp.sources if s.version}
    if len(set(versions.values())) > 1:
        warnings.insert(
            0, "version mismatch: " + ", ".join(f"{r} is {v}" for r, v in versions.items())
        )
    for line in warnings or ["none"]:
        yield f"- {line}"
    yield ""


def _full_table(inp: ReportInputs) -> Iterator[str]:
    comp = inp.comparison
    not_same = sum(n for (_, status), n in inp.tally.items() if status != SAME)
    yield "<details>"
    yield f"<summary>Full table: {len(comp.rows)} parameters ({not_same} not the same)</summary>"
    yield ""
    yield from render(comp, "markdown", preamble=False)
    yield ""
    yield "</details>"
