"""sources.yaml and overlay validation: errors name the key path, the line and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from paramdiff.config.sources import parse_config
from paramdiff.errors import ConfigError

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


def test_good_config_parses() -> None:
    cfg = parse_config(GOOD.encode(), "sources.yaml", Path("."))
    assert cfg.profile(None).pins["1"]["hardware"].line == 6


# Hostile sources.yaml and overlay files live in tests/corpus/{sources,overlays}/ with the
# exact Error line each must give (tests/test_corpus.py runs them through the CLI).


def test_target_models_may_name_a_pinned_sdf_role() -> None:
    with_model = GOOD.replace(
        "  b:\n", "  b:\n    target_models: [sitl_models]\n    sitl_vehicle: Rover\n"
    ) + (
        "        sitl_models:\n          repo: acme/models\n          ref: main\n"
        "          path: m.sdf\n          format: sdf\n"
    )
    cfg = parse_config(with_model.encode(), "sources.yaml", Path("."))
    assert cfg.profile("b").target_models == ("sitl_models",)
    assert cfg.profile("b").sitl_vehicle == "Rover"
    bad = GOOD.replace("  b:\n", "  b:\n    target_models: [hardware]\n")
    with pytest.raises(ConfigError) as err:
        parse_config(bad.encode(), "sources.yaml", Path("."))
    assert str(err.value) == (
        "sources.yaml:4: target model 'hardware' is not an sdf role of pin '1' — name an sdf "
        "role (e.g. sitl_models) or a model path in this repository"
    )


def test_fetch_targets_cover_every_profile_with_the_pin() -> None:
    two = GOOD + GOOD.split("profiles:\n", 1)[1].replace("  b:", "  c:").replace('"1"', '"2"')
    cfg = parse_config(two.encode(), "sources.yaml", Path("."))
    assert [(p.name, pin) for p, pin in cfg.fetch_targets(None, None)] == [("b", "1"), ("c", "2")]
    assert [(p.name, pin) for p, pin in cfg.fetch_targets(None, "2")] == [("c", "2")]
    with pytest.raises(ConfigError, match=r"no profile in sources\.yaml has pin '3'"):
        cfg.fetch_targets(None, "3")


def test_fetch_with_a_profile_alone_covers_every_pin_check_checks() -> None:
    """`check --profile P` checks every pin of P, so `fetch --profile P` fetches every one."""
    pin_two = GOOD.split("    pins:\n", 1)[1].replace('"1"', '"2"')
    two_pins = GOOD.replace("    pins:\n", '    default_pin: "1"\n    pins:\n') + pin_two
    cfg = parse_config(two_pins.encode(), "sources.yaml", Path("."))
    assert [pin for _, pin in cfg.fetch_targets("b", None)] == ["1", "2"]
    assert [pin for _, pin in cfg.fetch_targets("b", "1")] == ["1"]
