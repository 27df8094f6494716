"""Pass/fail policies over one assignor run, for `kgroup check` in CI."""

from __future__ import annotations

from dataclasses import dataclass

from kgroup.assignors.analysis.evaluate import AssignorRun


SUBSCRIPTION = "subscription"  # the default scope of max_imbalance: see Limits
GROUP = "group"


@dataclass(frozen=True, slots=True)
class Limits:
    # max - min partitions per member: among members with identical subscriptions (scope "subscription",
    # the default: the balance Kafka's assignors promise, so a limit of 1 is reachable whatever the group's
    # shape), or over the whole group (scope "group": members with different topics compared too).
    max_imbalance: int | None = None
    imbalance_scope: str = SUBSCRIPTION
    max_topic_imbalance: int | None = None  # the same within each topic, over its subscribers
    min_stickiness: float | None = None  # 0..1, share of owned partitions kept
    max_moves: int | None = None  # partitions that change owner
    kafka_balanced: bool = False  # Kafka's own balance rule from its assignor tests


@dataclass(frozen=True, slots=True)
class CheckResult:
    name: str
    ok: bool
    expected: str
    actual: str


def run_checks(run: AssignorRun, limits: Limits) -> list[CheckResult]:
    """Validity always; the other checks only when a limit is given."""
    if run.error is not None or run.assignment is None:
        return [CheckResult("assignor", False, "an assignment", run.error or "no result")]
    assert run.balance is not None and run.stickiness is not None and run.diff is not None
    results = [
        CheckResult(
            "valid",
            not run.violations,
            # a share group's assignor (KIP-932) may give one partition to several members
            "partitions only to their subscribers (shared among several in a share group)"
            if run.basis is not None and run.basis.shared
            else "every subscribed partition exactly once, to a subscriber",
            "; ".join(v.detail for v in run.violations[:3]) or "valid",
        )
    ]
    if limits.max_imbalance is not None:
        results.append(_imbalance(run, limits.max_imbalance, limits.imbalance_scope))
    if limits.max_topic_imbalance is not None:
        worst = max(run.balance.per_topic, key=lambda item: item[1].spread, default=None)
        spread = worst[1].spread if worst else 0
        where = f" on {worst[0]} ({worst[1].minimum}..{worst[1].maximum})" if worst else ""
        results.append(
            CheckResult(
                "max-topic-imbalance",
                spread <= limits.max_topic_imbalance,
                f"<= {limits.max_topic_imbalance}",
                f"{spread}{where}",
            )
        )
    if limits.min_stickiness is not None:
        ratio = run.stickiness.ratio
        results.append(
            CheckResult(
                "min-stickiness",
                ratio is None or ratio >= limits.min_stickiness,
                f">= {limits.min_stickiness:.0%}",
                "nothing was owned"
                if ratio is None
                else f"{ratio:.1%} ({run.stickiness.kept} of {run.stickiness.keepable} kept)",
            )
        )
    if limits.max_moves is not None:
        results.append(
            CheckResult("max-moves", run.diff.moved <= limits.max_moves, f"<= {limits.max_moves}", str(run.diff.moved))
        )
    if limits.kafka_balanced:
        results.append(
            CheckResult(
                "kafka-balanced",
                run.balance.kafka_balanced,
                "no partition could move to a member with 2+ fewer",
                run.balance.kafka_unbalance or "balanced",
            )
        )
    return results


def _imbalance(run: AssignorRun, limit: int, scope: str) -> CheckResult:
    assert run.balance is not None
    overall = run.balance.overall
    groups = run.balance.per_subscription
    if scope == GROUP or len(groups) <= 1:  # one subscription: the two scopes are the same members
        return CheckResult(
            "max-imbalance",
            overall.spread <= limit,
            f"<= {limit} over the whole group" if scope == GROUP and len(groups) > 1 else f"<= {limit}",
            f"{overall.spread} (members hold {overall.minimum}..{overall.maximum} partitions)",
        )
    topics, worst = max(groups, key=lambda item: item[1].spread)
    return CheckResult(
        "max-imbalance",
        worst.spread <= limit,
        f"<= {limit} among members with the same topics",
        f"{worst.spread} among members subscribed to {','.join(topics)} "
        f"(they hold {worst.minimum}..{worst.maximum} partitions)",
    )
