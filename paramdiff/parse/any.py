"""Any input file (parameter text formats, SDF, name lists) to rows, by its format."""

from __future__ import annotations

from paramdiff.errors import InputError
from paramdiff.model.params import ParamFile
from paramdiff.parse.param_text import IncludeReader, parse_params
from paramdiff.parse.text import decode, detect_format


def parse_names(data: bytes, file: str) -> list[str]:
    """A list of parameter names (or name fragments), one a line, ``#`` comments allowed."""
    names = []
    for raw in decode(data, file):
        line = raw.split("#", 1)[0].strip()
        if line:
            names.append(line)
    return names


def parse_any(
    data: bytes,
    file: str,
    fmt: str = "auto",
    *,
    lenient: bool = False,
    joint_roles: dict[str, int] | None = None,
    read_include: IncludeReader | None = None,
    include_root: str = "",
) -> ParamFile:
    """Any supported file (params formats or SDF) as a ParamFile."""
    if fmt == "auto":
        fmt = detect_format(data, file)
    if fmt == "sdf":
        # Imported for an SDF only: xml.etree, defusedxml and the SDF modules are ~6 ms
        # (python -X importtime) of a `diff A.params B.params` that reads no XML.
        from paramdiff.parse.sdf import parse_sdf

        return parse_sdf(data, file, joint_roles)
    if fmt in ("names", "pdef", "thrust_table"):
        raise InputError(
            f"a '{fmt}' file holds no parameter values",
            "compare parameter files or SDF models",
            file=file,
            line=1,
        )
    return parse_params(
        data, file, fmt, lenient=lenient, read_include=read_include, include_root=include_root
    )
