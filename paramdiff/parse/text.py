"""Bytes to text lines, and which format a file is in. Pure functions, no I/O."""

from __future__ import annotations

import re

from paramdiff.errors import InputError

# A BlueOS ``NAME: VALUE`` line (params.py reads them; detect_format recognises them)
BLUEOS_RE = re.compile(r"^([^:\s]+)\s*:\s*([^,\s]+)\s*,?\s*$")


def ascii_int(text: str) -> bool:
    """A non-negative integer in ASCII digits (str.isdigit also accepts '١' and '１')."""
    return text.isascii() and text.isdigit()


# What is wrong with bytes that should be text, in the words of each kind of file:
# (what, fix) for an empty file, UTF-16/32 text, a NUL byte, bytes that are not UTF-8.
TextWords = dict[str, tuple[str, str]]
PARAMS_WORDS: TextWords = {
    "empty": ("file is empty", "check the path, or fetch the file again"),
    "utf16": (
        "UTF-16 text, not a parameter file as ArduPilot reads one (ASCII)",
        "save the file as UTF-8 (parameter files are ASCII)",
    ),
    "nul": ("binary data (NUL byte), not a parameter file", "pass a text parameter file"),
    "utf8": ("not UTF-8 text", "save the file as UTF-8 (parameter files are ASCII)"),
}


def check_text(data: bytes, file: str, words: TextWords) -> str:
    """``data`` as text, or an InputError at the line of what makes it not UTF-8 text."""
    problem, line = None, 1
    if not data.strip():
        problem = "empty"
    elif utf16_text(data):
        problem = "utf16"
    elif (nul := data.find(b"\0")) >= 0:
        problem, line = "nul", data[:nul].count(b"\n") + 1
    else:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            problem, line = "utf8", data[: exc.start].count(b"\n") + 1
    what, fix = words[problem]
    raise InputError(what, fix, file=file, line=line)


def decode(data: bytes, file: str) -> list[str]:
    """Text lines of a file, or an InputError for empty, binary or non-UTF-8 input."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    text = check_text(data, file, PARAMS_WORDS)
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def utf16_text(data: bytes) -> bool:
    """Whether ``data`` looks like UTF-16 or UTF-32 text: a BOM, or NUL beside ASCII in the
    first two characters (a UTF-8 file never starts so)."""
    head = data[:4]
    return head.startswith((b"\xff\xfe", b"\xfe\xff")) or (
        len(head) == 4
        and (head[1] == 0 or head[0] == 0)
        and head.strip(b"\0").isascii()
        and any(head)
        and head.count(0) >= 2
    )


def _xml_head(data: bytes) -> bool:
    """Whether the file starts with "<" (after a BOM and white space; UTF-16 as well)."""
    head = data[:4096]
    if utf16_text(head):
        head = head.replace(b"\0", b"").lstrip(b"\xff\xfe")
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<")


def detect_format(data: bytes, file: str = "") -> str:
    lower = file.lower()
    if lower.endswith((".sdf", ".xml", ".world")) or _xml_head(data):
        return "sdf"
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if lower.endswith(".json"):
        return "pdef"
    for raw in head.decode("utf-8", "replace").splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("%include") or line.startswith("//"):
            return "blueos"
        if line.startswith("#"):
            if line.startswith("# Onboard parameters") or "Vehicle-Id" in line:
                return "qgc"
            continue
        fields = line.split("\t")
        if len(fields) >= 4 and ascii_int(fields[0].strip()) and ascii_int(fields[1].strip()):
            return "qgc"
        if BLUEOS_RE.match(line.split("//")[0].strip()):
            return "blueos"
        if "," in line.split("#")[0]:
            return "mp"
        return "params"
    return "params"
