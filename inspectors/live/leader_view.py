"""Each classic group's members as its leader will read them: the ConsumerProtocol bytes DescribeGroups returns.

confluent-kafka's describe decodes the assignment but hides each member's subscription (topics, owned
partitions, generation, rack: ConsumerProtocolSubscription v0-v3), so kgroup reads DescribeGroups itself
(`inspectors.live.wire`) and decodes the bytes in the core (`kgroup.assignors.protocol`). What cannot be
read (a broker that returns no bytes, as Tansu does, or a security setting the small transport does not
speak) is left None here and marked inferred by the caller, never invented.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgroup.assignors.model import TopicPartition
from kgroup.assignors.protocol.consumer_protocol import (
    ConsumerProtocolError,
    Subscription,
    decode_assignment,
    decode_subscription,
)
from kgroup.inspectors.live.connection_settings import ConnectionSettings
from kgroup.inspectors.live.wire.describe_groups import ClassicMemberBytes, describe_classic_members
from kgroup.inspectors.live.transport_failures import cluster_failures
from kgroup.inspectors.live.wire.errors import KafkaClientError


@dataclass(frozen=True)
class MemberView:
    member_id: str
    instance_id: str | None
    client_id: str
    host: str
    subscription: Subscription | None  # None: no bytes, or bytes that do not decode (see `problem`)
    assignment: tuple[TopicPartition, ...] | None
    problem: str | None = None

    def client(self) -> str | None:
        """The member's client, where its subscription's bytes tell it.

        With client.rack unset, librdkafka writes an empty rack into subscription v3
        (rd_kafka_consumer_protocol_member_metadata_new) while Kafka's Java consumer writes null
        (ConsumerCoordinator drops an empty client.rack). A set rack, or an older version, tells nothing.
        """
        sub = self.subscription
        if sub is None or sub.version < 3:
            return None
        if sub.rack_id == "":
            return "librdkafka"
        return "java" if sub.rack_id is None else None


@dataclass(frozen=True)
class LeaderView:
    """One group as DescribeGroups returns it, members in the broker's order (the JoinGroup response's)."""

    protocol_type: str | None
    protocol: str | None  # the chosen assignor's name
    state: str | None
    members: tuple[MemberView, ...]

    def generation(self) -> int | None:
        """The group's current generation, as far as the members' last JoinGroup tells it.

        Every member rejoins in each classic rebalance, sending the generation it held (subscription v2+,
        `ConsumerCoordinator.metadata`); the rebalance then moved the group one generation on. None when no
        member reported one (eager assignors and first joins send -1).
        """
        sent = [
            m.subscription.generation_id
            for m in self.members
            if m.subscription is not None and m.subscription.generation_id >= 0
        ]
        return max(sent) + 1 if sent else None

    def client(self) -> tuple[str | None, str]:
        """The client whose assignor runs on the leader, and why kgroup thinks so.

        DescribeGroups does not say which member leads, nor any client's software (KIP-511 tells only the
        broker), so the answer is given only when every member whose bytes tell agrees.
        """
        kinds = {m.client() for m in self.members} - {None}
        if kinds == {"librdkafka"}:
            return "librdkafka", "every member's subscription carries an empty rack, as librdkafka writes it"
        if kinds == {"java"}:
            return "java", "every member's subscription carries a null rack, as Kafka's Java consumer writes it"
        if kinds:
            return None, "the members run different clients, and DescribeGroups does not say which one leads"
        return None, "the members' subscriptions do not say which client they run"


def leader_views(
    settings: ConnectionSettings, group_ids: list[str], timeout_s: float
) -> tuple[dict[str, LeaderView], str | None]:
    """Per group, its leader's view; and why none could be read (None when the read worked)."""
    try:
        with cluster_failures(settings, "for DescribeGroups"):
            raw = describe_classic_members(settings.client_config(), group_ids, timeout_s)
    except KafkaClientError as exc:
        # A setting this transport cannot honour (GSSAPI, a PKCS#12 keystore) or a broker it cannot use:
        # the group is still read through confluent-kafka, with its subscriptions inferred.
        return {}, f"member metadata not read ({exc})"
    views = {}
    for group_id, group in raw.items():
        if group.error:
            continue
        members = tuple(_member(m) for m in group.members)
        views[group_id] = LeaderView(group.protocol_type, group.protocol or None, group.state, members)
    return views, None


def _member(raw: ClassicMemberBytes) -> MemberView:
    subscription, assignment, problem = None, None, None
    try:
        if raw.metadata:
            subscription = decode_subscription(raw.metadata)
        if raw.assignment:
            assigned = decode_assignment(raw.assignment)
            assignment = tuple(TopicPartition(t, p) for t, p in assigned.partitions())
    except ConsumerProtocolError as exc:
        problem = f"member {raw.member_id!r}: metadata not decoded: {exc}"
    return MemberView(
        raw.member_id, raw.group_instance_id, raw.client_id, raw.client_host, subscription, assignment, problem
    )
