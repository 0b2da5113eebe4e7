"""What the seam's usage call answers (`Metering`): tokens and estimated cost since a time, by agent,
model or session and over time, and the query that asks for them. Loaded only by the faces that show
usage (`usage`): the engine's own, handed on."""

from __future__ import annotations

from sessions_tui.engine.usage import (
    USAGE_BUCKETS,
    USAGE_GROUPINGS,
    UsageActivity,
    UsageBucket,
    UsageGroup,
    UsageGrouping,
    UsageNode,
    UsagePoint,
    UsageQuery,
    UsageReport,
    UsageTotals,
)

__all__ = [
    "USAGE_BUCKETS",
    "USAGE_GROUPINGS",
    "UsageActivity",
    "UsageBucket",
    "UsageGroup",
    "UsageGrouping",
    "UsageNode",
    "UsagePoint",
    "UsageQuery",
    "UsageReport",
    "UsageTotals",
]
