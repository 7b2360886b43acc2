"""`report` of a profile whose pin has no sitl_models role (#31): one Error line naming the
role to add, not a KeyError (exit 3)."""

from __future__ import annotations

from pathlib import Path

from helpers import OVERLAY_YAML, SOURCES_YAML, build_mirror, location_args, run_cli, small_upstream


def test_report_without_a_model_role(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    yaml = "".join(ln for ln in SOURCES_YAML.splitlines(True) if "sitl_models:" not in ln)
    yaml = yaml.replace("    joint_roles: {motor_port_joint: 73, motor_stbd_joint: 74}\n", "")
    (root / "sources.yaml").write_text(yaml)
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    build_mirror(tmp_path / "mirror", small_upstream())
    loc = location_args(root, tmp_path / "cache", tmp_path / "mirror")
    for command in ("fetch", "derive"):
        result = run_cli([command, *loc])
        assert result.exit_code == 0, (command, result.output)
    result = run_cli(["report", *loc])
    assert result.exit_code == 2, result.output
    assert result.output == (
        "Error: sources.yaml: profile 'boat' pin 1.0 has no sitl_models role, and the report "
        "compares hardware, sitl, sitl_models — add the role to the pin in sources.yaml and "
        "run paramdiff fetch (derive works without it)\n"
    )
    assert not (root / "reports").exists()
    result = run_cli(["check", *loc])
    assert result.exit_code in (0, 1, 2), result.output
    assert "internal error" not in result.output
