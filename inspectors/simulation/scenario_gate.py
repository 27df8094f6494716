"""Limits on a scenario's rebalances, for `kgroup check SCENARIO`: how long partitions went unconsumed,
how many rebalances the events caused. Reads a finished run (scenario_run.ScenarioOutcome) only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgroup.assignors.analysis.checks import CheckResult

if TYPE_CHECKING:  # the simulators are imported by the caller that runs one, not by `check FIXTURE`
    from kgroup.inspectors.simulation.scenario_run import ScenarioOutcome


@dataclass(frozen=True, slots=True)
class ScenarioLimits:
    max_unconsumed_ms: int | None = None  # the most time any one partition spends unconsumed, gaps added up
    max_rebalances: int | None = None  # rebalances (generations) the scenario's events cause

    @property
    def any(self) -> bool:
        return self.max_unconsumed_ms is not None or self.max_rebalances is not None


def seconds(ms: int) -> str:
    return f"{ms / 1000:.1f}s"


def scenario_checks(outcome: ScenarioOutcome, limits: ScenarioLimits) -> list[CheckResult]:
    sim = outcome.simulation
    results: list[CheckResult] = []
    if limits.max_unconsumed_ms is not None:
        ranked = sorted(((outcome.unconsumed_ms(tp), tp) for tp in sim.created), key=lambda x: (-x[0], x[1]))
        worst_ms, worst_tp = ranked[0] if ranked else (0, None)
        gaps = [g for g in outcome.gaps.get(worst_tp, ()) if g.length(sim.now) > 0] if worst_tp else []
        where = (
            f" on {worst_tp} ({len(gaps)} gap{'s' if len(gaps) != 1 else ''}, first at {seconds(gaps[0].start)})"
            if gaps
            else ""
        )
        results.append(
            CheckResult(
                "max-unconsumed",
                worst_ms <= limits.max_unconsumed_ms,
                f"<= {seconds(limits.max_unconsumed_ms)} per partition",
                f"{seconds(worst_ms)}{where}",
            )
        )
    if limits.max_rebalances is not None:
        count = len(sim.rebalances)
        triggers = "; ".join(f"#{r.index} at {seconds(r.start)}: {r.trigger}" for r in sim.rebalances[:3])
        more = f" (+{count - 3} more)" if count > 3 else ""
        results.append(
            CheckResult(
                "max-rebalances",
                count <= limits.max_rebalances,
                f"<= {limits.max_rebalances}",
                f"{count}" + (f" ({triggers}{more})" if count else ""),
            )
        )
    return results
