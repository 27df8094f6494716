"""`kgroup check` over several files at once: fixtures, saved plans and scenarios, each judged by the limits
that fit it, as a list of cases (one per group, assignor or scenario) with one verdict."""

from __future__ import annotations

from dataclasses import dataclass

from kgroup.assignors.analysis.checks import CheckResult, Limits, run_checks
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.fixtures.bundled import locate
from kgroup.inspectors.fixtures.group_file import Fixture, fixture_from_doc
from kgroup.inspectors.fixtures.plan_file import WHAT_IF_KEYS, Plan, is_plan, plan_from_doc
from kgroup.inspectors.fixtures.yaml_doc import YamlDoc, read_yaml
from kgroup.inspectors.limits import shown
from kgroup.inspectors.simulation.scenario_gate import ScenarioLimits
from kgroup.inspectors.simulation.whatif_run import (
    WhatIfFlags,
    check_current,
    check_flags,
    require_valid,
    simulate_flags,
)

ASSIGNMENT_LIMITS = "--max-imbalance, --max-topic-imbalance, --min-stickiness, --max-moves, --kafka-balanced"
SCENARIO_LIMITS = "--max-unconsumed DURATION and/or --max-rebalances N"


@dataclass(frozen=True)
class Case:
    """One thing judged: a group's assignment (current or planned, by one assignor) or a scenario."""

    source: str
    line: int | None  # where the group (or the scenario's events) starts in the file, for annotations
    group_id: str
    assignor: str  # "current" for a fixture as it stands; "scenario" for a scenario replay
    results: tuple[CheckResult, ...]
    planned: bool = False

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)


@dataclass(frozen=True)
class Gate:
    cases: tuple[Case, ...]
    warnings: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.cases)


def is_scenario(doc: YamlDoc) -> bool:
    """Told from the `kind` alone, so that checking a fixture never imports the simulators."""
    return isinstance(doc.data, dict) and doc.data.get("kind") == "scenario"  # scenario_file.KIND


def plan_flags(plan: Plan) -> WhatIfFlags:
    """The plan's what-if as flags, checked on their own: what is wrong with them is the plan's `what_if`,
    named so, not the command line's flags they are later joined with."""
    f = plan.flags
    flags = WhatIfFlags(
        f["assignor"],
        f["add_member"],
        f["remove_member"],
        f["add_partitions"],
        f["subscribe"],
        plan.client,
        f["instance"],
        f["add_topic"],
        f["absent_topic"],
    )
    try:
        check_flags(plan.fixture, plan.group_id, flags)
    except InputError as exc:
        key = (exc.field or "").removeprefix("--").replace("-", "_")
        field = f"what_if.{key}" if key in WHAT_IF_KEYS or key == "client" else "what_if"
        raise InputError(exc.message, plan.source, field=field) from None
    return flags


def run_gate(
    arguments: list[str], groups: list[str], flags: WhatIfFlags, limits: Limits, scenario_limits: ScenarioLimits
) -> Gate:
    """Judge every file; any bad input stops everything before anything is printed (exit 2)."""
    docs = [read_yaml(locate(argument)) for argument in arguments or [None]]  # type: ignore[list-item]
    scenarios = [doc for doc in docs if is_scenario(doc)]
    _require_fitting_limits(docs, scenarios, flags, limits, scenario_limits)
    cases: list[Case] = []
    warnings: list[str] = []
    for doc in docs:
        if is_scenario(doc):
            cases.append(_scenario_case(doc, scenario_limits, warnings))
        elif is_plan(doc):
            plan = plan_from_doc(doc)
            if groups and plan.group_id not in groups:
                raise InputError(
                    f"the plan is for group {plan.group_id!r}, not {', '.join(groups)}", doc.source, field="--group"
                )
            warnings += plan.fixture.warnings
            cases += _fixture_cases(
                doc, plan.fixture, [plan.group_id], plan_flags(plan).then(flags), limits, True, warnings
            )
        else:
            _refuse_results(doc)
            fixture = fixture_from_doc(doc)
            warnings += fixture.warnings
            chosen = groups or [g.group_id for g in fixture.groups]
            cases += _fixture_cases(doc, fixture, chosen, flags, limits, flags.changes_anything, warnings)
    return Gate(tuple(cases), tuple(warnings))


def _require_fitting_limits(
    docs: list[YamlDoc], scenarios: list[YamlDoc], flags: WhatIfFlags, limits: Limits, scenario_limits: ScenarioLimits
) -> None:
    if scenarios and not scenario_limits.any:
        raise InputError(
            f"a scenario is checked by its rebalances: give {SCENARIO_LIMITS} "
            f"(assignment limits such as --max-imbalance apply to fixtures and plans)",
            scenarios[0].source,
        )
    if scenarios and (flags.changes_anything or flags.assignors):
        raise InputError(
            "what-if flags (--assignor, --add-member, ...) apply to fixtures and plans; a scenario "
            "lists its own events",
            scenarios[0].source,
        )
    if scenario_limits.any and not scenarios:
        flag = "--max-unconsumed" if scenario_limits.max_unconsumed_ms is not None else "--max-rebalances"
        raise InputError(
            f"applies to scenarios (kind: scenario), and no file given is one; for an assignment use "
            f"{ASSIGNMENT_LIMITS}",
            field=flag,
        )
    if len(scenarios) == len(docs) and limits != Limits():
        raise InputError(
            f"assignment limits ({ASSIGNMENT_LIMITS}) apply to fixtures and plans, and every file "
            f"given is a scenario; use {SCENARIO_LIMITS}",
            scenarios[0].source,
        )


def _refuse_results(doc: YamlDoc) -> None:
    """Documents kgroup writes as results hold no cluster: say what to give instead."""
    kind = doc.data.get("kind") if isinstance(doc.data, dict) else None
    if kind in (None, "fixture"):
        return
    if kind == "simulation":
        raise InputError(
            "a simulation result (kind: simulation) holds no cluster to check; save the planned state "
            "with `kgroup simulate ... --save-plan FILE` and check that",
            doc.source,
        )
    raise InputError(
        f"kind {shown(kind)} cannot be checked; `kgroup check` reads fixtures, plans "
        "(kgroup simulate --save-plan) and scenarios",
        doc.source,
    )


def _line(doc: YamlDoc, group_id: str) -> int | None:
    groups = doc.data.get("groups") if isinstance(doc.data, dict) else None
    for i, raw in enumerate(groups or []):
        if isinstance(raw, dict) and str(raw.get("group_id")) == group_id:
            return doc.line(("groups", i, "group_id")) or doc.line(("groups", i))
    return None


def _fixture_cases(
    doc: YamlDoc,
    fixture: Fixture,
    group_ids: list[str],
    flags: WhatIfFlags,
    limits: Limits,
    planned: bool,
    warnings: list[str],
) -> list[Case]:
    cases = []
    for group_id in group_ids:
        group = fixture.group(group_id)
        if flags.changes_anything or flags.assignors:
            sim = simulate_flags(fixture, group.group_id, flags)
            # An assignor that breaks Kafka's rules is a broken assignor (exit 1, as from every command),
            # not a policy that failed.
            require_valid(sim.runs)
            warnings += [w for w in sim.warnings if w not in warnings]
            runs = sim.runs
        else:
            runs = (check_current(fixture, group.group_id),)
        cases += [
            Case(
                fixture.source,
                _line(doc, group.group_id),
                group.group_id,
                run.assignor,
                tuple(run_checks(run, limits)),
                planned,
            )
            for run in runs
        ]
    return cases


def _scenario_case(doc: YamlDoc, limits: ScenarioLimits, warnings: list[str]) -> Case:
    from kgroup.inspectors.fixtures.scenario_file import scenario_from_doc, with_client
    from kgroup.inspectors.simulation.scenario_gate import scenario_checks
    from kgroup.inspectors.simulation.scenario_run import run_scenario

    scenario = with_client(scenario_from_doc(doc), None)
    warnings += scenario.warnings
    outcome = run_scenario(scenario)
    line = doc.line(("events",)) or 1
    return Case(scenario.source, line, scenario.group.group_id, "scenario", tuple(scenario_checks(outcome, limits)))
