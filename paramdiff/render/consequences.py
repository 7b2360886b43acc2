"""What a disagreement does to the vehicle, for the report's disagreement table (the
actuator numbers' own sentences are in render.fidelity)."""

from __future__ import annotations

from ..model.values import format_value, same_value
from ..stages.compare import Comparison


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
