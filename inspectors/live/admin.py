"""A cluster through confluent-kafka's AdminClient: timed requests, every failure one of kgroup's errors.

confluent_kafka is imported here only, on first use, so `kgroup --help` never loads librdkafka. `LiveAdmin`
answers in the model's small types (Cluster, TopicPartition, offsets) or confluent-kafka's own descriptions;
consumer_groups.py turns a group's description into the model's Group.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kgroup.assignors.model import Cluster, Topic, TopicPartition
from kgroup.inspectors.live.connection_settings import ConnectionSettings, bootstrap_addresses
from kgroup.inspectors.errors import (
    AuthenticationError,
    AuthorizationError,
    CoordinatorUnavailableError,
    InputError,
    NotReachableError,
    RunError,
)
from kgroup.inspectors.live.transport_failures import (
    CERT_UNTRUSTED,
    authorization_failure,
    cluster_failures,
    is_authorization_error,
    untrusted_certificate,
)
from kgroup.inspectors.live.wire.errors import AuthenticationFailed, KafkaClientError, ProtocolError, UnsupportedConfig

READ_UNCOMMITTED, READ_COMMITTED = "read_uncommitted", "read_committed"
_LEADER_WAIT_S = 3.0  # a live partition leader answers ListOffsets within this on a busy machine
# The diagnosis of a write unconfirmed at --timeout (a Metadata and a DescribeConfigs read): a cluster that
# answers does so in milliseconds, so a few seconds on a busy machine; more would only delay the line.
_DIAGNOSIS_S = 3.0
_SLICE_S = 0.25  # how often a wait looks at librdkafka's errors (a refused connection ends it early)
# A broker on a reachable address answers Metadata within this on a busy machine; past it kgroup looks at what
# the address is (kgroup.inspectors.live.probe) rather than waiting out --timeout.
_PROBE_AFTER_S = 0.75


@dataclass(frozen=True)
class GroupListing:
    group_id: str
    type: str  # classic | consumer | share | streams (ListGroups v5) | unknown
    state: str
    protocol: str | None = None  # the protocol type (`consumer`, `connect`, "" for offsets only); None: not read


@dataclass(frozen=True)
class CommitAnswer:
    """An offset commit's answer: the partitions the coordinator refused, each with why; and, when the coordinator
    could not confirm the commit (every partition alike: one record batch), why: it may yet take effect."""

    refused: dict[TopicPartition, str]
    unconfirmed: str | None


@dataclass(frozen=True)
class Coordinator:
    id: int
    host: str
    port: int


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
        self._coordinator_moved = False
        self._metadata: Any = None
        self._probed = False  # kgroup.inspectors.live.probe asked already (once per command)
        quiet = logging.getLogger("kgroup.librdkafka")
        quiet.addHandler(logging.NullHandler())
        quiet.propagate = False  # librdkafka's log lines would otherwise go to stderr, unasked
        # a broker back from a restart is found within a second, not librdkafka's default 10 s backoff
        # librdkafka's admin client is a producer, whose Metadata for a named topic asks the broker to create
        # it (allow.auto.create.topics defaults to true for producers; auto.create.topics.enable to true on
        # Kafka): a read must never create the topic it was asked about, as Kafka's Admin client never does.
        self._config: dict[str, Any] = {
            "reconnect.backoff.max.ms": 1000,
            **settings.client_config(),
            "allow.auto.create.topics": False,
            "error_cb": self._errors.append,
        }
        self._quiet = quiet
        self._client: Any = None
        try:
            self._client = AdminClient(self._config, logger=quiet)
        except Exception as exc:  # librdkafka rejects unknown or malformed properties here
            raise InputError(f"client configuration rejected: {_reason(exc)}", field="--command-config") from None

    @property
    def _admin(self) -> Any:
        """librdkafka's client; a new one (same settings) after close()."""
        if self._client is None:
            from confluent_kafka.admin import AdminClient

            self._client = AdminClient(self._config, logger=self._quiet)
        return self._client

    def close(self) -> None:
        """Destroy librdkafka's client now, failing whatever it still had pending (rd_kafka_destroy), rather
        than whenever the garbage collector gets to it. The next request opens a new client."""
        self._client = None

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
            return AuthenticationError(
                f"authentication with {self.settings.bootstrap_servers} (from "
                f"{self.settings.origin}) failed during {what}: {detail}"
            )
        untrusted = next((e.str() for e in recent if CERT_UNTRUSTED in e.str()), None)
        if untrusted is not None:  # Kafka's clients: an SslAuthenticationException, an authentication failure
            return self._untrusted(what, untrusted)
        if "_ALL_BROKERS_DOWN" in codes or (codes & {"_TRANSPORT", "_RESOLVE"} and not self._accepts()):
            # a peer that accepted and then hung up (a TLS listener asked in plain bytes) is named if it can be
            return self._peer_named(time.monotonic() + self.timeout_s) or self._unreachable(None, what, since)
        return None

    def _untrusted(self, what: str, detail: str) -> AuthenticationError:
        """librdkafka's line does not say whether the CA or the host name failed to verify; kgroup's own
        transport's handshake (Python's ssl) does, so a bootstrap server is asked once more, briefly."""
        from kgroup.inspectors.live.wire.describe_groups import probe_api_versions

        try:
            probe_api_versions(self.settings.client_config(), min(self.timeout_s, 5.0))
        except AuthenticationFailed as exc:
            if exc.untrusted and "mismatch" in str(exc):
                detail = str(exc)
        except Exception:  # librdkafka's reason stands when this one cannot be had
            pass
        return AuthenticationError(untrusted_certificate(self.settings, f"during {what}", detail))

    def _unreachable(self, exc: Exception | None, what: str, since: int = 0) -> NotReachableError:
        self._admin.poll(0.1)  # serves error_cb: the first error says which address failed and why
        detail = next((e.str() for e in self._errors[since:] if e.name() != "_ALL_BROKERS_DOWN"), None)
        if detail is None:
            detail = _reason(exc) if exc is not None else "all brokers are down"
        return NotReachableError(f"{self._cannot_reach(what)}: {detail}")

    def _cannot_reach(self, what: str) -> str:
        """The start of every exit-4 line: which bootstrap servers (and where they were given) during what."""
        return f"cannot reach {self.settings.bootstrap_servers} (from {self.settings.origin}) during {what}"

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
            started = time.monotonic()
            deadline, probed = started + self.timeout_s, False
            while self._metadata is None:
                try:  # in slices, so that a refused connection ends the wait at once
                    self._metadata = self._admin.list_topics(timeout=_slice(deadline))
                except Exception:
                    fatal = self._fatal(what, since)
                    if fatal is not None:
                        raise fatal from None
                    if not probed and time.monotonic() - started >= _PROBE_AFTER_S:
                        probed = True  # no answer yet: is the address a Kafka listener at all?
                        named = self._peer_named(deadline)
                        if named is not None:
                            raise named from None
                    if time.monotonic() >= deadline:
                        raise self._timed_out(what, since) from None
        return self._metadata

    def _peer_named(self, deadline: float) -> NotReachableError | None:
        """librdkafka reports a peer that is not Kafka (an HTTP server, a TLS listener asked in plain bytes)
        only as a timeout or a transport error; kgroup's own probe names it from the first bytes it answers.
        Asked once per command."""
        if self._probed:
            return None
        self._probed = True
        from kgroup.inspectors.live.probe import PROBE_S, not_kafka

        line = not_kafka(self.settings, min(PROBE_S, max(0.1, deadline - time.monotonic())))
        return None if line is None else NotReachableError(f"{line} (from {self.settings.origin})")

    def forget_metadata(self) -> None:
        self._metadata = None

    def _wait(self, future: Any, what: str, deadline: float | None = None) -> Any:
        """A request's answer within --timeout (or by `deadline`, a retry's); a failure is the cluster lost
        (exit 4), an authentication failure (exit 7), or the cluster's refusal (RunError, exit 1)."""
        since = len(self._errors)
        deadline = time.monotonic() + self.timeout_s if deadline is None else deadline
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
            return AuthenticationError(
                f"authentication with {self.settings.bootstrap_servers} failed during {what}: {_reason(exc)}"
            )
        if is_authorization_error(_code(exc)):
            return authorization_failure(str(_code(exc)), what, settings=self.settings)
        self._admin.poll(0)  # serves error_cb
        untrusted = next((e.str() for e in self._errors[since:] if CERT_UNTRUSTED in e.str()), None)
        if untrusted is not None:
            return self._untrusted(what, untrusted)
        if _no_broker(exc):
            return self._unreachable(exc, what, since)
        return self._fatal(what, since) or RunError(f"{what}: {_reason(exc)}")

    def _result(self, future: Any, what: str) -> Any:
        return self._wait(future, what)

    # -- reads ------------------------------------------------------------------------------------

    def list_groups(self, every_type: bool = False) -> list[GroupListing]:
        """The consumer groups or, with `every_type`, every group (share, streams and Connect's too), with
        its type, state and protocol type, as `kafka-groups.sh --list` reads them (Admin.listGroups:
        ListGroups to every broker; v5 adds the type, KIP-848). Consumer groups are those whose protocol type
        is `consumer` or empty, as KafkaAdminClient.listConsumerGroups keeps them. Read through kgroup's own
        transport, which has the protocol type and the states librdkafka does not name (Assigning,
        Reconciling); through confluent-kafka, without the protocol type, where that transport cannot use
        the settings (GSSAPI, a PKCS#12 keystore) or the answer."""
        listed = self._all_groups()
        if every_type:
            return listed
        return [
            g
            for g in listed
            if g.protocol in ("consumer", "") or (g.protocol is None and g.type not in ("share", "streams"))
        ]

    def _all_groups(self) -> list[GroupListing]:
        from kgroup.inspectors.live.wire.list_groups import list_groups as wire_list_groups

        metadata = self.metadata()
        addresses = [f"{b.host}:{b.port}" for _, b in sorted(metadata.brokers.items())]
        try:
            with cluster_failures(self.settings, "during ListGroups"):
                listed = wire_list_groups(self.settings.client_config(), addresses, self.timeout_s)
            return [
                GroupListing(g.group_id, g.type or "unknown", g.state or "Unknown", g.protocol_type) for g in listed
            ]
        except (UnsupportedConfig, ProtocolError):
            pass
        result = self._result(self._admin.list_consumer_groups(request_timeout=self.timeout_s), "ListGroups")
        return sorted(
            (
                GroupListing(g.group_id, enum_name(getattr(g, "type", None)), _state_label(enum_name(g.state)))
                for g in result.valid
            ),
            key=lambda g: g.group_id,
        )

    def groups_not_listed(self) -> str | None:
        """Which groups a listing this command made may be short of, and why (leaderless_coordinator
        .groups_not_listed), from the metadata it read."""
        from kgroup.inspectors.live.leaderless_coordinator import groups_not_listed

        return groups_not_listed(self._metadata)

    def topic_ids(self, names: list[str]) -> dict[str, str]:
        """Kafka's id of each named topic, in `Uuid.toString`'s form (URL-safe base64 of its 16 bytes,
        unpadded), read with confluent-kafka's describe_topics; a topic that cannot be described (gone, or
        hidden by ACLs) is left out. KIP-848's uniform assignor breaks ties by topic id."""
        from confluent_kafka import TopicCollection

        if not names:
            return {}
        futures = self._admin.describe_topics(
            TopicCollection(list(dict.fromkeys(names))), request_timeout=self.timeout_s
        )
        ids = {}
        for name, future in futures.items():
            try:
                uid = self._result(future, f"Metadata of {name}").topic_id
            except (RunError, AuthorizationError):
                continue
            if uid is None:
                continue
            raw = b"".join(
                half.to_bytes(8, "big", signed=True)
                for half in (uid.get_most_significant_bits(), uid.get_least_significant_bits())
            )
            ids[name] = base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")
        return ids

    def kafka_version(self) -> str | None:
        """The brokers' release ("4.2") from the highest metadata.version they support (ApiVersions v3+,
        `wire.features`); None when it cannot be read or told."""
        from kgroup.inspectors.live.wire.features import release_of, supported_features

        try:
            with cluster_failures(self.settings, "during ApiVersions"):
                return release_of(supported_features(self.settings.client_config(), self.timeout_s))
        except (UnsupportedConfig, ProtocolError):
            return None

    def describe_consumer_protocol(self, group_ids: list[str]) -> tuple[dict[str, Any], str | None]:
        """Each consumer-protocol group as its coordinator describes it (ConsumerGroupDescribe, API 69), and
        why none could be read (None when the read worked): a setting kgroup's transport cannot honour
        leaves the group to confluent-kafka's describe, without epochs. The cluster lost is exit 4, refused
        credentials exit 7; a group the principal may not DESCRIBE (or a topic it is assigned, as
        KafkaApis.handleConsumerGroupDescribe checks) exit 8."""
        from kgroup.inspectors.live.wire.consumer_group_describe import describe_consumer_groups

        if not group_ids:
            return {}, None
        try:
            with cluster_failures(self.settings, "during ConsumerGroupDescribe"):
                described = describe_consumer_groups(self.settings.client_config(), group_ids, self.timeout_s)
        except UnsupportedConfig as exc:
            return {}, f"epochs not read ({exc})"
        except KafkaClientError as exc:
            raise RunError(f"ConsumerGroupDescribe: {exc}") from None
        for group_id, group in described.items():
            if group.error is None:
                continue
            name = group.error.split(":")[0].split(" ")[0]
            if is_authorization_error(name):
                found_by = "FindCoordinator" if "(FindCoordinator" in group.error else "DescribeGroups"
                raise authorization_failure(name, f"{found_by} of {group_id!r}", settings=self.settings)
            if name in _COORDINATOR_MOVING:  # wire.consumer_group_describe asked it again, up to its attempts
                raise self._coordinator_away(f"ConsumerGroupDescribe of {group_id!r}", name, "when asked again")
            if name != "GROUP_ID_NOT_FOUND":
                raise RunError(f"ConsumerGroupDescribe of {group_id!r}: {group.error}")
        # GROUP_ID_NOT_FOUND: deleted, or converted to a classic group since it was listed (a downgrade,
        # KIP-848); the caller keeps confluent-kafka's description of it.
        return {g: d for g, d in described.items() if d.error is None}, None

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
                replica_racks = tuple(
                    frozenset(racks[b] for b in getattr(t.partitions.get(p), "replicas", ()) if b in racks)
                    for p in range(len(t.partitions))
                )
            topics.append(Topic(name, len(t.partitions), replica_racks))
        return Cluster(tuple(topics))

    def _broker_racks(self) -> dict[int, str]:
        """Broker id -> broker.rack, for the brokers that have one (DescribeCluster).

        librdkafka sends DescribeCluster to the node Metadata names as the controller (under KRaft a random
        live broker, KIP-590) and waits for that node; one that just died would hold it to --timeout. Kafka's
        admin client asks any live node (KafkaAdminClient.describeCluster, LeastLoadedBrokerOrActiveKController),
        so while no answer comes the metadata is asked again each second, which points librdkafka's request at
        the node the cluster names now."""
        import concurrent.futures

        what, since = "DescribeCluster", len(self._errors)
        future = self._admin.describe_cluster(request_timeout=self.timeout_s)
        deadline = time.monotonic() + self.timeout_s
        while not concurrent.futures.wait([future], timeout=min(1.0, _slice(deadline) * 4)).done:
            fatal = self._fatal(what, since)
            if fatal is not None:
                raise fatal
            if time.monotonic() >= deadline:
                break  # the wait below reports it
            try:
                self._admin.list_topics(timeout=min(1.0, _slice(deadline) * 4))
            except Exception:  # an answer comes later, or the wait below says why not
                pass
        description = self._result(future, what)
        return {node.id: node.rack for node in description.nodes if getattr(node, "rack", None)}

    @contextlib.contextmanager
    def _closed_unless_answered(self, future: Any) -> Iterator[None]:
        """Wait for a coordinator request's `future`; if the wait ends without the coordinator's answer (kgroup's
        --timeout, the cluster gone, Ctrl-C) or librdkafka timed the request out itself, the client is closed.

        librdkafka 2.x (up to 2.16, confluent-kafka 2.16.1) frees a coordinator request's state twice when the
        admin operation timed out while the request still waited for its coordinator, and that coordinator
        comes back later (rd_kafka_admin_coord_request returns _DESTROY after releasing the enq-once, and
        rd_kafka_coord_req_fail then releases it again): the process aborts with "rd_kafka_enq_once_del_source_
        return: Assertion `eonce->refcnt > 0' failed" (confluentinc/librdkafka#4605, fix proposed in #5397).
        So the operation's own timeout is set beyond kgroup's wait (_coordinator_request_timeout) and a request
        kgroup stops waiting for is failed by destroying the client (rd_kafka_coord_req_fsm then sees the handle
        terminating and fails it once)."""
        try:
            yield
        finally:
            if not future.done() or _code(future.exception() or Exception()) == "_TIMED_OUT":
                self.close()

    def _at_coordinator(self, call: str, argument: Any, group_id: str, what: str) -> Any:
        """The answer of `group_id`'s coordinator to the AdminClient's `call(argument, request_timeout=...)`,
        within --timeout. (Named, not a bound method: a frame left in a traceback must not keep a client that
        _closed_unless_answered closed.)

        librdkafka hands a coordinator's COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE or
        NOT_COORDINATOR back as the result (a coordinator just moved: its new node is loading the group), where
        Kafka's admin client looks the coordinator up again or retries (CoordinatorStrategy.handleError,
        DescribeConsumerGroupsHandler.handleError, DeleteConsumerGroupsHandler.handleError); so kgroup sends
        the request again after retry.backoff.ms, doubling up to retry.backoff.max.ms (100 ms to 1 s, KIP-580)."""
        import concurrent.futures

        deadline = time.monotonic() + self.timeout_s
        since, attempt = len(self._errors), 0
        while True:
            requested = getattr(self._admin, call)(
                argument, request_timeout=_coordinator_request_timeout(self.timeout_s)
            )
            future = requested[group_id]
            with self._closed_unless_answered(future):
                while not concurrent.futures.wait([future], timeout=_slice(deadline)).done:
                    fatal = self._fatal(what, since)
                    if fatal is not None:
                        raise fatal
                    if time.monotonic() >= deadline:
                        raise self._no_coordinator(group_id, what) or self._timed_out(what, since)
            error = future.exception()
            moving = _code(error) if isinstance(error, Exception) else None
            if moving not in _COORDINATOR_MOVING:
                return self._wait(future, what)
            pause = min(0.1 * 2**attempt, 1.0)
            if deadline - time.monotonic() <= pause:
                raise self._no_coordinator(group_id, what) or self._coordinator_away(
                    what, str(moving), f"after {self.timeout_s:g} s"
                )
            self._coordinator_moved = True
            attempt += 1
            time.sleep(pause)

    def _no_coordinator(self, group_id: str, what: str) -> CoordinatorUnavailableError | None:
        """Why `group_id`'s coordinator never answered `what`, when the metadata this command read says its
        `__consumer_offsets` partition has no leader (leaderless_coordinator): librdkafka then retries
        FindCoordinator until the request times out and can report only that nothing answered."""
        from kgroup.inspectors.live.leaderless_coordinator import leaderless_coordinator

        why = leaderless_coordinator(self._metadata, group_id)
        if why is None:
            return None
        return CoordinatorUnavailableError(
            f"{self._cannot_reach(what)}: group {group_id!r} has no coordinator (no answer within "
            f"{self.timeout_s:g} s); {why}"
        )

    @contextlib.contextmanager
    def group_coordinator(self, group_id: str, what: str) -> Iterator[None]:
        """A request to `group_id`'s coordinator through kgroup's own transport: a lookup that never found the
        coordinator is told as `_no_coordinator` where the metadata says why."""
        try:
            yield
        except CoordinatorUnavailableError:
            told = self._no_coordinator(group_id, what)
            if told is None:
                raise
            raise told from None

    def _coordinator_away(self, what: str, error: str, how_long: str) -> NotReachableError:
        """A group's coordinator that still answers `error` (moving, loading or shutting down) when --timeout
        runs out: Kafka's admin client keeps retrying it until default.api.timeout.ms and then fails with a
        TimeoutException (DescribeConsumerGroupsHandler.handleError, ListConsumerGroupOffsetsHandler), so for
        kgroup the cluster could not be used within the timeout (exit 4), not a refusal (exit 1): a cluster whose
        brokers are shutting down answers COORDINATOR_NOT_AVAILABLE (GroupCoordinatorService.isActive) before
        it stops answering at all."""
        return NotReachableError(
            f"{self._cannot_reach(what)}: the group's coordinator still answered {error} {how_long} (moving, "
            "loading or shutting down)"
        )

    def describe(self, group_ids: list[str]) -> dict[str, Any]:
        """Each group as its coordinator describes it. A Dead answer is asked again for up to DEAD_RECHECK_S:
        a coordinator that has just taken the group over describes every group as Dead for a moment
        (wire.coordinator.DEAD_RECHECK_S says why); where this command saw a broker go away or the coordinator
        move, until --timeout."""
        from kgroup.inspectors.live.wire.coordinator import DEAD_RECHECK_S

        described = {}
        for gid in dict.fromkeys(group_ids):
            started, attempt = time.monotonic(), 0
            while True:
                answer = self._at_coordinator("describe_consumer_groups", [gid], gid, f"DescribeGroups of {gid!r}")
                pause = min(0.1 * 2**attempt, 1.0)
                if enum_name(answer.state) != "dead":
                    break
                limit = self.timeout_s if self._saw_a_broker_go(gid) else min(DEAD_RECHECK_S, self.timeout_s)
                if time.monotonic() - started + pause > limit:
                    break
                attempt += 1
                time.sleep(pause)
            described[gid] = answer
        return described

    def _saw_a_broker_go(self, group_id: str) -> bool:
        """Whether the group's coordinator may have just moved: kgroup retried a moving coordinator, librdkafka
        reported a lost or refused broker connection, or the group's `__consumer_offsets` partition has lost a
        replica from its ISR (a broker the controller fenced: a new leader, whose high watermark waits for the
        remaining followers, Partition.maybeIncrementLeaderHW)."""
        if self._coordinator_moved or any(e.name() in ("_TRANSPORT", "_ALL_BROKERS_DOWN") for e in self._errors):
            return True
        from kgroup.inspectors.live.leaderless_coordinator import OFFSETS_TOPIC, group_partition

        try:
            metadata = self._admin.list_topics(OFFSETS_TOPIC, timeout=min(self.timeout_s, 5.0))
        except Exception:  # not visible to this principal, or no answer: no sign either way
            return False
        held = group_partition(metadata, group_id)
        return held is not None and len(held[1].isrs) < len(held[1].replicas)

    def committed(self, group_id: str) -> dict[TopicPartition, int]:
        return {tp: offset for tp, (offset, _) in self.commits(group_id).items()}

    def commits(self, group_id: str) -> dict[TopicPartition, tuple[int, int | None]]:
        """Per committed partition: (offset, leader epoch or None) (OffsetFetch).

        librdkafka puts a coordinator error of the answer on each partition rather than failing the request; a
        partition with one is not "nothing committed", so the request is sent again (as for a whole request,
        `_at_coordinator`) until --timeout, then the cluster counts as unreachable."""
        from confluent_kafka import ConsumerGroupTopicPartitions

        what = f"OffsetFetch of {group_id!r}"
        deadline, attempt = time.monotonic() + self.timeout_s, 0
        while True:
            result = self._at_coordinator(
                "list_consumer_group_offsets", [ConsumerGroupTopicPartitions(group_id)], group_id, what
            )
            moving = [tp for tp in result.topic_partitions if _error_name(tp.error) in _COORDINATOR_MOVING]
            if not moving:
                break
            pause = min(0.1 * 2**attempt, 1.0)
            if deadline - time.monotonic() <= pause:
                raise self._coordinator_away(what, str(_error_name(moving[0].error)), f"after {self.timeout_s:g} s")
            attempt += 1
            time.sleep(pause)
        return {
            TopicPartition(tp.topic, tp.partition): (tp.offset, _epoch(getattr(tp, "leader_epoch", None)))
            for tp in result.topic_partitions
            if tp.offset >= 0 and tp.error is None
        }

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

        return self._offsets(
            partitions, OffsetSpec.for_timestamp(timestamp_ms), IsolationLevel.READ_UNCOMMITTED, KafkaTopicPartition
        )

    def alter_offsets(self, group_id: str, offsets: dict[TopicPartition, int]) -> CommitAnswer:
        """Commit `offsets` for the group (AlterConsumerGroupOffsets): what the coordinator refused per partition,
        or why it could not confirm the commit.

        A coordinator moving, loading or unable to replicate answers every partition of the commit (one record
        batch) with COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE or NOT_COORDINATOR; Kafka's admin
        client then sends it again until its timeout (AlterConsumerGroupOffsetsHandler.handleError), and so does
        kgroup, until --timeout. A commit still answered so, or not answered at all while the group's
        `__consumer_offsets` partition is short of in-sync replicas, is unconfirmed (unconfirmed_writes)."""
        from confluent_kafka import ConsumerGroupTopicPartitions
        from confluent_kafka import TopicPartition as KafkaTopicPartition

        what = f"OffsetCommit of {group_id!r}"
        request = ConsumerGroupTopicPartitions(
            group_id, [KafkaTopicPartition(tp.topic, tp.partition, offset) for tp, offset in offsets.items()]
        )
        deadline, attempt, answered = time.monotonic() + self.timeout_s, 0, None
        while True:
            future = self._admin.alter_consumer_group_offsets(
                [request], request_timeout=_coordinator_request_timeout(self.timeout_s)
            )[group_id]
            try:
                with self._closed_unless_answered(future):
                    result = self._wait(future, what, deadline)
            except NotReachableError:  # no answer by --timeout (to the first request, or to a retry)
                why = self._unconfirmed(group_id, answered)
                if why is None:
                    raise
                return CommitAnswer({}, why)
            except RunError as exc:  # the whole request failed: every partition did
                return CommitAnswer({tp: str(exc) for tp in offsets}, None)
            errors = {TopicPartition(tp.topic, tp.partition): tp.error for tp in result.topic_partitions}
            moving = sorted({str(_error_name(e)) for e in errors.values() if _error_name(e) in _COORDINATOR_MOVING})
            pause = min(0.1 * 2**attempt, 1.0)
            if not moving:
                break
            answered = moving[0]
            if deadline - time.monotonic() <= pause:
                return CommitAnswer({}, self._unconfirmed(group_id, answered))
            attempt += 1
            time.sleep(pause)
        denied = sorted(
            (tp, _error_name(error)) for tp, error in errors.items() if is_authorization_error(_error_name(error))
        )
        if denied:  # Kafka's tool fails the whole reset on an AuthorizationException; so does kgroup
            (tp, name), rest = denied[0], len(offsets) - len(denied)
            failure = authorization_failure(str(name), what, tp.topic, self.settings)
            if rest:
                failure.args = (f"{failure}; {rest} other partition(s) were committed",)
            raise failure
        return CommitAnswer({tp: _reason(Exception(errors[tp])) for tp in offsets if errors.get(tp) is not None}, None)

    def _unconfirmed(self, group_id: str, answered: str | None) -> str | None:
        """Why a write to `group_id`'s coordinator is unconfirmed at --timeout, or None where it is not.

        `answered`: the error the coordinator kept answering (COORDINATOR_NOT_AVAILABLE, ...), which Kafka gives
        both to a write it never started and to one it appended but could not replicate in time: unconfirmed
        either way. None: it never answered, which is unconfirmed only where the group's `__consumer_offsets`
        partition is short of in-sync replicas (else the cluster is simply not answering)."""
        why = self._write_stalled(group_id)
        if answered is None:
            return None if why is None else f"the group's coordinator did not answer within {self.timeout_s:g} s: {why}"
        why = why or (
            "Kafka answers so to a write it never started (its coordinator moving or loading) and to one it "
            "appended but could not replicate in time, which takes effect later"
        )
        return f"the group's coordinator answered {answered} until --timeout ({self.timeout_s:g} s): {why}"

    def _write_stalled(self, group_id: str) -> str | None:
        """Why a write to `group_id`'s coordinator cannot be completed now, read afresh (the partition may have lost
        a replica since the command began): its `__consumer_offsets` partition short of min.insync.replicas.

        Asked once --timeout has run out, so both reads share a budget of at most _DIAGNOSIS_S: a cluster that
        stopped answering meanwhile delays the command's line by that much, never by another --timeout."""
        from kgroup.inspectors.live.leaderless_coordinator import OFFSETS_TOPIC
        from kgroup.inspectors.live.unconfirmed_writes import short_of_in_sync

        deadline = time.monotonic() + min(self.timeout_s, _DIAGNOSIS_S)
        try:
            metadata = self._admin.list_topics(OFFSETS_TOPIC, timeout=max(0.1, deadline - time.monotonic()))
        except Exception:  # no answer: no diagnosis
            return None
        return short_of_in_sync(metadata, group_id, self._offsets_min_insync(max(0.1, deadline - time.monotonic())))

    def _offsets_min_insync(self, within_s: float) -> int | None:
        """`__consumer_offsets`' min.insync.replicas in force (its own, else the broker's default: DescribeConfigs
        answers the effective value), or None where it cannot be read within `within_s` (no DESCRIBE_CONFIGS on
        the topic, no answer)."""
        from confluent_kafka.admin import ConfigResource, ResourceType

        from kgroup.inspectors.live.leaderless_coordinator import OFFSETS_TOPIC

        try:
            futures = self._admin.describe_configs(
                [ConfigResource(ResourceType.TOPIC, OFFSETS_TOPIC)], request_timeout=within_s
            )
            entries = next(iter(futures.values())).result(within_s)
            return int(entries["min.insync.replicas"].value)
        except Exception:  # an unreadable setting leaves the write's failure undiagnosed, never fatal
            return None

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

    def consumer_heartbeat_interval(self, group_id: str) -> int | None:
        """A consumer-protocol group's heartbeat interval in ms, or None where it cannot be read (no
        DESCRIBE_CONFIGS on the group, a broker before 4.0). DescribeConfigs on the GROUP resource answers the
        effective value: the group's own `consumer.heartbeat.interval.ms` (KIP-848's dynamic group configs,
        Kafka's GroupConfig) or, where it has none, the broker's `group.consumer.heartbeat.interval.ms`."""
        from confluent_kafka.admin import ConfigResource, ResourceType

        try:
            futures = self._admin.describe_configs(
                [ConfigResource(ResourceType.GROUP, group_id)], request_timeout=min(self.timeout_s, 5.0)
            )
            entries = next(iter(futures.values())).result(min(self.timeout_s, 5.0))
            value = int(entries["consumer.heartbeat.interval.ms"].value)
        except Exception:  # an unreadable interval is reported as unknown, never fatal
            return None
        return value if value > 0 else None

    def delete_groups(self, group_ids: list[str]) -> dict[str, str | None]:
        """Delete each group with its committed offsets (DeleteGroups); per group, None or why it failed."""
        failed: dict[str, str | None] = {}
        for group_id in dict.fromkeys(group_ids):
            what = f"DeleteGroups of {group_id!r}"
            try:
                self._at_coordinator("delete_consumer_groups", [group_id], group_id, what)
                failed[group_id] = None
            except RunError as exc:
                failed[group_id] = str(exc)
            except NotReachableError as exc:
                raise self.unconfirmed_write(exc, what, group_id) from None
        return failed

    def unconfirmed_write(self, error: NotReachableError, what: str, group_id: str) -> NotReachableError:
        """`error`, a write to `group_id`'s coordinator with no answer by --timeout, said as unconfirmed where the
        group's `__consumer_offsets` partition is short of in-sync replicas (unconfirmed_writes: the coordinator
        appended it and completes it once they are back); else `error` as it is."""
        why = self._unconfirmed(group_id, None)
        return error if why is None else NotReachableError(f"{what} unconfirmed: {why}")

    def _offsets(self, partitions: list[TopicPartition], spec: Any, level: Any, make: Any) -> dict[TopicPartition, int]:
        """ListOffsets at each partition's leader. librdkafka sends it to the leader its metadata knew and waits
        for that broker, dead or not; Kafka's admin client looks a leader up again after a disconnect or a
        retriable error (AdminApiDriver.onFailure, PartitionLeaderStrategy). So while some partition has no
        answer after _LEADER_WAIT_S, or a retriable error, the metadata is read again and the request sent
        anew (to the leader the cluster names now), until --timeout; an offset is only ever the leader's."""
        import concurrent.futures

        deadline = time.monotonic() + self.timeout_s
        since = len(self._errors)
        while True:
            futures = self._admin.list_offsets(
                {make(tp.topic, tp.partition): spec for tp in partitions},
                isolation_level=level,
                request_timeout=self.timeout_s,
            )
            if deadline - time.monotonic() > 2 * _LEADER_WAIT_S:
                waited = time.monotonic() + _LEADER_WAIT_S
                while time.monotonic() < waited:  # in slices: the whole cluster gone ends the command at once
                    done, waiting = concurrent.futures.wait(futures.values(), timeout=_slice(waited))
                    if not waiting:
                        break
                    fatal = self._fatal("ListOffsets", since)
                    if fatal is not None:
                        raise fatal
                if waiting or any(_retriable(f.exception()) for f in done):
                    fatal = self._fatal("ListOffsets", since)
                    if fatal is not None:
                        raise fatal
                    try:  # fresh leaders for the next attempt
                        self._admin.list_topics(timeout=_LEADER_WAIT_S)
                    except Exception:
                        time.sleep(_SLICE_S)
                    continue
            return {
                TopicPartition(k.topic, k.partition): self._result(f, f"ListOffsets of {k.topic}-{k.partition}").offset
                for k, f in futures.items()
            }


def _epoch(value: Any) -> int | None:
    """librdkafka reports "no leader epoch" as None or -1."""
    return value if isinstance(value, int) and value >= 0 else None


def _state_label(state: str) -> str:
    labels = {
        "preparing_rebalancing": "PreparingRebalance",
        "completing_rebalancing": "CompletingRebalance",
        "stable": "Stable",
        "empty": "Empty",
        "dead": "Dead",
        "unknown": "Unknown",
        "assigning": "Assigning",
        "reconciling": "Reconciling",
    }
    return labels.get(state, state)


def state_label(state: str) -> str:
    """A group state (confluent-kafka's lower-case name) as `groups` and `describe` print it: Empty, Stable."""
    return _state_label(enum_name(state))


def enum_name(value: Any) -> str:
    """An enum from confluent_kafka (ConsumerGroupState.STABLE, ConsumerGroupType.CLASSIC) as lower case."""
    if value is None:
        return "unknown"
    return str(getattr(value, "name", value)).lower()


def _slice(deadline: float) -> float:
    return min(_SLICE_S, max(0.01, deadline - time.monotonic()))


def _coordinator_request_timeout(wait_s: float) -> float:
    """librdkafka's own timeout for a coordinator request: past kgroup's wait, so that kgroup, not librdkafka,
    abandons it (LiveAdmin._closed_unless_answered says why), within AdminOptions' 3,600 s bound."""
    return min(wait_s + 60.0, 3600.0)


# A partition's leader lost or moving: librdkafka's transport errors, and the errors on which Kafka's admin client
# looks the leader up again or retries (ListOffsetsHandler.handleResponse; UNKNOWN_TOPIC_OR_PARTITION is left
# out: kgroup reports a missing topic at once).
_COORDINATOR_MOVING = {"COORDINATOR_LOAD_IN_PROGRESS", "COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR"}
_LEADER_MOVING = {
    "_TRANSPORT",
    "_TIMED_OUT",
    "NOT_LEADER_FOR_PARTITION",
    "LEADER_NOT_AVAILABLE",
    "REPLICA_NOT_AVAILABLE",
    "FENCED_LEADER_EPOCH",
    "UNKNOWN_LEADER_EPOCH",
    "OFFSET_NOT_AVAILABLE",
}


def _retriable(exc: BaseException | None) -> bool:
    return isinstance(exc, Exception) and _code(exc) in _LEADER_MOVING


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
    """librdkafka's text of a failure, with its error name where the text has none: a group-level error of a
    ConsumerGroupDescribe answer comes as "ConsumerGroupDescribe: " and the broker's ErrorMessage, which the
    group coordinator leaves empty (GroupCoordinatorService.consumerGroupDescribe drops it)."""
    error = exc.args[0] if exc.args else None
    text = getattr(error, "str", None)
    if not callable(text):
        return str(exc) or type(exc).__name__
    said, name = text().strip(), _code(exc)
    if name and (not said or said.endswith(":")):
        return f"{said} {name}".strip()
    return said
