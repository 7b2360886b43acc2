"""Lone-CR line endings (#31): what the firmware reads. ArduPilot's defaults reader
(libraries/AP_Param/AP_Param.cpp read_param_defaults_file, through
libraries/AP_Filesystem/AP_Filesystem.cpp AP_Filesystem::fgets) ends a line at \\r or \\n, as
show/diff do; a loader that splits on \\n (or \\r\\n) only sees one long line. A warning names
the loaders (parse/loaders.py) that read the file differently."""

from __future__ import annotations

from pathlib import Path

from helpers import run_cli

from paramdiff.parse.loaders import ardupilot_defaults, qgroundcontrol
from paramdiff.parse.param_text import parse_params

CR = b"FRAME_CLASS 2\rSERVO1_FUNCTION 74\rSERVO3_FUNCTION 73\r"


def test_the_firmware_reads_lone_cr_lines_as_show_does() -> None:
    firmware = ardupilot_defaults(CR)
    ours = parse_params(CR, "boat.params")
    assert {n: v.value for n, v in firmware.values.items()} == {
        n: p.value for n, p in ours.params.items()
    }
    assert len(qgroundcontrol(CR).values) < 3  # one long line for QTextStream::readLine


def test_show_warns_naming_the_loaders_that_differ(tmp_path: Path) -> None:
    path = tmp_path / "boat.params"
    path.write_bytes(CR)
    result = run_cli(["show", str(path)])
    assert result.exit_code == 0, result.output
    warnings = [ln for ln in result.output.splitlines() if "lone CR" in ln]
    assert len(warnings) == 1, result.output
    assert "ArduPilot's defaults reader" in warnings[0]
    assert "qgroundcontrol" in warnings[0]
    assert "mavproxy" not in warnings[0].split("differently:")[1]
    path.write_bytes(CR.replace(b"\r", b"\n"))
    assert "lone CR" not in run_cli(["show", str(path)]).output
    path.write_bytes(CR.replace(b"\r", b"\r\n"))
    assert "lone CR" not in run_cli(["show", str(path)]).output
