"""Renamed parameters paired across firmware versions: the data file, the conversions, the
pairing rule, and `paramdiff diff` on small files written here."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from helpers import run_cli

from paramdiff.comparison.renames import (
    REGENERATE,
    Conversion,
    arming_checks_to_skips,
    firmware_key,
    known_renames,
    pair_renames,
    table_bytes,
)
from paramdiff.comparison.renames_yaml import parse_renames
from paramdiff.comparison.side_by_side import RENAMED, RENAMED_DIFFERS, compare
from paramdiff.errors import InputError
from paramdiff.model.metadata import ParamMeta
from paramdiff.parse.named_files import local_sources

OLD = """# Version: 4.6.3-STABLE
SR0_EXTRA1 10
SR0_POSITION 2
RNGFND1_MAX_CM 20000
RNGFND1_MIN_CM 20
ARMING_CHECK 1
EK3_MAX_FLOW 2.5
FRAME_CLASS 2
"""
NEW = """# Version: 4.7.0-BETA
MAV1_EXTRA1 1
MAV1_POSITION 2
RNGFND1_MAX 100
RNGFND1_MIN 0.2
ARMING_SKIPCHK 0
EK3_FLOW_MAX 2.5
FRAME_CLASS 2
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def invoke(*args: str) -> object:
    return run_cli(list(args))


# --------------------------------------------------------------------------- the data file


def test_patterns_expand_with_offsets_and_ranges() -> None:
    renames = parse_renames(
        """
renames:
  - old: "SR{n}_{s}"
    new: "MAV{n+1}_{s}"
    for: {n: "0..2", s: [EXTRA1, ADSB]}
    since: "4.7"
    source: a wiki page
  - old: "R{x}_CM"
    new: "R{x}_M"
    for: {x: ["1", "A"]}
    since: "4.7"
    convert: {scale: 0.01, units: "cm → m"}
    source: a PR
"""
    )
    assert sorted(renames) == [
        "R1_CM",
        "RA_CM",
        "SR0_ADSB",
        "SR0_EXTRA1",
        "SR1_ADSB",
        "SR1_EXTRA1",
        "SR2_ADSB",
        "SR2_EXTRA1",
    ]
    assert renames["SR2_ADSB"].new == "MAV3_ADSB"
    assert renames["RA_CM"].new == "RA_M"
    assert renames["RA_CM"].conversion.apply(20000) == 200
    assert renames["SR0_ADSB"].conversion.identity


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("renames: {}", "no 'renames:' list"),
        ("renames: [{old: A, new: B, since: '4.7'}]", "needs old, new, since and source"),
        ("renames: [{old: A, new: B, since: '4.7', source: s, typo: 1}]", "needs old, new"),
        ("renames: [{old: A, new: B, since: '4.7', source: s, convert: {rule: x}}]", "rule 'x'"),
        ("renames: [{old: A, new: B, since: '4.7', source: s, convert: {k: 1}}]", "'convert'"),
        ("renames: [{old: 'A{n}', new: B, since: '4.7', source: s, for: {n: 3}}]", "a value list"),
    ],
)
def test_a_malformed_entry_is_an_input_error(text: str, what: str) -> None:
    with pytest.raises(InputError, match=r"paramdiff/data/renames\.yaml") as err:
        parse_renames(text)
    assert what in str(err.value)


def test_the_shipped_renames_cover_the_4_7_changes_and_cite_a_source() -> None:
    renames = known_renames()
    assert renames["SR0_EXTRA1"].new == "MAV1_EXTRA1"
    assert renames["SR9_ADSB"].new == "MAV10_ADSB"
    assert renames["SYSID_THISMAV"].new == "MAV_SYSID"
    assert renames["EK3_MAX_FLOW"].new == "EK3_FLOW_MAX"
    assert renames["RNGFNDA_GNDCLEAR"].new == "RNGFNDA_GNDCLR"
    assert renames["RNGFND1_MAX_CM"].conversion == Conversion(0.01, "cm → m")
    assert renames["ARMING_CHECK"].conversion.rule == "arming_checks_to_skips"
    assert "CAM_RC_TYPE" not in renames  # its meaning changed: not a rename
    assert all(r.source and r.since == "4.7" for r in renames.values())
    assert len({r.new for r in renames.values()}) == len(renames)  # one old name per new name


def test_the_shipped_table_is_what_renames_yaml_expands_to() -> None:
    """renames.json (what `diff` reads) is generated from renames.yaml: regenerate it with
    docs/tests.md's regenerate command after editing the YAML."""
    data = Path(__file__).resolve().parent.parent / "paramdiff" / "data"
    expanded = parse_renames((data / "renames.yaml").read_text(encoding="utf-8"))
    assert (data / "renames.json").read_bytes() == table_bytes(expanded), REGENERATE
    assert known_renames() == expanded


# --------------------------------------------------------------------------- conversions


def test_arming_check_becomes_the_checks_to_skip() -> None:
    documented = ParamMeta(
        "ARMING_CHECK", {"Bitmask": {str(b): f"bit {b}" for b in (0, 1, 2, 3, 4, 5, 12)}}
    )
    assert arming_checks_to_skips(1) == 0  # ALL: skip nothing
    assert arming_checks_to_skips(1 | 2 | 4) == 0
    assert arming_checks_to_skips(0) == -1  # no checks: skip every current and future one
    # Compass, GPS lock, INS, GPS configuration run; every other documented check is skipped.
    assert arming_checks_to_skips(4 | 8 | 16 | 4096, documented) == 2 + 32
    # Without metadata: Rover 4.6's documented bits (1-8, 10-19), as BlueBoat120.params shows.
    assert arming_checks_to_skips(4124) == 1043938


def test_firmware_versions_compare_as_numbers() -> None:
    assert firmware_key("4.10") > firmware_key("4.7")  # type: ignore[operator]
    assert firmware_key(None) is None and firmware_key("beta") is None


# --------------------------------------------------------------------------- pairing


def test_diff_pairs_renamed_rows_and_converts_old_values(tmp_path: Path) -> None:
    old, new = write(tmp_path, "old.params", OLD), write(tmp_path, "new.params", NEW)
    comp = compare(local_sources([old, new]))
    assert sorted(comp.renames) == [
        "ARMING_SKIPCHK",
        "EK3_FLOW_MAX",
        "MAV1_EXTRA1",
        "MAV1_POSITION",
        "RNGFND1_MAX",
        "RNGFND1_MIN",
    ]
    assert "SR0_EXTRA1" not in comp.rows and "ARMING_CHECK" not in comp.rows
    status = {name: row.status for name, row in comp.rows.items()}
    assert status["MAV1_EXTRA1"] == RENAMED_DIFFERS  # 10 Hz -> 1 Hz, hidden before
    assert status["MAV1_POSITION"] == RENAMED
    assert status["RNGFND1_MAX"] == RENAMED_DIFFERS  # 20000 cm is 200 m, not 100 m
    assert status["RNGFND1_MIN"] == RENAMED  # 20 cm is 0.2 m
    assert status["ARMING_SKIPCHK"] == RENAMED  # ALL -> skip nothing
    assert str(status["FRAME_CLASS"]) == "same"
    assert str(status["MAV1_EXTRA1"]) == "renamed, differs"
    assert str(status["RNGFND1_MIN"]) == "renamed"
    assert comp.cell("old.params", "RNGFND1_MAX") == "20000 → 200"
    assert comp.value("old.params", "RNGFND1_MAX") == 200
    assert comp.param("old.params", "RNGFND1_MAX").name == "RNGFND1_MAX_CM"  # type: ignore[union-attr]
    frame = comp.frame
    assert frame.loc["RNGFND1_MAX", "old.params"] == 200


def test_tables_make_each_cell_as_comparison_cell_says(tmp_path: Path) -> None:
    """The tables make a role's cells a column at a time (render.comparison._column): every
    cell is Comparison.cell's — renamed rows converted, absent values, n/r in a model."""
    from helpers import FIXTURES

    from paramdiff.render.comparison import _rows, _text_table

    old, new = (
        write(tmp_path, "old.params", OLD + "SERVO1_MIN 1100\n"),
        write(tmp_path, "new.params", NEW),
    )
    comp = compare(local_sources([old, new, FIXTURES / "model.sdf"]))
    names = list(comp.rows)
    want = [[comp.cell(r, n) for r in comp.roles] for n in names]
    assert {"—", "n/r", "20000 → 200"} <= {c for row in want for c in row}
    assert [row[1:4] for row in _rows(comp, names)] == want
    assert [row[1:4] for row in _text_table(comp, names)[1]] == want


def test_diff_output_shows_both_names_in_every_format(tmp_path: Path) -> None:
    old, new = write(tmp_path, "old.params", OLD), write(tmp_path, "new.params", NEW)
    text = invoke("diff", str(old), str(new))
    assert text.exit_code == 1, text.output  # two renamed values differ once converted
    # Text (for a terminal): the row under its current name, so OLD → NEW never widens the
    # name column; the pair is listed below the table.
    lines = text.output.splitlines()
    row = next(ln for ln in lines if ln.startswith("RNGFND1_MAX "))
    assert "20000 → 200" in row and "renamed, differs" in row
    assert not any(ln.startswith("RNGFND1_MAX_CM") for ln in lines)
    note = lines.index(
        "Renamed (old name → the name shown; old values converted where a rule says how):"
    )
    assert "  RNGFND1_MAX_CM → RNGFND1_MAX" in lines[note + 1 :]
    rule = next(ln for ln in lines if ln.startswith("---"))
    assert len(rule.split("  ")[0]) < len("RNGFND1_MAX_CM → RNGFND1_MAX")
    rows = list(
        csv.reader(io.StringIO(invoke("diff", str(old), str(new), "--format", "csv").output))
    )
    assert rows[0][-1] == "renamed_from"
    by_name = {r[0]: r for r in rows[1:]}
    assert by_name["RNGFND1_MAX"] == [
        "RNGFND1_MAX",
        "20000",
        "100",
        "renamed, differs",
        "uncategorised",  # a local file without its firmware's metadata in a project here
        "",
        "RNGFND1_MAX_CM",
    ]
    assert by_name["FRAME_CLASS"][-1] == ""
    doc = json.loads(invoke("diff", str(old), str(new), "--format", "json").output)
    entry = next(p for p in doc["parameters"] if p["name"] == "RNGFND1_MAX")
    assert entry["renamed_from"]["name"] == "RNGFND1_MAX_CM"
    assert entry["renamed_from"]["conversion"] == "cm → m (× 0.01)"
    assert entry["values"]["old.params"]["name"] == "RNGFND1_MAX_CM"
    assert entry["values"]["old.params"]["converted"] == 200
    assert entry["values"]["new.params"]["name"] == "RNGFND1_MAX"
    assert "converted" not in entry["values"]["new.params"]


def test_selection_follows_both_names(tmp_path: Path) -> None:
    old, new = write(tmp_path, "old.params", OLD), write(tmp_path, "new.params", NEW)
    out = invoke("diff", str(old), str(new), "--param", "SR0_*", "--format", "csv").output
    assert [r[0] for r in csv.reader(io.StringIO(out))][1:] == ["MAV1_EXTRA1", "MAV1_POSITION"]
    out = invoke("diff", str(old), str(new), "--only-differences", "--format", "csv").output
    assert [r[0] for r in csv.reader(io.StringIO(out))][1:] == ["MAV1_EXTRA1", "RNGFND1_MAX"]


def test_a_new_firmware_file_keeping_an_old_name_is_not_paired(tmp_path: Path) -> None:
    stale = write(tmp_path, "stale.params", "# Version: 4.7.0\nSR0_EXTRA1 10\n")
    new = write(tmp_path, "new.params", NEW)
    comp = compare(local_sources([stale, new]))
    assert comp.renames == {}  # 4.7 ignores SR0_EXTRA1: two rows, as the firmware sees it
    assert str(comp.rows["SR0_EXTRA1"].status) == "only in stale.params"
    old_header = write(tmp_path, "old_header.params", "# Version: 4.6.3\nMAV1_EXTRA1 1\n")
    old = write(tmp_path, "old.params", OLD)
    assert pair_renames(local_sources([old, old_header])) == {}


def test_no_version_lets_the_names_decide_and_both_names_in_one_file_do_not_pair(
    tmp_path: Path,
) -> None:
    a = write(tmp_path, "a.params", "SR0_EXTRA1 4\n")
    b = write(tmp_path, "b.params", "MAV1_EXTRA1 4\n")
    comp = compare(local_sources([a, b]))
    assert comp.rows["MAV1_EXTRA1"].status == RENAMED
    assert not comp.rows["MAV1_EXTRA1"].status.disagrees
    assert invoke("diff", str(a), str(b)).exit_code == 0  # a rename alone is no difference
    both = write(tmp_path, "both.params", "SR0_EXTRA1 4\nMAV1_EXTRA1 4\n")
    assert pair_renames(local_sources([both, b])) == {}


def test_renames_can_be_turned_off(tmp_path: Path) -> None:
    old, new = write(tmp_path, "old.params", OLD), write(tmp_path, "new.params", NEW)
    comp = compare(local_sources([old, new]), renames={})
    assert str(comp.rows["SR0_EXTRA1"].status) == "only in old.params"


def test_review_lists_a_renamed_parameter_under_both_names_with_each_origin(
    tmp_path: Path,
) -> None:
    from paramdiff.review.changes import param_changes

    old, new = write(tmp_path, "old.params", OLD), write(tmp_path, "new.params", NEW)
    comp = compare(local_sources([old, new]))
    changes = {
        c.name: c for c in param_changes("4.7", "hw", comp, "old.params", "new.params", None)
    }
    rng = changes["RNGFND1_MAX_CM → RNGFND1_MAX"]
    assert (rng.status, rng.old, rng.new) == ("renamed, differs", "20000 → 200", "100")
    assert rng.old_at.endswith("old.params:4") and rng.new_at.endswith("new.params:4")


def test_a_vehicle_whose_metadata_keeps_the_old_name_is_not_paired(tmp_path: Path) -> None:
    from paramdiff.model.metadata import Metadata

    old = local_sources([write(tmp_path, "old.params", "# Version: 4.6.0\nRTL_SPEED 2\n")])[0]
    new = local_sources([write(tmp_path, "new.params", "# Version: 4.7.0\nRTL_SPEED_MS 2\n")])[0]
    assert pair_renames([old, new])  # by the names alone: Copter's cm/s -> m/s rename
    # Rover 4.7 still defines RTL_SPEED (in m/s): its files never use RTL_SPEED_MS for it.
    rover47 = Metadata("Rover-4.7/apm.pdef.json", "4.7", {"RTL_SPEED": {}})
    assert pair_renames([old, new._replace(metadata=rover47)]) == {}
    rover46 = Metadata("Rover-4.6/apm.pdef.json", "4.6", {"RTL_SPEED_MS": {}})
    assert pair_renames([old._replace(metadata=rover46), new]) == {}
