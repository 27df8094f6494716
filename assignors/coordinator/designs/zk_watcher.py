"""The original ZooKeeper-watcher consumer (Kafka 0.8.x high-level consumer).

Kafka 0.8.2.2: `ZookeeperConsumerConnector.ZKRebalancerListener` (`syncedRebalance`, `rebalance`,
`reflectPartitionOwnershipDecision`) and `PartitionAssignor.RangeAssignor`. There is no coordinator: every
consumer, woken by a watch on /consumers/[group]/ids, stops fetching, releases its owner nodes, computes
its own range share from its own read of the ids, and tries to create an ephemeral owner node per
partition; one NodeExists undoes the attempt, which is retried after rebalance.backoff.ms, at most
rebalance.max.retries times. Watches fire in every consumer (the herd); reads of /ids are not atomic
across consumers, so two views can disagree (split brain: a partition owned by nobody).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kgroup.assignors.coordinator.consumption import ConsumptionLedger, Gap
from kgroup.assignors.model import TopicPartition
from kgroup.assignors.coordinator.timer_queue import TimerQueue, run_due


@dataclass(frozen=True)
class ZkConfig:
    rebalance_max_retries: int = 4  # rebalance.max.retries
    rebalance_backoff_ms: int = 2_000  # rebalance.backoff.ms (= zookeeper.sync.time.ms)
    zk_session_timeout_ms: int = 6_000  # zookeeper.session.timeout.ms: a crashed consumer's nodes vanish then
    watch_delay_ms: Mapping[str, int] = field(default_factory=dict)  # per consumer: watch delivery and view lag


@dataclass(frozen=True)
class AttemptResult:
    share: tuple[TopicPartition, ...]
    claimed: tuple[TopicPartition, ...]
    failed_on: TopicPartition | None
    next_attempt_at: int | None
    exception: str | None = None  # ConsumerRebalanceFailedException after the last retry
    exception_at_ms: int | None = None  # when it is thrown: after the last failed attempt's backoff sleep


def range_share(partitions: Iterable[TopicPartition], consumers: Iterable[str], me: str) -> tuple[TopicPartition, ...]:
    """Scala `RangeAssignor` (0.8.2.2), one stream per consumer: my slice of each topic's sorted partitions."""
    return range_shares(partitions, consumers).get(me, ())


def range_shares(
    partitions: Iterable[TopicPartition], consumers: Iterable[str]
) -> dict[str, tuple[TopicPartition, ...]]:
    """`range_share` of every consumer at once: each consumer's place in the sorted ids (its first, if an id is
    listed twice) takes the same slice of each topic's partitions, sorted by number."""
    ids = sorted(consumers)
    if not ids:
        return {}
    place: dict[str, int] = {}
    for index, consumer in enumerate(ids):
        place.setdefault(consumer, index)
    by_topic: dict[str, list[TopicPartition]] = {}
    for tp in partitions:
        by_topic.setdefault(tp.topic, []).append(tp)
    shares: dict[str, list[TopicPartition]] = {consumer: [] for consumer in place}
    for topic in sorted(by_topic):
        parts = sorted(by_topic[topic], key=_number)
        per, extra = divmod(len(parts), len(ids))
        for consumer, index in place.items():
            start = per * index + min(index, extra)
            shares[consumer].extend(parts[start : start + per + (1 if index < extra else 0)])
    return {consumer: tuple(share) for consumer, share in shares.items()}


def _number(tp: TopicPartition) -> int:
    return tp.partition


class ZkWatcherGroup:
    """One consumer group coordinated only through ZooKeeper; `autonomous` consumers react to watches."""

    def __init__(
        self, partitions: Iterable[TopicPartition], config: ZkConfig = ZkConfig(), autonomous: bool = True
    ) -> None:
        self.config = config
        self.partitions = tuple(sorted(partitions))
        self.autonomous = autonomous
        self.ids: list[str] = []  # /consumers/[group]/ids children, in creation order
        # (partitions, ids, every consumer's range share) of the last view asked about
        self._shares: (
            tuple[tuple[TopicPartition, ...], tuple[str, ...], dict[str, tuple[TopicPartition, ...]]] | None
        ) = None
        self.owners: dict[TopicPartition, str] = {}  # /consumers/[group]/owners/t/p
        # the owner nodes each consumer created, so releasing them is not a scan of every node
        self._held: dict[str, list[TopicPartition]] = {}
        self.consuming: dict[str, tuple[TopicPartition, ...]] = {}
        self.alive: set[str] = set()
        self.timers = TimerQueue()
        self.ledger = ConsumptionLedger()
        self.now = 0
        self.notifications = 0  # watch events delivered
        self.attempts = 0
        self.failed_attempts = 0
        self.gave_up: list[tuple[int, str]] = []
        self.settled: list[int] = []  # instants an attempt left every live consumer on its share, all owned
        self.attempt_times: list[int] = []
        self.zk_up = True
        self.created: dict[TopicPartition, int] = {tp: 0 for tp in self.partitions}
        self.paused_until: dict[str, int] = {}  # a GC pause: nothing in the consumer's JVM runs before then
        self._expired_while_paused: set[str] = set()
        self._waiting: dict[str, int] = {}  # consumer -> the attempt it will make once ZooKeeper is back
        self._expiring: list[str] = []  # sessions that ended while ZooKeeper was down
        self._registering: list[str] = []  # consumers started while ZooKeeper was down

    # -- setup and the world -----------------------------------------------------------------------------

    def load(self, consumers: Iterable[str], owners: Mapping[TopicPartition, str | None]) -> None:
        for consumer in consumers:
            self.ids.append(consumer)
            self.alive.add(consumer)
        for tp, owner in owners.items():
            if owner is not None:
                self.owners[tp] = owner
                self._held.setdefault(owner, []).append(tp)
        for consumer in self.ids:
            self._consume(consumer, tuple(sorted(self._held.get(consumer, ()))))

    def start(self, consumer: str) -> None:
        """Register /ids/C (ephemeral); its own first rebalance, and a watch in every other consumer."""
        if not self.zk_up:
            self._registering.append(consumer)  # the create waits for the ensemble
            return
        self.alive.add(consumer)
        self.ids.append(consumer)
        if self.autonomous:
            self._schedule_attempt(consumer, self.now + self.config.watch_delay_ms.get(consumer, 0), 0)
            self._watch_fires(exclude=consumer)

    def crash(self, consumer: str) -> None:
        """The process dies; its ephemeral nodes live until its ZooKeeper session expires."""
        self.alive.discard(consumer)
        self._consume(consumer, ())
        self.timers.schedule(
            ("zk-session", consumer),
            self.now + self.config.zk_session_timeout_ms,
            lambda: self._session_expired(consumer),
        )

    def leave(self, consumer: str) -> None:
        """A clean shutdown: the consumer deletes its ephemeral nodes at once."""
        self.alive.discard(consumer)
        self._consume(consumer, ())
        self._session_expired(consumer)

    def gc_pause(self, consumer: str, duration: int) -> None:
        """Every thread stops, the ZooKeeper client's pings too. Past zookeeper.session.timeout.ms the ensemble
        expires the session: the ephemeral /ids and /owners nodes vanish and the others' watches fire (the
        herd). On waking, `ZKSessionExpireListener.handleNewSession` re-registers and rebalances."""
        if consumer not in self.alive:
            return
        wake = self.now + duration
        self.paused_until[consumer] = wake
        self.ledger.stop(consumer, self.now)
        if duration > self.config.zk_session_timeout_ms:
            self.timers.schedule(
                ("zk-session", consumer),
                self.now + self.config.zk_session_timeout_ms,
                lambda: self._expire_paused(consumer),
            )
        self.timers.schedule(("wake", consumer), wake, lambda: self._wake(consumer))

    def _expire_paused(self, consumer: str) -> None:
        if self.zk_up:
            self._expired_while_paused.add(consumer)
        self._session_expired(consumer)

    def _wake(self, consumer: str) -> None:
        self.paused_until.pop(consumer, None)
        if consumer not in self.alive:
            return
        if consumer in self._expired_while_paused:
            self._expired_while_paused.discard(consumer)
            self.consuming[consumer] = ()  # handleNewSession: fetchers stop before the new registration
            self.start(consumer)
            return
        self.ledger.start(consumer, self.consuming.get(consumer, ()), self.now)

    def add_partitions(self, partitions: Iterable[TopicPartition]) -> None:
        """New partitions of a subscribed topic: the data watch on /brokers/topics/[topic] fires in every
        consumer (`ZKTopicPartitionChangeListener.handleDataChange`), each rebalances: the herd again."""
        new = [tp for tp in partitions if tp not in self.created]
        if not new:
            return
        for tp in new:
            self.created[tp] = self.now
        self.partitions = tuple(sorted(self.partitions + tuple(new)))
        if self.autonomous:
            self._watch_fires(exclude="")

    def zookeeper_down(self) -> None:
        """The ensemble is unreachable. ZkClient retries every operation until it reconnects
        (`retryUntilConnected`), so a rebalance attempt due now waits, and fetchers already running go on."""
        self.zk_up = False

    def zookeeper_up(self) -> None:
        """Reconnected: waiting attempts run now. Sessions survive a whole-ensemble outage, each with a fresh
        timeout, so a crashed consumer's nodes vanish one session timeout from now [kgroup rule]."""
        self.zk_up = True
        waiting, self._waiting = self._waiting, {}
        for consumer, attempt in waiting.items():
            self._schedule_attempt(consumer, self.now, attempt)
        registering, self._registering = self._registering, []
        for consumer in registering:
            self.start(consumer)
        expiring, self._expiring = self._expiring, []
        for consumer in expiring:
            self.timers.schedule(
                ("zk-session", consumer),
                self.now + self.config.zk_session_timeout_ms,
                lambda c=consumer: self._session_expired(c),
            )

    def _session_expired(self, consumer: str) -> None:
        if not self.zk_up:
            self._expiring.append(consumer)  # the ensemble decides expiry; it is down
            return
        self.ids = [c for c in self.ids if c != consumer]
        self._release(consumer)
        if self.autonomous:
            self._watch_fires(exclude=consumer)

    def _watch_fires(self, exclude: str) -> None:
        """The ids-children watch fires in every live consumer: the herd."""
        for consumer in self.ids:
            if consumer != exclude and consumer in self.alive:
                self.notifications += 1
                # several events while Pending coalesce into one rebalance: scheduling the key again replaces it
                self._schedule_attempt(consumer, self.now + self.config.watch_delay_ms.get(consumer, 0), 0)

    def _schedule_attempt(self, consumer: str, at: int, attempt: int) -> None:
        self.timers.schedule(("rebalance", consumer), at, lambda: self._attempt_when_reachable(consumer, attempt))

    def _attempt_when_reachable(self, consumer: str, attempt: int) -> None:
        if consumer not in self.alive:
            return
        if consumer in self.paused_until:  # the watcher thread is paused with the rest of the JVM
            self._schedule_attempt(consumer, self.paused_until[consumer], attempt)
            return
        if self.zk_up:
            self.attempt(consumer, attempt)
        else:
            self._waiting[consumer] = attempt  # blocked in its first ZooKeeper read; holds what it consumes

    # -- one rebalance attempt ---------------------------------------------------------------------------

    def attempt(self, consumer: str, attempt: int = 0, view: Iterable[str] | None = None) -> AttemptResult:
        """`ZKRebalancerListener.rebalance`: stop, release, compute my share from my view, claim or undo."""
        self.attempts += 1
        self.attempt_times.append(self.now)
        self._consume(consumer, ())  # fetchers stopped, queues cleared
        self._release(consumer)
        share = self._share(consumer, view)
        created: list[TopicPartition] = []
        failed_on = None
        owners = self.owners
        for tp in share:
            if tp in owners:  # NodeExists: the previous owner has not released it yet
                failed_on = tp
                break
            owners[tp] = consumer
            created.append(tp)
        if failed_on is None:
            self._held[consumer] = created
            self._consume(consumer, share)
            if self._settled():
                self.settled.append(self.now)
            return AttemptResult(share, tuple(created), None, None)
        for tp in created:
            del owners[tp]
        self.failed_attempts += 1
        if attempt + 1 < self.config.rebalance_max_retries:
            retry_at = self.now + self.config.rebalance_backoff_ms
            if self.autonomous:
                self._schedule_attempt(consumer, retry_at, attempt + 1)
            return AttemptResult(share, (), failed_on, retry_at)
        # `syncedRebalance` sleeps rebalance.backoff.ms after every failed attempt, the last one included, and
        # only then throws ConsumerRebalanceFailedException (logged from the watcher thread; C stays idle
        # until the next watch event).
        thrown_at = self.now + self.config.rebalance_backoff_ms
        self.gave_up.append((thrown_at, consumer))
        return AttemptResult(share, (), failed_on, None, "ConsumerRebalanceFailedException", thrown_at)

    def _release(self, consumer: str) -> None:
        """Delete the consumer's owner nodes (`releasePartitionOwnership`, or its ephemeral nodes vanishing)."""
        owners = self.owners
        for tp in self._held.pop(consumer, ()):
            del owners[tp]

    def _settled(self) -> bool:
        """Every partition owned, and every live consumer consuming its share of the current /ids."""
        if len(self.owners) != len(self.partitions):
            return False
        shares, consuming, alive = self._shares_of(None), self.consuming, self.alive
        return all(consuming.get(c, ()) == shares.get(c, ()) for c in self.ids if c in alive)

    def _share(self, consumer: str, view: Iterable[str] | None = None) -> tuple[TopicPartition, ...]:
        """`range_share` of the current partitions over `view` (None: the current /ids)."""
        return self._shares_of(view).get(consumer, ())

    def _shares_of(self, view: Iterable[str] | None) -> dict[str, tuple[TopicPartition, ...]]:
        """Every consumer's share over `view`, computed once per view: each attempt checks every live
        consumer's share."""
        ids = tuple(self.ids if view is None else view)
        kept = self._shares
        if kept is None or kept[0] is not self.partitions or kept[1] != ids:
            kept = self._shares = (self.partitions, ids, range_shares(self.partitions, ids))
        return kept[2]

    def _consume(self, consumer: str, partitions: tuple[TopicPartition, ...]) -> None:
        self.ledger.stop(consumer, self.now)
        self.consuming[consumer] = partitions
        if consumer in self.alive and consumer not in self.paused_until:
            self.ledger.start(consumer, partitions, self.now)

    def advance_to(self, instant: int) -> None:
        run_due(self.timers, instant, self)

    def gaps(self) -> dict[TopicPartition, list[Gap]]:
        return self.ledger.gaps(self.created)
