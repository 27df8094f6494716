"""A what-if, start to end: the fixture, plan or live group it runs on, the run of each assignor, the
explanations asked for, and the plan file saved once the flags are known good. `simulate` and `explain`
each make one call here and render what comes back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kgroup.assignors.analysis.evaluate import AssignorRun
from kgroup.assignors.analysis.explain import Explanation, explain as explain_run
from kgroup.assignors.model import Assignment, Cluster, TopicPartition
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.fixtures.group_file import Fixture, fixture_from_doc
from kgroup.inspectors.fixtures.plan_file import is_plan, plan_from_doc
from kgroup.inspectors.fixtures.yaml_doc import YamlDoc
from kgroup.inspectors.live.admin import LiveAdmin
from kgroup.inspectors.simulation.gate import plan_flags
from kgroup.inspectors.simulation.live_whatif import read_live
from kgroup.inspectors.simulation.whatif_run import (
    Simulation,
    WhatIfFlags,
    leader_client,
    require_valid,
    simulate_flags,
)


@dataclass(frozen=True)
class WhatIfInput:
    """What a what-if runs on: a fixture (or a plan's, or a live group read as `snapshot` reads it)."""

    fixture: Fixture
    group_id: str
    flags: WhatIfFlags
    document: Any  # the fixture's document as read, written into a --save-plan file
    source: str  # where it was read, as the plan file records it
    client_reason: str | None = None  # live: why the leader's client is the one the members' bytes name


@dataclass(frozen=True)
class WhatIfAnswer:
    input: WhatIfInput
    sim: Simulation
    client: str  # the leader's client whose assignors ran
    client_from: str  # why that client
    explained: dict[str, list[Explanation] | None]  # per assignor, when asked; None: it recorded nothing

    @property
    def warnings(self) -> list[str]:
        return list(self.input.fixture.warnings) + list(self.sim.warnings)


def from_document(doc: YamlDoc, group: str | None, flags: WhatIfFlags) -> WhatIfInput:
    """A fixture, or a plan: a plan's own flags first, then the ones given."""
    if is_plan(doc):
        plan = plan_from_doc(doc)
        if group is not None and group != plan.group_id:
            raise InputError(f"the plan is for group {plan.group_id!r}, not {group!r}", doc.source)
        loaded = plan.fixture
        return WhatIfInput(
            loaded, loaded.group(plan.group_id).group_id, plan_flags(plan).then(flags), doc.data, loaded.source
        )
    loaded = fixture_from_doc(doc)
    return WhatIfInput(loaded, loaded.group(group).group_id, flags, doc.data, loaded.source)


def from_cluster(admin: LiveAdmin, group: str, flags: WhatIfFlags) -> WhatIfInput:
    read = read_live(admin, group, flags)
    return WhatIfInput(read.fixture, group, read.flags, read.document, read.source, read.client_reason)


def from_live_options(
    connect: Callable[[], LiveAdmin], fixture: str | None, group: str | None, flags: WhatIfFlags, what: str
) -> WhatIfInput:
    """A command's live group (from_cluster), once its command line names a cluster and a group but no fixture;
    else an InputError naming the option, before `connect` is called. `what` is what needs the group: "what-if",
    "assignment"."""
    if fixture is not None:
        raise InputError("give a fixture or a live cluster (--bootstrap-server), not both", field="--bootstrap-server")
    if group is None:
        raise InputError(f"a live {what} needs the group: --group G", field="--group")
    return from_cluster(connect(), group, flags)


def answer(given: WhatIfInput, explain: bool | list[str] | None = None, save_plan: str | None = None) -> WhatIfAnswer:
    """Run the what-if; write `save_plan` only once it ran (no plan file for a what-if that cannot run).
    `explain`: None for no explanations, True for every partition that moved, or the partitions named."""
    client, why = leader_client(given.fixture, given.group_id, given.flags.client)
    if given.flags.client is None and given.client_reason:
        why = given.client_reason
    sim = simulate_flags(given.fixture, given.group_id, given.flags, explain=explain is not None)
    require_valid(sim.runs)
    if save_plan is not None:
        write_plan(save_plan, given)
    chosen = chosen_partitions(explain, sim.after.cluster) if isinstance(explain, list) else None
    explained = (
        {run.assignor: explanations_of(run, sim.before.group.assignment, chosen) for run in sim.runs}
        if explain is not None
        else {}
    )
    return WhatIfAnswer(given, sim, client, why, explained)


def write_plan(path: str, given: WhatIfInput) -> None:
    """The group as it is and the flags, not the result: `check` and `diff` replay them (inspectors/fixtures/plan_file.py)."""
    import yaml

    from kgroup.inspectors.files import write_atomically
    from kgroup.inspectors.fixtures.plan_file import plan_document

    flags = given.flags
    values = {
        "assignor": flags.assignors,
        "add_member": flags.add_members,
        "remove_member": flags.remove_members,
        "add_partitions": flags.add_partitions,
        "subscribe": flags.subscribe,
        "instance": flags.instances,
        "add_topic": flags.add_topics,
        "absent_topic": flags.absent_topics,
    }
    body = plan_document(given.source, given.document, given.group_id, values, flags.client)
    write_atomically(path, yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=120), field="--save-plan")


def chosen_partitions(texts: list[str], cluster: Cluster) -> list[TopicPartition]:
    """TOPIC-PARTITION arguments (also comma-separated), each checked against the cluster after the what-if."""
    chosen: list[TopicPartition] = []
    for text in (t.strip() for arg in texts for t in arg.split(",")):
        if not text:
            continue
        try:
            tp = TopicPartition.parse(text)
        except ValueError as exc:
            raise InputError(str(exc), field="TOPIC-PARTITION") from None
        if not cluster.exists(tp):
            raise InputError(f"{text!r}: no such partition in the cluster", field="TOPIC-PARTITION")
        chosen.append(tp)
    return list(dict.fromkeys(chosen))


def traced(run: AssignorRun) -> bool:
    """Whether the assignor recorded its decisions (built-ins do; user assignors do not)."""
    return run.trace is not None and bool(run.trace.context or run.trace.steps)


def explanations_of(
    run: AssignorRun, current: Assignment, chosen: list[TopicPartition] | None
) -> list[Explanation] | None:
    """None when the assignor recorded nothing (JSON: `explanations: null`), or failed."""
    if run.trace is None or run.assignment is None or not traced(run):
        return None
    return explain_run(run.trace, current, run.assignment, chosen)
