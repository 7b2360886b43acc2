"""sources.yaml and overlay validation: errors name the key path, the line and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from paramdiff.errors import ConfigError
from paramdiff.overlays import parse_overlay
from paramdiff.sources import parse_config

GOOD = """\
version: 1
profiles:
  b:
    pins:
      "1":
        hardware:
          repo: acme/params
          ref: master
          path: a/b.params
"""


def error_of(text: str) -> str:
    with pytest.raises(ConfigError) as err:
        parse_config(text.encode(), "sources.yaml", Path("."))
    return str(err.value)


def test_good_config_parses() -> None:
    cfg = parse_config(GOOD.encode(), "sources.yaml", Path("."))
    assert cfg.profile(None).pins["1"]["hardware"].line == 6


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "          path: a/b.params",
            "          path: a/b.params\n          colour: red",
            "sources.yaml:10: unknown key 'profiles.b.pins.1.hardware.colour' — remove it or use "
            "one of: firmware, format, lenient, path, ref, repo, transport",
        ),
        (
            "path: a/b.params",
            "path: ../b.params",
            "sources.yaml:9: 'profiles.b.pins.1.hardware.path' contains '..': ../b.params",
        ),
        (
            "path: a/b.params",
            "path: /etc/passwd",
            "sources.yaml:9: 'profiles.b.pins.1.hardware.path' is an absolute path: /etc/passwd",
        ),
        (
            "ref: master",
            "ref: -oProxyCommand=x",
            "sources.yaml:8: 'profiles.b.pins.1.hardware.ref' is not a safe git ref",
        ),
        (
            "repo: acme/params",
            "repo: acme/my params",
            "sources.yaml:7: 'profiles.b.pins.1.hardware.repo' is not an owner/name repository",
        ),
        (
            "          path: a/b.params",
            "          path: a/b.params\n          transport: ssh",
            "sources.yaml:10: unsupported transport 'ssh' for role 'hardware' (file://, ssh:// and "
            "other schemes are refused outside an explicit --mirror)",
        ),
        (
            "          ref: master\n",
            "",
            "sources.yaml:6: 'profiles.b.pins.1.hardware' is missing 'ref' — add 'ref:'",
        ),
        ("version: 1", "version: 1\nversion: 2", "sources.yaml:2: key 'version' appears twice"),
    ],
)
def test_config_errors(old: str, new: str, message: str) -> None:
    assert error_of(GOOD.replace(old, new)).startswith(message)


OVERLAY = """\
version: 1
base: hardware
deltas:
  - param: SERVO1_TRIM
    value: 1500
    was: 1510
    reason: neutral
"""


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("    reason: neutral\n", "", "o.yaml:4: 'deltas.0' is missing 'reason'"),
        ("reason: neutral", "reason: ''", "o.yaml:7: delta SERVO1_TRIM has no reason"),
        ("param: SERVO1_TRIM", "param: servo1_trim", "o.yaml:4: name 'servo1_trim' is not"),
        ("value: 1500", "value: fast", "o.yaml:5: delta SERVO1_TRIM value: value 'fast' is not"),
    ],
)
def test_overlay_errors(old: str, new: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_overlay(OVERLAY.replace(old, new).encode(), "o.yaml")
    assert str(err.value).startswith(message)
