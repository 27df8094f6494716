"""Explanations in words: each recorded step of an assignor as one sentence a user can check by hand."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Console

from kgroup.assignors import trace as rules
from kgroup.assignors.analysis.explain import Explanation
from kgroup.assignors.trace import Step

_SERVER = {"uniform", "server-range"}


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


_LONG = 10  # longer member lists show their ends and the members the sentence is about


def _members(ids: list[str], context: dict[str, Any], *focus: str | None) -> str:
    """A member list; a long one keeps its first two, its last and each focus member with its neighbours,
    each shown with its place (the whole list is in `-o json`'s inputs)."""
    static = context.get("static") or {}

    def name(m: str) -> str:
        return f"{m} (static: {static[m]})" if m in static else m

    if len(ids) <= _LONG:
        return "[" + ", ".join(map(name, ids)) + "]"
    where = {m: i for i, m in enumerate(ids)}
    shown = {0, 1, len(ids) - 1}
    for m in focus:
        if m in where:
            shown.update(i for i in (where[m] - 1, where[m], where[m] + 1) if 0 <= i < len(ids))
    parts, last = [], -1
    for i in sorted(shown):
        if i != last + 1:
            parts.append("…")
        parts.append(f"{_ordinal(i + 1)} {name(ids[i])}")
        last = i
    return "[" + ", ".join(parts) + "]"  # the last one's place is the count


def _loads(loads: dict[str, int]) -> str:
    return ", ".join(f"{m}={n}" for m, n in loads.items())


def _count(n: Any, noun: str) -> str:
    """`1 member`, `3 members`: a count with its noun, singular for one."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _share(count: int, quota: int, extra: int, noun: str = "member") -> str:
    """How `count` members split a topic: the first `extra` take quota + 1, the others quota."""
    if not extra:
        return f"so it gets {quota}" if count == 1 else f"so each gets {quota}"
    first = f"the first {noun} gets" if extra == 1 else f"the first {extra} {noun}s get"
    rest = count - extra
    others = "the last one gets" if rest == 1 else f"the other {rest} get"
    return f"so {first} {quota + 1} and {others} {quota}"


def _up_to(partitions: int, members: int, quota: int, extra_left: int) -> str:
    """A range quota as the rack pass reads it: quota + 1 only while some of the extra partitions are left."""
    extra = partitions - members * quota
    split = f"{partitions} = {members}×{quota} + {extra}"
    if not extra:
        return f"{split}, so a member takes up to {quota}"
    if not extra_left:
        taken = "the extra is" if extra == 1 else f"all {extra} extras are"
        return f"{split}, so a member takes up to {quota} now ({taken} taken)"
    left = "the extra is" if extra == 1 else f"{extra_left} of the {extra} extras {'is' if extra_left == 1 else 'are'}"
    return f"{split}, so a member takes up to {quota + 1} while an extra is left ({left} still left)"


def _server_quotas(context: dict[str, Any], member: str | None = None) -> str:
    """uniform's quotas: total // members each, one more for the first total % members in member order."""
    total, members, low, over = (context.get(k) for k in ("partitions", "members", "min_quota", "members_over"))
    if total is None or members is None:
        return "its share of the group's partitions"
    split = f"{_count(total, 'partition')} over {_count(members, 'member')}: {low} each"
    if not over:
        return split
    order = _members(context.get("member_order", []), context, member)
    raised = low + 1
    if context.get("kafka_rules") == "4.1":  # KAFKA-18688 (Kafka 4.1+): kgroup.assignors.server.uniform
        return (
            f"{split}, {raised} for {over}: in the coordinator's member order {order}, each member may keep one "
            f"more than {low} while extras are left, but one holding no more than {low} leaves its extra to a "
            "later member unless only as many members remain as extras (Kafka 4.1+, KAFKA-18688)"
        )
    first = "the first member" if over == 1 else f"the first {over}"
    return f"{split}, {raised} for {first} in the coordinator's member order {order}"


def _kept_first(member: str, quota: int, context: dict[str, Any]) -> str:
    """Which ones a member over its quota keeps: the first `quota` in Java's HashMap order of its target."""
    kept = (context.get("kept") or {}).get(member)
    if kept is None:
        return f"it keeps the first {quota} in the order the coordinator reads its target"
    shown = ", ".join(kept[:8]) + (f", … ({len(kept) - 8} more)" if len(kept) > 8 else "")
    return (
        f"it keeps the first {quota} in the order the coordinator reads its target (Java hash order of "
        f"topic ids, then partitions): {shown}"
    )


def _sticky_quotas(f: dict[str, Any], context: dict[str, Any]) -> str:
    """The sticky assignors' quotas, and why a member that owned enough for the larger one did not get it."""
    total, members, low, high, over = (
        context.get(k) for k in ("partitions", "members", "min_quota", "max_quota", "members_over")
    )
    if total is None:
        return "its share of the group's partitions"
    split = f"{_count(total, 'partition')} over {_count(members, 'member')}: {low} each"
    if not over:
        return split
    split += f", and {over} member{'' if over == 1 else 's'} may keep {high}"
    if "max_taken_by" not in f:
        return split
    taken = f["max_taken_by"]
    who = " and ".join(taken) if len(taken) < 3 else ", ".join(taken)
    return (
        f"{split}; {who} took {'that place' if over == 1 else 'those places'}, visited before it in Java's "
        f"HashMap order of member ids {_members(context.get('visit_order', []), context, *taken)}"
    )


def _racks(racks: list[str] | None) -> str:
    return "{" + ", ".join(racks or []) + "}"


def _order(context: dict[str, Any]) -> str:
    """How the members were sorted: Java's rule, or librdkafka's comparator through glibc's merge sort."""
    if context.get("member_sort") != "librdkafka":
        return "static members first by instance id, then member id"
    words = "librdkafka's order: by group.instance.id when both members are static, else by member id, as bytes"
    if context.get("mixed_static"):
        words += (
            "; static and dynamic members are mixed, so that comparison is not a total order and the result "
            "is what glibc's merge sort makes of the JoinGroup order "
            + _members(context.get("join_order", []), context)
        )
    return words


def sentence(step: Step, context: dict[str, Any]) -> str:
    """One step in a user's words, with the inputs the rule read: each rule's words are one function below."""
    words = _SENTENCES.get(step.rule)
    if words is None:
        return f"{step.rule}: {step.owner}"  # a rule added to the trace without words yet
    return words(step, context)


def _range(step: Step, context: dict[str, Any]) -> str:
    f, tp, owner = step.facts, step.partition, step.owner
    assignor = context.get("assignor", "")
    n, k, q, r = f["partitions"], len(f["members"]), f["quota"], f["extra"]
    order = _order(context)
    if assignor == "server-range" and context.get("subscriptions") == "homogeneous":
        who = _count(k, "member") + " (every member takes a share: identical subscriptions)"
    else:
        who = _count(k, "subscribed member")
    share = _share(k, q, r)
    first, last = f["first"], f["last"]
    held = f"{tp.topic}-{first}" if first == last else f"{tp.topic}-{first}..{last}"
    return (
        f"range: {tp.topic} has {_count(n, 'partition')} and {who} in sort order {_members(f['members'], context, owner)} "
        f"({order}); {n} = {k}×{q} + {r}, {share}; {tp} is the {_ordinal(tp.partition + 1)} partition "
        f"→ the {_ordinal(f['position'] + 1)} member, {owner}, which takes {held}"
    )


def _range_rack(step: Step, context: dict[str, Any]) -> str:
    f, tp, owner = step.facts, step.partition, step.owner
    rule = step.rule
    how = (
        "partition p of every topic of this size goes together to the first member in sort order "
        "with a replica on its rack for all of them and room left"
        if rule == rules.RANGE_COPARTITIONED
        else "each member in sort order takes the lowest untaken partitions with a replica on its rack"
    )
    rack = f["rack"] or "(none: matches any rack)"
    quota = _up_to(f["partitions"], len(f["members"]), f["quota"], f["extra_left"])
    return (
        f"rack-aware range, rack pass: {owner} is on rack {rack} and {tp} has replicas on "
        f"{_racks(f['replica_racks'])}; {how}; {tp.topic}: {quota}; members in sort order "
        f"{_members(f['members'], context, owner)} ({_order(context)}); {owner} held {f['held_before']} of "
        f"{tp.topic} before"
    )


def _range_after_racks(step: Step, context: dict[str, Any]) -> str:
    f, tp, owner = step.facts, step.partition, step.owner
    if f["rack_aware"] or f.get("copartitioned"):
        member_racks = context.get("member_racks") or {}
        on_racks = [m for m in f["members"] if member_racks.get(m) in f["replica_racks"]]
        together = f.get("copartitioned")
        if not f["replica_racks"]:
            why = f"no replica racks are known for {tp}"
        elif together:
            why = (
                f"{' and '.join(together) if len(together) < 3 else ', '.join(together)} have as many "
                f"partitions and the same subscribers, so partition {tp.partition} of each had to go together "
                "to one member with room in each and on a rack holding a replica of each; no member qualified"
            )
        elif on_racks:
            why = (
                f"{' and '.join(on_racks) if len(on_racks) < 3 else ', '.join(on_racks)}, on those racks, "
                f"had no room left"
            )
        else:
            why = f"no subscriber of {tp.topic} is on those racks"
        replicas = f" (replicas on {_racks(f['replica_racks'])})" if f["replica_racks"] else ""
        lead = f"rack-aware range: the rack pass left {tp}{replicas}: {why}, so the plain range pass placed it"
    else:
        lead = (
            f"range: racks do not help on {tp.topic} (no member rack holds a replica, or every partition "
            "has replicas on the same racks), so plain range"
        )
    quota = _up_to(f["partitions"], len(f["members"]), f["quota"], f["extra_left"])
    return (
        f"{lead}: members in sort order {_members(f['members'], context, owner)} ({_order(context)}) take "
        f"the lowest partitions left; {tp.topic}: {quota}; {owner} held {f['held_before']} of {tp.topic} "
        "before"
    )


def _roundrobin(step: Step, context: dict[str, Any]) -> str:
    f, tp, owner = step.facts, step.partition, step.owner
    order = context.get("member_order", [])
    cursor = f["cursor"]
    skipped = []
    at = cursor
    while order and order[at] != owner:
        skipped.append(order[at])
        at = (at + 1) % len(order)
    walk = (
        f"roundrobin: one cursor walks the members in sort order {_members(order, context, *([order[cursor]] if order else []), owner)} ({_order(context)}), "
        "topics in name order, partitions in number order, and moves one past each partition's owner; "
    )
    here = f"at {tp} it stood at the {_ordinal(cursor + 1)} member"
    if not skipped:
        return f"{walk}{here}, {owner}, a subscriber of {tp.topic}, so {owner} takes it"
    verb = "does" if len(skipped) == 1 else "do"
    names = ", ".join(skipped[:-1]) + " and " + skipped[-1] if len(skipped) > 1 else skipped[0]
    return (
        f"{walk}{here}, {skipped[0]}; {names} {verb} not subscribe to {tp.topic}, so it goes "
        f"to the next member that does: {owner}, the {_ordinal(f['position'] + 1)}"
    )


def _kept(step: Step, context: dict[str, Any]) -> str:
    f, tp, owner = step.facts, step.partition, step.owner
    assignor = context.get("assignor", "")
    if assignor in _SERVER:
        if "quota" not in f:
            return f"kept from the current target: {owner} still subscribes to {tp.topic}"
        if f["held"] <= f["quota"]:
            return (
                f"kept from the current target: {owner} holds {f['held']}, within its quota of {f['quota']} "
                f"({_server_quotas(context, owner)})"
            )
        return (
            f"kept from the current target: {owner} holds {f['held']}, above its quota of {f['quota']} "
            f"({_server_quotas(context, owner)}); {_kept_first(owner, f['quota'], context)}, this one among them"
        )
    quota = ""
    if "quota" in f:
        quota = (
            f" and keeps up to its quota of {f['quota']} (it claimed {f['owned']}); quotas: "
            f"{_sticky_quotas(f, context)}"
        )
    gen = f"generation {f['generation']}" if f.get("generation") is not None else "no generation"
    beyond = ""
    if f.get("beyond_topic") is not None:
        beyond = (
            f"; {tp.topic} has only {_count(f['beyond_topic'], 'partition')} now, but Kafka's sticky assignor keeps "
            "an owned partition of a subscribed topic without checking its number, and it fills a place in "
            f"{owner}'s quota"
        )
    return f"kept by its owner: {owner} claimed it ({gen}){quota}{beyond}"


def _claim_conflict(step: Step, context: dict[str, Any]) -> str:
    f = step.facts
    a, b = f["claimants"]
    return f"revoked: {a} and {b} both claimed it in the same generation ({f['generation']}), so neither keeps it"


def _older_claim(step: Step, context: dict[str, Any]) -> str:
    f = step.facts
    lost = "no generation" if f["loser_generation"] in (None, -1) else f"generation {f['loser_generation']}"
    return f"{f['loser']}'s claim ({lost}) lost to {f['winner']}'s newer claim (generation {f['generation']})"


def _over_quota(step: Step, context: dict[str, Any]) -> str:
    f = step.facts
    assignor = context.get("assignor", "")
    if assignor in _SERVER:
        return (
            f"revoked: {f['member']} held {f['held']}, above its quota of {f['quota']} "
            f"({_server_quotas(context, f['member'])}); {_kept_first(f['member'], f['quota'], context)}, not this one"
        )
    return (
        f"released by {f['member']}: it claimed {f['owned']}, above its quota of {f['quota']}, and keeps "
        f"its first {f['quota']} in {f['order']} order; quotas: {_sticky_quotas(f, context)}"
    )


def _not_subscribed(step: Step, context: dict[str, Any]) -> str:
    f, tp = step.facts, step.partition
    return f"released by {f['member']}: it no longer subscribes to {tp.topic}"


def _rack_mismatch(step: Step, context: dict[str, Any]) -> str:
    f = step.facts
    return (
        f"released by {f['member']}: its rack {f['rack']} holds no replica of it "
        f"(replicas on {_racks(f['replica_racks'])})"
    )


def _kept_too(f: Mapping[str, Any]) -> str:
    """A partition handed out while its keeper keeps it (a Kafka quirk kgroup reproduces), or nothing."""
    if not f.get("second_holder_of"):
        return ""
    return (
        f"; {f['second_holder_of']} kept it too, so both hold it, as in Kafka's answer: getUnassignedPartitions "
        "subtracts the kept partitions in one walk over sorted lists, and a kept partition its topic no longer "
        "has stops that walk, leaving the kept ones after it among the unassigned"
    )


def _quota_round_robin(step: Step, context: dict[str, Any]) -> str:
    f, tp, owner = step.facts, step.partition, step.owner
    rule = step.rule
    released = f"; {f['released_by']} had released it" if f.get("released_by") else ""
    released += _kept_too(f)
    quota = (
        f"{_count(context.get('partitions'), 'partition')} over {_count(context.get('members'), 'member')}: "
        f"each gets {context.get('min_quota')}"
    )
    if context.get("members_over"):
        quota += f", {context['members_over']} of them {context.get('max_quota')}"
    if rule == rules.RACK_ROUND_ROBIN:
        return (
            f"sticky, rack round robin ({quota}): {owner}, on rack {f['rack']} where {tp} has a replica "
            f"({_racks(f['replica_racks'])}), was the next member below its quota; it held "
            f"{f['held_before']}{released}"
        )
    held = f"{f['held_before']}"
    if f.get("held_beyond_topic"):
        held += (
            f" (counting {_count(f['held_beyond_topic'], 'kept partition')} its topic no longer has, so it had "
            f"{f['held_before'] - f['held_beyond_topic']} that exist)"
        )
    if f["extra_queue"]:
        left_over = ""
        if f.get("kept_beyond_topic") and f["held_before"] - f.get("held_beyond_topic", 0) >= (
            context.get("max_quota") or 0
        ):
            left_over = (
                f" (it is left over because {_count(f['kept_beyond_topic'], 'kept partition')} its topic no "
                "longer has filled places in the quotas: Kafka's sticky assignor keeps them)"
            )
        return (
            f"sticky, round robin ({quota}): no member is below {context.get('min_quota')} any more, so it "
            f"went to {owner}, the next member allowed one extra{left_over}; it held {held}{released}"
        )
    return (
        f"sticky, round robin ({quota}): partitions nobody kept are dealt to members below the minimum, "
        f"in member id order {_members(f['short'], context, owner)}; {owner} was next and held "
        f"{held}{released}"
    )


def _least_loaded(step: Step, context: dict[str, Any]) -> str:
    f, tp, owner = step.facts, step.partition, step.owner
    assignor = context.get("assignor", "")
    ties = f.get("tie_break", "member id")
    order = ""
    if assignor in _SERVER and context.get("member_order"):
        order = f" {_members(context['member_order'], context, owner)}"
    rack = ""
    if f.get("rack_pass"):
        rack = f" on a replica's rack (first pass; replicas on {_racks(f.get('replica_racks'))})"
    loads = f["loads"]
    tied = [m for m, n in loads.items() if m != owner and n == loads.get(owner, f["held_before"])]
    tie = f"; tied with {', '.join(tied)}, broken by {ties}{order}" if tied else ""
    tie += _kept_too(f)
    return (
        f"assigned to the subscriber of {tp.topic} with the fewest partitions{rack}: loads at that step {_loads(loads)}; "
        f"{owner} held {f['held_before']}{tie}"
    )


def _balance_move(step: Step, context: dict[str, Any]) -> str:
    f, owner = step.facts, step.owner
    where = f" (pass {f['balancing_pass']})" if f.get("balancing_pass") else ""
    instead = (
        f", undoing an earlier move instead of moving {f['instead_of']} (whose holder {f['asked_holder']} held "
        f"{f['asked_held']}, which called for the move)"
        if f.get("instead_of") and "asked_holder" in f
        else f", undoing an earlier move instead of moving {f['instead_of']}"
        if f.get("instead_of")
        else ""
    )
    return (
        f"balancing move #{f['move']}{where}: taken from {f['source']}, which held {f['source_held']}, "
        f"and given to {owner}, which held {f['target_held']} ({f['why']}){instead}"
    )


def _balance_undone(step: Step, context: dict[str, Any]) -> str:
    f, owner = step.facts, step.owner
    return (
        f"balancing had moved it to {f['moved_to']}, but the balance score did not improve "
        f"({f['score_before']} → {f['score_after']}), so every balancing move was undone: back to {owner}"
    )


def _handed_back(step: Step, context: dict[str, Any]) -> str:
    f, owner = step.facts, step.owner
    return (
        f"handed back to {owner}: it still owns it and the assignor gave it to nobody, so librdkafka's leader "
        f"returns it to its owner (claimed by {', '.join(f['claimants'])}; the last in JoinGroup order wins)"
    )


def _legacy_range(step: Step, context: dict[str, Any]) -> str:
    f, tp, owner = step.facts, step.partition, step.owner
    n, t, q, r = f["partitions"], len(f["threads"]), f["quota"], f["extra"]
    share = _share(t, q, r, "thread")
    first, last = f["first"], f["last"]
    held = f"{tp.topic}-{first}" if first == last else f"{tp.topic}-{first}..{last}"
    return (
        f"legacy range: {tp.topic} has {_count(n, 'partition')} and {_count(t, 'consumer thread')} in string order "
        f"[{', '.join(f['threads'])}] (string order: C-10 sorts before C-2); {n} = {t}×{q} + {r}, {share}; {tp} is the "
        f"{_ordinal(tp.partition + 1)} partition → the {_ordinal(f['position'] + 1)} thread, {f['thread']} "
        f"of {owner}, which takes {held}"
    )


def _legacy_roundrobin(step: Step, context: dict[str, Any]) -> str:
    f, tp, owner = step.facts, step.partition, step.owner
    threads = context.get("threads", [])
    return (
        f'legacy roundrobin: all {f["count"]} partitions sorted by the Java hash of "[topic,partition]" '
        f"({f['hash']} for {tp}) are dealt in turn to the threads in string order [{', '.join(threads)}]; "
        f"{tp} is number {f['index'] + 1} in that order → thread {f['index'] % len(threads) + 1}, "
        f"{f['thread']} of {owner}"
    )


def _unassignable(step: Step, context: dict[str, Any]) -> str:
    f, tp = step.facts, step.partition
    return f"released by {f['member']}: nobody subscribes to {tp.topic} any more, or {tp} no longer exists"


def _fill_quota(step: Step, context: dict[str, Any]) -> str:
    f, tp, owner = step.facts, step.partition, step.owner
    if "leftover" not in f:
        short = ", ".join(f"{m} ({n} short)" for m, n in f["short"])
        return (
            f"assigned to {owner}, the next member still short of its quota, in the coordinator's member "
            f"order {_members(context.get('member_order', []), context)}; members short: {short}"
        )
    count = f["leftovers"]
    takes = ", ".join(f"{m} {n}" for m, n in f["short"])
    return (
        f"{count} partition{'s' if count != 1 else ''} no member kept (unheld ones first, then the revoked "
        f"ones, member by member) go to the members short of their quota, in the coordinator's member order "
        f"{_members(context.get('member_order', []), context, owner)}, each taking as many as it lacks ({takes}); "
        f"{tp} is the {_ordinal(f['leftover'] + 1)} of them → {owner}"
    )


def _withheld(step: Step, context: dict[str, Any]) -> str:
    f = step.facts
    if f.get("leader"):
        return (
            f"withheld in this rebalance by librdkafka's leader (its cooperative adjustment): the assignor gave it "
            f"to {f['target']}, but {f['source']} still owns it and must revoke it first, so nobody gets it now; "
            "the follow-up rebalance assigns it afresh"
        )
    if f.get("source_keeps"):
        return (
            f"not given to {f['target']} in this rebalance: {f['source']} still owns it and its assignment keeps "
            f"it (Kafka handed it to both), so {f['target']} must wait for {f['source']} to revoke it, which this "
            "assignment does not ask"
        )
    return (
        f"withheld in this rebalance: the assignor gave it to {f['target']}, but "
        f"{f['source'] or 'its previous owner'} must revoke it first, so nobody gets it now; the follow-up "
        "rebalance assigns it afresh"
    )


_SENTENCES: dict[str, Callable[[Step, dict[str, Any]], str]] = {
    rules.RANGE: _range,
    rules.RANGE_RACK: _range_rack,
    rules.RANGE_COPARTITIONED: _range_rack,
    rules.RANGE_AFTER_RACKS: _range_after_racks,
    rules.ROUNDROBIN: _roundrobin,
    rules.KEPT: _kept,
    rules.CLAIM_CONFLICT: _claim_conflict,
    rules.OLDER_CLAIM: _older_claim,
    rules.OVER_QUOTA: _over_quota,
    rules.NOT_SUBSCRIBED: _not_subscribed,
    rules.RACK_MISMATCH: _rack_mismatch,
    rules.QUOTA_ROUND_ROBIN: _quota_round_robin,
    rules.RACK_ROUND_ROBIN: _quota_round_robin,
    rules.LEAST_LOADED: _least_loaded,
    rules.BALANCE_MOVE: _balance_move,
    rules.BALANCE_UNDONE: _balance_undone,
    rules.HANDED_BACK: _handed_back,
    rules.LEGACY_RANGE: _legacy_range,
    rules.LEGACY_ROUNDROBIN: _legacy_roundrobin,
    rules.UNASSIGNABLE: _unassignable,
    rules.FILL_QUOTA: _fill_quota,
    rules.WITHHELD: _withheld,
}


def _owner(value: str | None) -> str:
    return value if value is not None else "(nobody)"


def _heading(tp: object, before: str | None, after: str | None) -> str:
    """A partition asked about that ends where it began says so, rather than `c1 → c1`."""
    if before == after and before is not None:
        return f"{tp}: stays with {before}"
    return f"{tp}: {_owner(before)} → {_owner(after)}"


def explanation_body(item: Explanation) -> dict[str, Any]:
    return {
        "partition": str(item.tp),
        "before": item.before,
        "after": item.after,
        "steps": [
            {
                "rebalance": step.round,
                "rule": step.rule,
                "owner": step.owner,
                "why": sentence(step, item.context.get(step.round, {})),
                "inputs": dict(step.facts),
            }
            for step in item.steps
        ],
    }


def print_explanations(console: Console, items: list[Explanation], assignor: str, traced: bool) -> None:
    if not traced:
        console.print(f"{assignor}: this assignor records no explanation (a user assignor)", markup=False)
        return
    if not items:
        console.print(f"{assignor}: no partition moved; name partitions to explain them", markup=False)
        return
    rounds = {step.round for item in items for step in item.steps}
    for item in items:
        console.print(
            _heading(item.tp, item.before, item.after), markup=False, highlight=False, style="bold", soft_wrap=True
        )
        if not item.steps:
            console.print(
                f"  {assignor} made no decision about it (not subscribed, or not in the cluster)",
                markup=False,
                highlight=False,
            )
        for step in item.steps:
            prefix = f"rebalance {step.round}: " if len(rounds) > 1 else ""
            # One line per step, however long: the terminal wraps it, and `| grep` finds it whole.
            console.print(
                f"  - {prefix}{sentence(step, item.context.get(step.round, {}))}",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
    console.print()


# -- scenarios: the rebalances that moved a partition, and why it went unconsumed -----------------------


def _s(ms: int | None) -> str:
    return "the end" if ms is None else f"{ms / 1000:.1f}s"


def _stop(entry: dict[str, Any]) -> str:
    """One log entry of the member that stopped consuming, in words."""
    kind = entry["event"]
    if kind == "gc-pause":
        return f"a GC pause of {entry['duration_ms'] / 1000:.1f}s began"
    if kind == "slow-poll":
        return f"a slow poll began, processing for {entry['processing_ms'] / 1000:.1f}s"
    if kind == "poll-timeout":
        return f"it exceeded max.poll.interval.ms ({entry['max_poll_interval_ms'] / 1000:.1f}s)"
    words = {
        "crash": "it crashed",
        "close": "it shut down",
        "fatal": "it failed",
        "commit-failed": "its commit failed",
        "member-removed": "the coordinator removed it from the group",
        "partitions-revoked": "it revoked the partition",
        "partitions-lost": "it lost the partition (no longer in the group)",
    }
    return words.get(kind, kind)


def story_lines(story: Any) -> list[str]:
    """A scenario partition's rebalances and unconsumed stretches (inspectors.simulation.scenario_explain)."""
    lines: list[tuple[int, str]] = []  # (when it began, words): told in time order
    for move in story.moves:
        how = "lost by" if move.lost else "from"
        if move.end_ms is None:
            lines.append(
                (
                    move.start_ms,
                    f"rebalance #{move.rebalance} (from {_s(move.start_ms)}, never finished; trigger: "
                    f"{move.trigger}) took it {how} {_owner(move.source)}, and nobody got it",
                )
            )
            continue
        lines.append(
            (
                move.start_ms,
                f"rebalance #{move.rebalance} ({_s(move.start_ms)} → {_s(move.end_ms)}; trigger: {move.trigger}; "
                f"assignor {move.assignor}, generation {move.generation}) moved it {how} "
                f"{_owner(move.source)} to {_owner(move.target)}",
            )
        )
    for stretch in story.stretches:
        why = "; ".join(_stop(e) for e in stretch.began) or "consumption stopped"
        during = ""
        if stretch.during is not None:  # outside the parentheses, which would otherwise nest
            during = f" during rebalance #{stretch.during} (trigger: {stretch.during_trigger})"
        who = f"{stretch.owner} stopped consuming it" if stretch.owner else "nobody had consumed it yet"
        if stretch.end_ms is None:
            end = None
        elif stretch.ended_by is not None:
            again = " again" if stretch.resumed_by == stretch.owner else ""
            end = f"rebalance #{stretch.ended_by} ended and {stretch.resumed_by} consumed it{again}"
        else:
            end = f"{stretch.resumed_by} resumed"
        meanwhile = ""
        if stretch.meanwhile is not None:
            reason = f": earlier, {_stop(stretch.meanwhile_why)}" if stretch.meanwhile_why else ""
            meanwhile = f"; meanwhile {stretch.meanwhile} owned it but did not consume it{reason}"
        lines.append(
            (
                stretch.start_ms,
                f"unconsumed {_s(stretch.start_ms)} → {_s(stretch.end_ms)} ({stretch.length_ms / 1000:.1f}s): "
                f"{who} at {_s(stretch.start_ms)} ({why}){during}{meanwhile}; "
                + (f"until {end}" if end else "still unconsumed when the scenario ended"),
            )
        )
    return [words for _, words in sorted(lines, key=lambda line: line[0])]


def story_body(story: Any) -> dict[str, Any]:
    return {
        "partition": str(story.tp),
        "before": story.first_owner,
        "after": story.final_owner,
        "rebalances": [
            {
                "rebalance": m.rebalance,
                "start_ms": m.start_ms,
                "end_ms": m.end_ms,
                "trigger": m.trigger,
                "assignor": m.assignor,
                "generation": m.generation,
                "from": m.source,
                "to": m.target,
                "lost": m.lost,
            }
            for m in story.moves
        ],
        "unconsumed": [
            {
                "start_ms": s.start_ms,
                "end_ms": s.end_ms,
                "ms": s.length_ms,
                "stopped": s.owner,
                "because": s.began,
                "during_rebalance": s.during,
                "owned_meanwhile_by": s.meanwhile,
                "ended_by_rebalance": s.ended_by,
                "resumed_by": s.resumed_by,
            }
            for s in story.stretches
        ],
        "why": story_lines(story),
    }


def print_stories(console: Console, stories: list[Any]) -> None:
    if not stories:
        console.print("no partition changed owner or went unconsumed", markup=False)
    for story in stories:
        heading = _heading(story.tp, story.first_owner, story.final_owner)
        if story.moves and story.first_owner == story.final_owner:
            heading = f"{story.tp}: {_owner(story.first_owner)} → {_owner(story.final_owner)} (moved away and back)"
        console.print(heading, markup=False, highlight=False, style="bold", soft_wrap=True)
        for line in story_lines(story) or ["never moved, never unconsumed"]:
            console.print(f"  - {line}", markup=False, highlight=False, soft_wrap=True)
