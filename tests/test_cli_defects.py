"""Small defects from issue #10 item 4, each pinned by a test that failed before its fix."""

from __future__ import annotations

from pathlib import Path

from helpers import FIXTURES, run_cli

from paramdiff.comparison.sitl_layers import stack
from paramdiff.model.source import Source
from paramdiff.parse.param_text import parse_params
from paramdiff.render.layers_table import render_layers


def invoke(*args: str) -> object:
    return run_cli(list(args))


def test_diff_exits_1_when_rows_differ_and_0_when_none_do(tmp_path: Path) -> None:
    hw, sitl = str(FIXTURES / "hardware.params"), str(FIXTURES / "sitl.params")
    out = invoke("diff", hw, sitl)
    assert out.exit_code == 1, out.output
    assert "differs" in out.output
    copy = tmp_path / "copy.params"
    copy.write_bytes((FIXTURES / "hardware.params").read_bytes())
    same = invoke("diff", hw, str(copy))
    assert same.exit_code == 0, same.output
    # The exit code follows the rows shown: a filter that leaves only equal rows exits 0.
    one = invoke("diff", hw, sitl, "--param", "NO_SUCH_*")
    assert one.exit_code == 0, one.output


def test_show_one_file_does_not_call_its_rows_not_representable() -> None:
    out = invoke("show", str(FIXTURES / "hardware.params"))
    assert out.exit_code == 0, out.output
    assert "not representable" not in out.output
    rows = [ln.split() for ln in out.output.splitlines() if ln.startswith("SERVO1_TRIM")]
    assert rows == [["SERVO1_TRIM", "1510", "set"]]
    csv = invoke("show", str(FIXTURES / "hardware.params"), "--format", "csv").output
    assert {ln.split(",")[2] for ln in csv.splitlines()[1:]} == {"set"}


def test_layers_prints_large_integers_as_written() -> None:
    frame = Source("rover.parm", parse_params(b"ARMING_SKIPCHK 0\nWP_RADIUS 2\n", "rover.parm"))
    added = Source(
        "boat.params", parse_params(b"ARMING_SKIPCHK 1043938\nWP_RADIUS 0.5\n", "boat.params")
    )
    lines = list(render_layers(stack([frame, added], "rover", ("rover.parm",)), []))
    row = next(ln for ln in lines if ln.startswith("ARMING_SKIPCHK"))
    assert row.split()[:3] == ["ARMING_SKIPCHK", "1043938", "boat.params:1"]
    assert "e+" not in "\n".join(lines)
    assert next(ln for ln in lines if ln.startswith("WP_RADIUS")).split()[1] == "0.5"
