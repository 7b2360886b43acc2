"""Parameter names and values as ArduPilot stores them: float32, names of at most 16 characters."""

from __future__ import annotations

import functools
import math
import re
import struct

from paramdiff.errors import quote

NAME_RE = re.compile(r"[A-Z][A-Z_0-9]*\Z")
NAME_MAX = 16
# ArduPilot reads values with C's strtof (AP_Param::parse_param_line in
# libraries/AP_Param/AP_Param.cpp), which knows ASCII digits only: Arabic-Indic or full-width
# digits read as 0 there, so they are errors here. re.ASCII keeps \d to [0-9]; \Z refuses
# the trailing newline that $ would allow.
NUMBER_RE = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z", re.ASCII)
FLOAT32_SAFE = 3.4e38  # below float32's largest finite value, so no rounding to inf

_F32 = struct.Struct("<f")


def float32(x: float) -> float:
    """The value ArduPilot would store (it keeps every parameter as float32)."""
    try:
        return float(_F32.unpack(_F32.pack(x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


def same_value(a: float, b: float) -> bool:
    """Equal as ArduPilot would store them: float32, within two float32 ulps."""
    if a == b:
        return True
    fa, fb = float32(a), float32(b)
    return fa == fb or math.isclose(fa, fb, rel_tol=2.0**-22, abs_tol=1e-12)


# A table repeats few values (133 distinct in a diff's 2,202): formatting them 0.54 -> 0.25 ms.
@functools.lru_cache(maxsize=4096)
def format_value(x: float) -> str:
    """The shortest decimal that reads back as the same float32, written as a person would."""
    if x == int(x) and abs(x) < 2**53:
        return str(int(x))
    target = float32(x)
    for digits in range(1, 18):
        text = f"{x:.{digits}g}"
        if float32(float(text)) == target:
            break
    if "e" in text or "E" in text:
        text = f"{float(text):.20f}".rstrip("0").rstrip(".")
    return text


def check_name(name: str) -> tuple[str, str] | None:
    """(problem, fix) when ``name`` is not an ArduPilot parameter name."""
    if len(name) > NAME_MAX:
        return (
            f"name '{quote(name)}' is {len(name)} characters; ArduPilot names are at most "
            f"{NAME_MAX} and its loader would silently skip this line",
            "correct the name against the firmware's parameter list",
        )
    if not NAME_RE.match(name) and NAME_RE.match(name.upper()):
        # AP_Param::find (libraries/AP_Param/AP_Param.cpp, ardupilot@00bc4884) compares a
        # group's prefix (SERVO, RC, BATT...) with strncmp and a Vector3f's _X/_Y/_Z suffix
        # exactly, so `servo1_function 74` sets nothing in SITL: refused here, never uppercased.
        return (
            f"name '{quote(name)}' is not upper-case; ArduPilot matches parameter names "
            "case-sensitively (AP_Param::find) and ignores this line",
            f"write it as {name.upper()}",
        )
    if not NAME_RE.match(name):
        return (
            f"name '{quote(name)}' is not a parameter name (upper-case letters, digits and _, "
            "starting with a letter)",
            "correct the name; ArduPilot would silently ignore it",
        )
    return None


def parse_number(text: str) -> tuple[float | None, str | None]:
    """(value, None) or (None, problem)."""
    if NUMBER_RE.match(text):
        value = float(text)  # safe: the grammar above is a subset of float()'s
        if math.isfinite(value) and math.isfinite(float32(value)):
            return value, None
        return None, f"value '{quote(text)}' does not fit a float32 parameter"
    low = text.lower().lstrip("+-")
    if low in ("nan", "inf", "infinity"):
        return None, f"value '{text}' is not a finite number"
    if any(c.isdigit() and not c.isascii() for c in text):
        return None, (
            f"value '{quote(text)}' uses non-ASCII digits (ArduPilot's strtof reads only 0-9)"
        )
    return None, f"value '{quote(text)}' is not a number"
