"""CI for users: `check --format github` annotations, the workflow and the pre-commit hook."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import ROOT, run_cli

from paramdiff.render.github import annotation, escape_data, escape_property

WORKFLOW = ROOT / ".github" / "workflows" / "paramdiff.yml"
HOOKS = ROOT / ".pre-commit-hooks.yaml"


def runner_parse(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command read back the way the runner reads it (actions/runner,
    src/Runner.Common/ActionCommand.cs, TryParseV2): ``::`` + command, an optional space
    and ``key=value`` pairs split on ``,``, ``::``, the data; then the escapes undone."""
    assert line.startswith("::")
    end = line.index("::", 2)
    head, data = line[2:end], line[end + 2 :]
    command, _, props = head.partition(" ")
    properties = {}
    for pair in filter(None, props.split(",")):
        key, _, value = pair.partition("=")
        properties[key] = (
            value.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",")
        ).replace("%25", "%")
    data = data.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")
    return command, properties, data


def test_escaping_follows_the_workflow_command_rules() -> None:
    assert escape_data("100% a\r\nb: c, d") == "100%25 a%0D%0Ab: c, d"
    assert escape_property("100% a\r\nb: c, d") == "100%25 a%0D%0Ab%3A c%2C d"
    line = annotation("50% over\nlimit: x, y", file="dir,a/b:c.yaml", line=7, title="t: 1, 2")
    assert line == (
        "::error file=dir%2Ca/b%3Ac.yaml,line=7,title=t%3A 1%2C 2::50%25 over%0Alimit: x, y"
    )
    assert runner_parse(line) == (
        "error",
        {"file": "dir,a/b:c.yaml", "line": "7", "title": "t: 1, 2"},
        "50% over\nlimit: x, y",
    )
    assert "\n" not in line and "\r" not in line
    assert annotation("plain") == "::error::plain"
    assert annotation("no line", file="a.yaml") == "::error file=a.yaml::no line"


def test_check_annotates_a_stale_overlay_delta_at_its_line(
    derived: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, loc = derived
    overlay = project / "overlays" / "boat.yaml"
    overlay.write_text(overlay.read_text().replace("was: 1510", "was: 1520"))
    line = 1 + overlay.read_text().splitlines().index("  - param: SERVO1_TRIM")
    monkeypatch.chdir(project)  # a workflow runs at the repository root
    result = run_cli(["check", "--format", "github", *loc])
    assert result.exit_code == 1
    errors = [ln for ln in result.output.splitlines() if ln.startswith("::error")]
    assert len(errors) == 1, result.output
    command, props, data = runner_parse(errors[0])
    assert (command, props["file"], props["line"]) == ("error", "overlays/boat.yaml", str(line))
    assert props["title"] == "paramdiff check (boat 1.0)"
    assert data.startswith(
        f"overlays/boat.yaml:{line}: delta SERVO1_TRIM is stale: written against 1520"
    )


def test_check_annotates_a_hand_edited_derived_file_at_the_first_changed_line(
    derived: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, loc = derived
    derived = project / "derived" / "boat_sitl.params"
    lines = derived.read_text().splitlines()
    i = next(n for n, ln in enumerate(lines) if ln.startswith("WP_RADIUS"))
    lines[i] = "WP_RADIUS        5"
    derived.write_text("\n".join(lines) + "\n")
    monkeypatch.chdir(project)
    result = run_cli(["check", "--format", "github", *loc])
    assert result.exit_code == 1
    errors = [runner_parse(ln) for ln in result.output.splitlines() if ln.startswith("::error")]
    located = [(p["file"], p.get("line")) for _, p, _ in errors]
    assert ("derived/boat_sitl.params", str(i + 1)) in located
    assert ("reports/boat-1.0.md", "1") not in located  # the report did not change


def test_workflow_validates_against_githubs_schema() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            str(WORKFLOW),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def zizmor() -> str:
    """zizmor (the `test` extra installs it beside this interpreter, as a binary)."""
    found = Path(sys.executable).with_name("zizmor")
    return str(found) if found.exists() else (shutil.which("zizmor") or "zizmor")


def zizmor_findings(workflow: Path) -> list[dict[str, Any]]:
    """zizmor's findings on ``workflow``, offline, at its strictest: the pedantic persona,
    no configuration file and no ignore comments honoured."""
    done = subprocess.run(
        [
            *(zizmor(), "--offline", "--no-config", "--no-ignores", "--persona", "pedantic"),
            *("--format", "json", "--no-exit-codes", str(workflow)),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def test_workflow_has_no_zizmor_findings() -> None:
    """Issue #19: 4 x unpinned-uses (high) and artipacked before; none at any severity now."""
    assert [(f["ident"], f["determinations"]["severity"]) for f in zizmor_findings(WORKFLOW)] == []


def test_zizmor_still_finds_what_the_workflow_used_to_have(tmp_path: Path) -> None:
    """The zizmor test can fail: the old workflow's flaws, put back, are found."""
    old = WORKFLOW.read_text()
    old = re.sub(r"@[0-9a-f]{40}  # v([0-9]+)\.[0-9.]+", r"@v\1", old)
    old = old.replace("          persist-credentials: false\n", "")
    bad = tmp_path / "paramdiff.yml"
    bad.write_text(old)
    found = sorted({f["ident"] for f in zizmor_findings(bad)})
    assert found == ["artipacked", "unpinned-uses"]


def test_workflow_pins_every_action_by_commit_with_its_release() -> None:
    """Every `uses:` is owner/repo@<40 hex> followed by `# vX.Y.Z`; the commits are the
    releases' (read from each action's repository: the tag's commit)."""
    uses = re.findall(r"uses: (\S+)(.*)", WORKFLOW.read_text())
    assert uses, "no actions?"
    pins = {}
    for ref, comment in uses:
        action, _, sha = ref.partition("@")
        assert re.fullmatch(r"[0-9a-f]{40}", sha), ref
        version = re.fullmatch(r"  # (v[0-9]+\.[0-9]+\.[0-9]+)", comment)
        assert version, (ref, comment)
        pins[action] = (version.group(1), sha)
    assert pins == {
        "actions/checkout": ("v4.4.0", "11d5960a326750d5838078e36cf38b85af677262"),
        "actions/setup-python": ("v5.6.0", "a26af69be951a213d495a4c3e4e4022e16d87065"),
        "actions/cache": ("v4.3.0", "0057852bfaa89a56745cba8c7296529d2fc39830"),
        "actions/github-script": ("v7.1.0", "f28e40c7f34bde8b3046d885e986cb6290c5673b"),
    }


def test_workflow_least_permissions_and_review_outside_the_checkout() -> None:
    doc = yaml.safe_load(WORKFLOW.read_text())
    assert doc["permissions"] == {}  # nothing by default; each job says what it needs
    jobs = doc["jobs"]
    assert jobs["paramdiff"]["permissions"] == {"contents": "read"}
    assert jobs["comment"]["permissions"] == {"pull-requests": "write"}
    # the job that can write runs nothing of the pull request's: no checkout, no run step
    assert [s.get("uses", "").split("@")[0] for s in jobs["comment"]["steps"]] == [
        "actions/github-script"
    ]
    checkout = jobs["paramdiff"]["steps"][0]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"]["persist-credentials"] is False
    review = next(s for s in jobs["paramdiff"]["steps"] if s.get("id") == "review")["run"]
    assert 'review="$RUNNER_TEMP/paramdiff-review.md"' in review
    assert 'paramdiff review "origin/$BASE_REF" -o "$review"' in review
    assert "review.md" not in review.replace("paramdiff-review.md", "")
    text = WORKFLOW.read_text()
    assert "paramdiff check --format github" in text
    assert "updateComment" in text and "<!-- paramdiff-review -->" in text
    assert "process.env.REVIEW" in text  # never ${{ }} inside the script


def test_pre_commit_hooks_file_is_a_valid_manifest() -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib")
    hooks = clientlib.load_manifest(str(HOOKS))
    assert [(h["id"], h["entry"], h["pass_filenames"]) for h in hooks] == [
        ("paramdiff-check", "paramdiff check", False)
    ]
    files = re.compile(hooks[0]["files"])
    for path in ("sources.yaml", "sources.lock", "overlays/b.yaml", "a/b/blueboat_sitl.params"):
        assert files.search(path), path
    assert not files.search("README.md")
