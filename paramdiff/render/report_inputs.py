"""What one profile's report shows (ReportInputs), gathered by the project, read by the
report's sections (report.py, report_model.py)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from paramdiff.comparison.side_by_side import Comparison, Status
from paramdiff.comparison.sitl_layers import SitlRun
from paramdiff.config.sources import Profile
from paramdiff.derive.derived import Derived
from paramdiff.derive.record import Record
from paramdiff.model.metadata import Metadata
from paramdiff.parse.sdf import Channel
from paramdiff.simulation.actuator_fidelity import Fidelity
from paramdiff.simulation.actuators import Geometry
from paramdiff.simulation.channels import Finding

if TYPE_CHECKING:
    from paramdiff.derive.derived_model import DerivedModel
    from paramdiff.simulation.launch_check import LaunchResult
    from paramdiff.simulation.thrust_curve import ThrustSummary


@dataclass(eq=False)  # no slots: derived_params is a cached_property
class ReportInputs:
    """Everything one profile's report shows."""

    profile: Profile
    pin: str
    comparison: Comparison
    derived: Derived
    model_channels: list[Channel]
    findings: list[Finding]
    sitl: SitlRun | None
    geometry: Geometry | None = None  # the model's channels read from its geometry
    metadata: Metadata | None = None  # the pin's own firmware
    firmwares: dict[str, Metadata] = field(default_factory=dict)  # every pinned metadata
    launches: list[LaunchResult] = field(default_factory=list)  # the declared launches, verified
    actuators: Fidelity | None = None  # the model's actuators against the firmware
    acknowledged: set[str] = field(default_factory=set)  # finding ids the overlay accepts
    model: str | None = None  # a team's own model (report --model): its path; None: sitl_models
    record: Record | None = None  # what a running SITL was seen to hold (verify --record)
    derived_sha256: str = ""  # the derived file as derive writes it (a record of another: stale)
    # The model side (#27): thruster data at the voltage, its calibration findings, the model
    thrust: ThrustSummary | None = None
    thrust_findings: list[str] = field(default_factory=list)
    derived_model: DerivedModel | None = None

    @property
    def model_label(self) -> str:
        return f"`{self.model}`" if self.model else "the model (`sitl_models`)"

    @cached_property
    def derived_params(self) -> dict[str, float]:
        """The derived file's name -> value, made once per report (it was once per row)."""
        return self.derived.params()

    @cached_property
    def tally(self) -> Counter[tuple[str, Status]]:
        """Rows per (category, status), counted once per report: the summary, the partial
        line and the full table's heading read it (the heading's own count was 0.2 ms)."""
        return Counter((r.category, r.status) for r in self.comparison.rows.values())
