"""Live groups through confluent-kafka's AdminClient, read into kgroup's model (Cluster, Group).

confluent_kafka is imported here only, on first use, so `kgroup --help` never loads librdkafka.
What the broker reports is kept as reported; what kgroup had to work around is a note on the group
(broker.md §3.5: Tansu reports state UNKNOWN in listings and a Stable group with no members).
"""

from __future__ import annotations

import logging
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kgroup.assignors.model import Assignment, Cluster, Group, Member, PartitionOffsets, Topic, TopicPartition
from kgroup.inspectors.live.connection import ConnectionSettings, bootstrap_addresses
from kgroup.inspectors.errors import AuthenticationError, InputError, NotFoundError, NotReachableError, RunError
from kgroup.inspectors.live.leader_view import leader_views
from kgroup.inspectors.live.transport_failures import (CERT_UNTRUSTED, authorization_failure, is_authorization_error,
                                                       untrusted_certificate)

READ_UNCOMMITTED, READ_COMMITTED = "read_uncommitted", "read_committed"
_SLICE_S = 0.25  # how often a wait looks at librdkafka's errors (a refused connection ends it early)


@dataclass(frozen=True)
class GroupListing:
    group_id: str
    type: str  # classic | consumer | unknown
    state: str


@dataclass(frozen=True)
class Coordinator:
    id: int
    host: str
    port: int


@dataclass(frozen=True)
class LiveGroup:
    """One group as read: the model group (members, assignment, offsets) and what describe adds."""

    group: Group
    type: str
    assignor: str | None
    coordinator: Coordinator | None
    notes: tuple[str, ...] = ()
    # What --verbose adds: the leader epoch stored with each commit, and each member's target assignment
    # (consumer-protocol groups only; classic groups have none, as in Kafka's tool).
    leader_epochs: dict[TopicPartition, int] = field(default_factory=dict)
    target_assignments: dict[str, tuple[TopicPartition, ...]] = field(default_factory=dict)
    # Members whose subscription was inferred from their assignment because their metadata was not read.
    inferred: frozenset[str] = frozenset()
    client_reason: str | None = None  # why Group.client is what it is (or is unknown)


@dataclass
class LiveRead:
    cluster: Cluster
    groups: list[LiveGroup] = field(default_factory=list)


class LiveAdmin:
    """A thin, timed wrapper over AdminClient; every failure becomes one of kgroup's errors."""

    def __init__(self, settings: ConnectionSettings, timeout_s: float = 10.0) -> None:
        try:
            from confluent_kafka.admin import AdminClient
        except ImportError:  # pragma: no cover - a declared dependency
            raise RunError("confluent-kafka is not installed: pip install confluent-kafka") from None
        self.settings = settings
        self.timeout_s = timeout_s
        self._errors: list[Any] = []
        self._metadata: Any = None
        quiet = logging.getLogger("kgroup.librdkafka")
        quiet.addHandler(logging.NullHandler())
        quiet.propagate = False  # librdkafka's log lines would otherwise go to stderr, unasked
        # a broker back from a restart is found within a second, not librdkafka's default 10 s backoff
        config: dict[str, Any] = {"reconnect.backoff.max.ms": 1000, **settings.client_config(),
                                  "error_cb": self._errors.append}
        try:
            self._admin = AdminClient(config, logger=quiet)
        except Exception as exc:  # librdkafka rejects unknown or malformed properties here
            raise InputError(f"client configuration rejected: {_reason(exc)}", field="--command-config") from None

    # -- reachability -------------------------------------------------------------------------------

    def _fatal(self, what: str, since: int) -> Exception | None:
        """What librdkafka reported since `since` (an index into its errors) that ends the command now rather
        than at --timeout: an authentication failure, or the cluster gone (every broker down, or a transport
        error while no bootstrap address accepts a connection)."""
        self._admin.poll(0)  # serves error_cb
        recent = self._errors[since:]
        codes = {e.name() for e in recent}
        if "_AUTHENTICATION" in codes:
            detail = next(e.str() for e in recent if e.name() == "_AUTHENTICATION")
            return AuthenticationError(f"authentication with {self.settings.bootstrap_servers} (from "
                                       f"{self.settings.origin}) failed during {what}: {detail}")
        untrusted = next((e.str() for e in recent if CERT_UNTRUSTED in e.str()), None)
        if untrusted is not None:  # Kafka's clients: an SslAuthenticationException, an authentication failure
            return AuthenticationError(untrusted_certificate(self.settings, f"during {what}", untrusted))
        if "_ALL_BROKERS_DOWN" in codes or (codes & {"_TRANSPORT", "_RESOLVE"} and not self._accepts()):
            return self._unreachable(None, what, since)
        return None

    def _unreachable(self, exc: Exception | None, what: str, since: int = 0) -> NotReachableError:
        self._admin.poll(0.1)  # serves error_cb: the first error says which address failed and why
        detail = next((e.str() for e in self._errors[since:] if e.name() != "_ALL_BROKERS_DOWN"), None)
        if detail is None:
            detail = _reason(exc) if exc is not None else "all brokers are down"
        return NotReachableError(f"cannot reach {self.settings.bootstrap_servers} (from {self.settings.origin}) "
                                 f"during {what}: {detail}")

    def _timed_out(self, what: str, since: int) -> NotReachableError:
        return NotReachableError(f"{self._unreachable(None, what, since)} (no answer within {self.timeout_s:g} s)")

    def _accepts(self) -> bool:
        """Whether some bootstrap address accepts a TCP connection now (asked after a transport error)."""
        for host, port in bootstrap_addresses(self.settings.bootstrap_servers):
            try:
                socket.create_connection((host, port), timeout=min(1.0, self.timeout_s)).close()
                return True
            except OSError:
                continue
        return False

    def metadata(self) -> Any:
        """Cluster metadata, fetched once per command: it is also the reachability check."""
        if self._metadata is None:
            what, since = "Metadata", len(self._errors)
            deadline = time.monotonic() + self.timeout_s
            while self._metadata is None:
                try:  # in slices, so that a refused connection ends the wait at once
                    self._metadata = self._admin.list_topics(timeout=_slice(deadline))
                except Exception:
                    fatal = self._fatal(what, since)
                    if fatal is not None:
                        raise fatal from None
                    if time.monotonic() >= deadline:
                        raise self._timed_out(what, since) from None
        return self._metadata

    def forget_metadata(self) -> None:
        self._metadata = None

    def _wait(self, future: Any, what: str) -> Any:
        """A request's answer within --timeout; a failure is the cluster lost (exit 4), an authentication
        failure (exit 7), or the cluster's refusal (RunError, exit 1)."""
        since = len(self._errors)
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                return future.result(timeout=_slice(deadline))
            except TimeoutError:  # concurrent.futures.TimeoutError is TimeoutError since Python 3.11
                fatal = self._fatal(what, since)
                if fatal is not None:
                    raise fatal from None
                if time.monotonic() >= deadline:
                    raise self._timed_out(what, since) from None
            except Exception as exc:
                raise self._failed(exc, what, since) from None

    def _failed(self, exc: Exception, what: str, since: int) -> Exception:
        """A request librdkafka failed: the cluster lost when no broker answered or the broker went away while
        it ran (librdkafka then fails it with another code, e.g. "Failed to query partition leaders")."""
        if _code(exc) == "_AUTHENTICATION":
            return AuthenticationError(f"authentication with {self.settings.bootstrap_servers} failed during "
                                       f"{what}: {_reason(exc)}")
        if is_authorization_error(_code(exc)):
            return authorization_failure(str(_code(exc)), what, settings=self.settings)
        self._admin.poll(0)  # serves error_cb
        untrusted = next((e.str() for e in self._errors[since:] if CERT_UNTRUSTED in e.str()), None)
        if untrusted is not None:
            return AuthenticationError(untrusted_certificate(self.settings, f"during {what}", untrusted))
        if _no_broker(exc):
            return self._unreachable(exc, what, since)
        return self._fatal(what, since) or RunError(f"{what}: {_reason(exc)}")

    def _result(self, future: Any, what: str) -> Any:
        return self._wait(future, what)

    # -- reads ------------------------------------------------------------------------------------

    def list_groups(self) -> list[GroupListing]:
        self.metadata()
        result = self._result(self._admin.list_consumer_groups(request_timeout=self.timeout_s), "ListGroups")
        return sorted((GroupListing(g.group_id, enum_name(getattr(g, "type", None)), enum_name(g.state))
                       for g in result.valid), key=lambda g: g.group_id)

    def cluster(self) -> Cluster:
        """Every non-internal topic, with the racks of each partition's replicas when brokers have racks."""
        metadata = self.metadata()
        racks = self._broker_racks()
        topics = []
        for name, t in sorted(metadata.topics.items()):
            if name.startswith("__"):
                continue
            replica_racks: tuple[frozenset[str], ...] = ()
            if racks:
                replica_racks = tuple(frozenset(racks[b] for b in getattr(t.partitions.get(p), "replicas", ()) if b in racks)
                                      for p in range(len(t.partitions)))
            topics.append(Topic(name, len(t.partitions), replica_racks))
        return Cluster(tuple(topics))

    def _broker_racks(self) -> dict[int, str]:
        """Broker id -> broker.rack, for the brokers that have one (DescribeCluster)."""
        description = self._result(self._admin.describe_cluster(request_timeout=self.timeout_s), "DescribeCluster")
        return {node.id: node.rack for node in description.nodes if getattr(node, "rack", None)}

    def describe(self, group_ids: list[str]) -> dict[str, Any]:
        futures = self._admin.describe_consumer_groups(group_ids, request_timeout=self.timeout_s)
        return {gid: self._result(future, f"DescribeGroups of {gid!r}") for gid, future in futures.items()}

    def committed(self, group_id: str) -> dict[TopicPartition, int]:
        return {tp: offset for tp, (offset, _) in self.commits(group_id).items()}

    def commits(self, group_id: str) -> dict[TopicPartition, tuple[int, int | None]]:
        """Per committed partition: (offset, leader epoch or None) (OffsetFetch)."""
        from confluent_kafka import ConsumerGroupTopicPartitions

        futures = self._admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group_id)],
                                                          request_timeout=self.timeout_s)
        result = self._result(futures[group_id], f"OffsetFetch of {group_id!r}")
        return {TopicPartition(tp.topic, tp.partition): (tp.offset, _epoch(getattr(tp, "leader_epoch", None)))
                for tp in result.topic_partitions if tp.offset >= 0 and tp.error is None}

    def log_bounds(self, partitions: list[TopicPartition], isolation: str) -> dict[TopicPartition, tuple[int, int]]:
        """(log start, log end) per partition; the end is the last stable offset under read_committed."""
        if not partitions:
            return {}
        from confluent_kafka import IsolationLevel
        from confluent_kafka.admin import OffsetSpec
        from confluent_kafka import TopicPartition as KafkaTopicPartition

        level = IsolationLevel.READ_COMMITTED if isolation == READ_COMMITTED else IsolationLevel.READ_UNCOMMITTED
        ends = self.log_ends(partitions, isolation)
        starts = self._offsets(partitions, OffsetSpec.earliest(), level, KafkaTopicPartition)
        return {tp: (starts[tp], ends[tp]) for tp in partitions if tp in starts and tp in ends}

    def log_ends(self, partitions: list[TopicPartition], isolation: str) -> dict[TopicPartition, int]:
        """The log end per partition: the high watermark, or the last stable offset under read_committed."""
        if not partitions:
            return {}
        from confluent_kafka import IsolationLevel
        from confluent_kafka.admin import OffsetSpec
        from confluent_kafka import TopicPartition as KafkaTopicPartition

        level = IsolationLevel.READ_COMMITTED if isolation == READ_COMMITTED else IsolationLevel.READ_UNCOMMITTED
        return self._offsets(partitions, OffsetSpec.latest(), level, KafkaTopicPartition)

    def offsets_for_time(self, partitions: list[TopicPartition], timestamp_ms: int) -> dict[TopicPartition, int]:
        """The offset of the first record at or after the time per partition; -1 where there is none."""
        if not partitions:
            return {}
        from confluent_kafka import IsolationLevel
        from confluent_kafka.admin import OffsetSpec
        from confluent_kafka import TopicPartition as KafkaTopicPartition

        return self._offsets(partitions, OffsetSpec.for_timestamp(timestamp_ms), IsolationLevel.READ_UNCOMMITTED,
                             KafkaTopicPartition)

    def alter_offsets(self, group_id: str, offsets: dict[TopicPartition, int]) -> dict[TopicPartition, str | None]:
        """Commit `offsets` for the group (AlterConsumerGroupOffsets); per partition, None or why it failed."""
        from confluent_kafka import ConsumerGroupTopicPartitions
        from confluent_kafka import TopicPartition as KafkaTopicPartition

        request = ConsumerGroupTopicPartitions(group_id, [KafkaTopicPartition(tp.topic, tp.partition, offset)
                                                          for tp, offset in offsets.items()])
        future = self._admin.alter_consumer_group_offsets([request], request_timeout=self.timeout_s)[group_id]
        try:
            result = self._wait(future, f"OffsetCommit of {group_id!r}")
        except RunError as exc:  # the whole request failed: every partition did
            return {tp: str(exc) for tp in offsets}  # the whole request failed: every partition did
        errors = {TopicPartition(tp.topic, tp.partition): tp.error for tp in result.topic_partitions}
        denied = sorted((tp, _error_name(error)) for tp, error in errors.items()
                        if is_authorization_error(_error_name(error)))
        if denied:  # Kafka's tool fails the whole reset on an AuthorizationException; so does kgroup
            (tp, name), rest = denied[0], len(offsets) - len(denied)
            failure = authorization_failure(str(name), f"OffsetCommit of {group_id!r}", tp.topic, self.settings)
            if rest:
                failure.args = (f"{failure}; {rest} other partition(s) were committed",)
            raise failure
        return {tp: None if errors.get(tp) is None else _reason(Exception(errors[tp])) for tp in offsets}

    def check_topics_visible(self, names: list[str]) -> None:
        """For named topics the cluster's metadata does not list: Kafka leaves out of a Metadata answer for every
        topic the ones the principal may not DESCRIBE (KafkaApis.handleTopicMetadataRequest), so ask for each by
        name; TOPIC_AUTHORIZATION_FAILED is an AuthorizationError rather than "does not exist"."""
        listed = self.metadata().topics
        for name in dict.fromkeys(n for n in names if n and n not in listed):
            try:
                answer = self._admin.list_topics(topic=name, timeout=self.timeout_s)
            except Exception:
                continue  # the caller reports the topic as missing
            error = _error_name(getattr(answer.topics.get(name), "error", None))
            if is_authorization_error(error):
                raise authorization_failure(str(error), f"Metadata of {name}", name, self.settings)

    def delete_groups(self, group_ids: list[str]) -> dict[str, str | None]:
        """Delete each group with its committed offsets (DeleteGroups); per group, None or why it failed."""
        futures = self._admin.delete_consumer_groups(group_ids, request_timeout=self.timeout_s)
        failed: dict[str, str | None] = {}
        for group_id, future in futures.items():
            try:
                self._wait(future, f"DeleteGroups of {group_id!r}")
                failed[group_id] = None
            except RunError as exc:
                failed[group_id] = str(exc)
        return failed

    def _offsets(self, partitions: list[TopicPartition], spec: Any, level: Any, make: Any) -> dict[TopicPartition, int]:
        futures = self._admin.list_offsets({make(tp.topic, tp.partition): spec for tp in partitions},
                                           isolation_level=level, request_timeout=self.timeout_s)
        return {TopicPartition(k.topic, k.partition): self._result(f, f"ListOffsets of {k.topic}-{k.partition}").offset
                for k, f in futures.items()}


def group_pattern(regex: str | None) -> re.Pattern[str] | None:
    """-r/--regex over group ids (rpk's and kgroup's group filter); bad input when it does not compile."""
    if regex is None:
        return None
    try:
        return re.compile(regex)
    except re.error as exc:
        raise InputError(f"{regex!r}: not a regular expression ({exc})", field="--regex") from None


def chosen_group_ids(named: list[str], every: bool, pattern: re.Pattern[str] | None,
                     listing: Callable[[], list[str]]) -> list[str]:
    """The named groups, then those `listing` gives that --all-groups or -r picks; each once, in order.
    `listing` (the cluster's or a fixture's group ids) is called only when something is to be picked."""
    listed = listing() if every or pattern is not None else []
    picked = [g for g in listed if every or (pattern is not None and pattern.search(g))]
    return list(dict.fromkeys(named + picked))


def read_groups(admin: LiveAdmin, group_ids: list[str], isolation: str = READ_UNCOMMITTED,
                subscriptions: bool = False) -> LiveRead:
    """Describe each group, read its commits and the log bounds of every partition it touches.

    With `subscriptions`, each classic member is read as its group's leader will read it at the next
    rebalance (`leader_view`): subscribed topics, rack and group.instance.id from its ConsumerProtocol
    metadata, members in the broker's order, and the group's generation. A member whose metadata could not
    be read keeps a subscription inferred from its assignment and is listed in `LiveGroup.inferred`.
    """
    cluster = admin.cluster()
    known = {t.name for t in cluster.topics}
    descriptions = admin.describe(group_ids)
    views, unread = leader_views(admin.settings, group_ids, admin.timeout_s) if subscriptions else ({}, None)
    read = LiveRead(cluster)
    for group_id in group_ids:
        description = descriptions[group_id]
        state = enum_name(description.state)
        if state == "dead":
            raise NotFoundError(f"group {group_id!r} does not exist (the coordinator describes it as Dead)")
        commits = admin.commits(group_id)
        committed = {tp: offset for tp, (offset, _) in commits.items()}
        view = views.get(group_id)
        seen = {v.member_id: v for v in view.members} if view else {}
        order = {member_id: i for i, member_id in enumerate(seen)}
        listed = sorted(description.members, key=lambda m: order.get(m.member_id, len(order)))
        members, owners, targets, inferred, problems = [], {}, {}, set(), []
        for m in listed:
            target = getattr(m, "target_assignment", None)
            if target is not None:
                targets[m.member_id] = tuple(TopicPartition(tp.topic, tp.partition) for tp in target.topic_partitions)
            parts = tuple(TopicPartition(tp.topic, tp.partition) for tp in m.assignment.topic_partitions)
            for tp in parts:
                owners[tp] = m.member_id
            sent = seen.get(m.member_id)
            subscription = sent.subscription if sent else None
            if sent and sent.problem:
                problems.append(sent.problem)
            if subscription is None:
                inferred.add(m.member_id)
                members.append(Member(m.member_id, tuple(sorted({tp.topic for tp in parts})), m.group_instance_id,
                                      client_id=m.client_id, host=m.host))
                continue
            # `ConsumerCoordinator.metadata`: the topics in the member's own order, duplicates dropped.
            members.append(Member(m.member_id, tuple(dict.fromkeys(subscription.topics)),
                                  m.group_instance_id or sent.instance_id, subscription.rack_id or None,
                                  client_id=m.client_id, host=m.host))
        touched = sorted(set(committed) | set(owners))
        bounds = admin.log_bounds([tp for tp in touched if tp.topic in known], isolation)
        offsets = tuple(PartitionOffsets(tp, committed.get(tp), *bounds.get(tp, (None, None))) for tp in touched)
        assignment = Assignment.of({m.member_id: [tp for tp, o in owners.items() if o == m.member_id]
                                    for m in members})
        group_type = enum_name(getattr(description, "type", None))
        notes = _notes(state, members, description) + tuple(problems)
        if subscriptions and inferred and members:
            why = unread or ("the broker returned no member metadata" if view is not None else
                             "the broker did not describe the group's members")
            notes += (f"{len(inferred)} of {len(members)} members' subscriptions inferred from their assignment: "
                      f"{why}",)
        client, client_reason = view.client() if view else (None, None)
        read.groups.append(LiveGroup(
            Group(group_id, "consumer" if group_type == "consumer" else "classic", (), tuple(members), assignment,
                  view.generation() if view else None, _state_label(state), offsets, client),
            group_type, description.partition_assignor or None, _coordinator(description.coordinator), notes,
            {tp: epoch for tp, (_, epoch) in commits.items() if epoch is not None}, targets,
            frozenset(inferred) if subscriptions else frozenset(m.member_id for m in members), client_reason))
    return read


def _notes(state: str, members: list[Member], description: Any) -> tuple[str, ...]:
    notes = []
    if state == "unknown":
        notes.append("the broker reports the group's state as UNKNOWN")
    if state == "stable" and not members:
        notes.append("the broker reports a Stable group with no members; members and assignment are unknown")
    if not members and state in ("empty", "unknown", "stable"):
        notes.append("no active members")
    assignor = description.partition_assignor or ""
    if assignor and not members and "-" in assignor and len(assignor) > 30:
        notes.append(f"the reported assignor {assignor!r} looks like a member id, not an assignor")
    return tuple(notes)


def _epoch(value: Any) -> int | None:
    """librdkafka reports "no leader epoch" as None or -1."""
    return value if isinstance(value, int) and value >= 0 else None


def _coordinator(node: Any) -> Coordinator | None:
    if node is None:
        return None
    return Coordinator(node.id, node.host, node.port)


def _state_label(state: str) -> str:
    labels = {"preparing_rebalancing": "PreparingRebalance", "completing_rebalancing": "CompletingRebalance",
              "stable": "Stable", "empty": "Empty", "dead": "Dead", "unknown": "Unknown",
              "assigning": "Assigning", "reconciling": "Reconciling"}
    return labels.get(state, state)


def enum_name(value: Any) -> str:
    """An enum from confluent_kafka (ConsumerGroupState.STABLE, ConsumerGroupType.CLASSIC) as lower case."""
    if value is None:
        return "unknown"
    return str(getattr(value, "name", value)).lower()


def _slice(deadline: float) -> float:
    return min(_SLICE_S, max(0.01, deadline - time.monotonic()))


def _no_broker(exc: Exception) -> bool:
    """The request failed because no broker answered, not because a broker refused it."""
    return _code(exc) in ("_TRANSPORT", "_ALL_BROKERS_DOWN", "_TIMED_OUT") or isinstance(exc, TimeoutError)


def _error_name(error: Any) -> str | None:
    """The name of a confluent_kafka KafkaError (a per-partition or per-topic error), or None."""
    name = getattr(error, "name", None)
    return name() if callable(name) else None


def _code(exc: Exception) -> str | None:
    error = exc.args[0] if exc.args else None
    name = getattr(error, "name", None)
    return name() if callable(name) else None


def _reason(exc: Exception) -> str:
    error = exc.args[0] if exc.args else None
    text = getattr(error, "str", None)
    return text() if callable(text) else str(exc) or type(exc).__name__
