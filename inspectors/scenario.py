"""User-level scenarios: a group, its clients' settings, and what happens to them when.

A `kind: scenario` document (docs/scenarios.md) names a fixture (`fixture: NAME|PATH`) or inlines its
`cluster` and `groups`, then lists events, either as text (`crash c2 at 30s`) or as mappings
(`{kind: crash, member: c2, at: 30s}`). Every problem is one InputError naming the file, the line, the
field (`events[3].at`) and what is wrong.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kgroup.assignors.classic_client import ClientConfig
from kgroup.assignors.classic_group import CoordinatorConfig
from kgroup.assignors.model import Cluster, Group
from kgroup.inspectors.assignor_lookup import known_assignor_names
from kgroup.inspectors.bundled import locate
from kgroup.inspectors.reset_times import parse_duration
from kgroup.inspectors.fixtures import FieldReader, Fixture, check_schema, fixture_from_mapping, load_fixture
from kgroup.inspectors.yaml_doc import Path, YamlDoc, read_yaml

KIND = "scenario"
_TOP_KEYS = {"schema", "kind", "description", "fixture", "cluster", "groups", "group", "duration", "broker",
             "clients", "events", "produce_rates"}
EVENT_KINDS = ("join", "leave", "crash", "gc-pause", "slow-poll", "add-partitions", "restart", "subscribe", "outage")
OUTAGE_SUBJECTS = ("zookeeper", "service-discovery")  # what the older designs depend on (coordinator.md §7)
_EVENT_KEYS = {"kind", "member", "topic", "system", "at", "partitions", "for", "processing", "batches", "down", "static",
               "dynamic", "topics", "note"}
_DURATION_CLIENT_KEYS = {
    "session.timeout.ms": "session_timeout_ms",
    "heartbeat.interval.ms": "heartbeat_interval_ms",
    "max.poll.interval.ms": "max_poll_interval_ms",
    "metadata.max.age.ms": "metadata_max_age_ms",
    "retry.backoff.ms": "retry_backoff_ms",
    "processing.ms": "processing_ms",
}
_CLIENT_KEYS = set(_DURATION_CLIENT_KEYS) | {"group.instance.id", "partition.assignment.strategy", "client.rack",
                                             "heartbeat.phase.ms"}
_BROKER_KEYS = {
    "group.initial.rebalance.delay.ms": "initial_rebalance_delay_ms",
    "group.min.session.timeout.ms": "min_session_timeout_ms",
    "group.max.session.timeout.ms": "max_session_timeout_ms",
    "group.max.size": "max_size",
}
_TEXT_EVENT = re.compile(r"(?P<kind>\S+)\s+(?P<subject>\S+)(?:\s+(?P<amount>\+?\d+))?\s+at\s+(?P<at>\S+)(?P<rest>.*)")


@dataclass(frozen=True)
class ScenarioEvent:
    index: int
    kind: str
    at_ms: int
    subject: str  # a member handle, or the topic of add-partitions
    fields: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Scenario:
    source: str
    description: str | None
    cluster: Cluster
    group: Group
    clients: Mapping[str, ClientConfig]  # every member ever named, by handle
    default_client: ClientConfig
    phases: Mapping[str, int]
    broker: CoordinatorConfig
    events: tuple[ScenarioEvent, ...]
    duration_ms: int
    warnings: tuple[str, ...] = ()
    produce_rates: Mapping[str, float] = field(default_factory=dict)  # topic -> messages/s over its partitions


def is_scenario(doc: YamlDoc) -> bool:
    return isinstance(doc.data, dict) and doc.data.get("kind") == KIND


def load_scenario(argument: str) -> Scenario:
    return scenario_from_doc(read_yaml(locate(argument)))


class _ScenarioReader:
    def __init__(self, doc: YamlDoc) -> None:
        self.r = FieldReader(doc)
        self.doc = doc

    def duration(self, value: Any, path: Path, minimum: int = 0) -> int:
        ms = parse_duration(value, days=False)
        if ms is None:
            raise self.r.fail(path, f"expected a duration such as 500ms, 45s, 5m or 1h, got {value!r}")
        if ms < minimum:
            raise self.r.fail(path, f"must be at least {minimum} ms, got {value!r}")
        return ms

    def fixture(self, data: dict[str, Any]) -> Fixture:
        if "fixture" in data:
            if "cluster" in data or "groups" in data:
                raise self.r.fail(("fixture",), "give either 'fixture' or an inline 'cluster' and 'groups', not both")
            name = self.r.text(data["fixture"], ("fixture",))
            beside = os.path.join(os.path.dirname(os.path.abspath(self.doc.source)), name)
            target = beside if os.path.exists(beside) else locate(name)
            if not os.path.exists(target):
                raise self.r.fail(("fixture",), f"no fixture file or bundled fixture named {name!r}")
            return load_fixture(target)
        return fixture_from_mapping(self.r, data)

    def client_config(self, raw: Any, path: Path, base: ClientConfig) -> tuple[ClientConfig, int | None]:
        data = self.r.mapping(raw or {}, path, _CLIENT_KEYS)
        changes: dict[str, Any] = {}
        for key, name in _DURATION_CLIENT_KEYS.items():
            if key in data:
                changes[name] = self.duration(data[key], path + (key,), minimum=1 if key != "processing.ms" else 0)
        if "group.instance.id" in data:
            changes["instance_id"] = self.r.optional_text(data, "group.instance.id", path)
        if "client.rack" in data:
            changes["rack"] = self.r.optional_text(data, "client.rack", path)
        if "partition.assignment.strategy" in data:
            where = path + ("partition.assignment.strategy",)
            names = self.r.text_list(data["partition.assignment.strategy"], where)
            known = set(known_assignor_names())
            for name in names:
                if name not in known and ":" not in name:
                    raise self.r.fail(where, f"unknown assignor {name!r}; known: {', '.join(sorted(known))}")
            if not names:
                raise self.r.fail(where, "expected at least one assignor")
            changes["assignors"] = names
        config = ClientConfig(**{**base.__dict__, **changes})
        if config.heartbeat_interval_ms >= config.session_timeout_ms:
            raise self.r.fail(path, "heartbeat.interval.ms must be lower than session.timeout.ms (Kafka refuses "
                                    "to build such a consumer)")
        phase = None
        if "heartbeat.phase.ms" in data:
            phase = self.duration(data["heartbeat.phase.ms"], path + ("heartbeat.phase.ms",))
        return config, phase

    def broker(self, raw: Any) -> CoordinatorConfig:
        data = self.r.mapping(raw or {}, ("broker",), set(_BROKER_KEYS))
        changes = {}
        for key, name in _BROKER_KEYS.items():
            if key in data:
                path = ("broker", key)
                changes[name] = (self.r.integer(data[key], path, minimum=1) if key == "group.max.size"
                                 else self.duration(data[key], path))
        return CoordinatorConfig(**changes)

    def event(self, raw: Any, index: int) -> dict[str, Any]:
        path: Path = ("events", index)
        if isinstance(raw, str):
            return self.text_event(raw, path)
        data = self.r.mapping(raw, path, _EVENT_KEYS, ("kind", "at"))
        return dict(data)

    def text_event(self, text: str, path: Path) -> dict[str, Any]:
        match = _TEXT_EVENT.fullmatch(text.strip())
        if match is None:
            raise self.r.fail(path, f"cannot read {text!r}; expected 'KIND MEMBER at TIME [...]', "
                                    "e.g. 'crash c2 at 30s'")
        result: dict[str, Any] = {"kind": match["kind"], "at": match["at"]}
        if match["kind"] == "add-partitions":
            result["topic"] = match["subject"]
            result["partitions"] = match["amount"]
        elif match["kind"] == "outage":
            result["system"] = match["subject"]
        else:
            if match["amount"] is not None:
                raise self.r.fail(path, f"unexpected {match['amount']!r} after the member in {text!r}")
            result["member"] = match["subject"]
        words = match["rest"].split()
        i = 0
        while i < len(words):
            word = words[i]
            if word in ("static", "dynamic"):
                result[word] = True
                i += 1
            elif word in ("for", "processing", "batches", "down", "topics") and i + 1 < len(words):
                result[word] = words[i + 1]
                i += 2
            else:
                raise self.r.fail(path, f"unexpected {word!r} in {text!r}")
        return result


def scenario_from_doc(doc: YamlDoc) -> Scenario:
    sr = _ScenarioReader(doc)
    r = sr.r
    data = r.mapping(doc.data, (), _TOP_KEYS)
    check_schema(r, data, KIND)
    fixture = sr.fixture(data)
    group = fixture.group(None if data.get("group") is None else r.text(data["group"], ("group",)))
    if group.protocol != "classic":
        raise r.fail(("group",), f"group {group.group_id!r} uses the {group.protocol} protocol; the simulator "
                                 "runs classic groups")
    broker = sr.broker(data.get("broker"))
    clients_raw = r.keyed(data.get("clients") or {}, ("clients",))
    base = ClientConfig(assignors=group.assignors)
    default, default_phase = sr.client_config(clients_raw.get("default"), ("clients", "default"), base)
    handles = [m.member_id for m in group.members]
    clients: dict[str, ClientConfig] = {}
    phases: dict[str, int] = {}
    for member in group.members:
        config = ClientConfig(**{**default.__dict__, "instance_id": member.instance_id or default.instance_id,
                                 "rack": member.rack or default.rack})
        clients[member.member_id] = config
    items = [sr.event(raw, i) for i, raw in enumerate(r.seq(data.get("events") or [], ("events",)))]
    declared_new = {str(item.get("member")) for item in items if item.get("kind") == "join"}
    for handle, raw in clients_raw.items():
        if handle == "default":
            continue
        if handle not in clients and handle not in declared_new:
            raise r.fail(("clients", handle), f"no member {handle!r} in group {group.group_id} and no event joins it "
                                              f"(members: {', '.join(handles)})")
        clients[handle], phase = sr.client_config(raw, ("clients", handle), clients.get(handle, default))
        if phase is not None:
            phases[handle] = phase
    if default_phase is not None:
        for handle in handles:
            phases.setdefault(handle, default_phase)
    events = _read_events(sr, items, group, fixture.cluster, clients, default)
    last = events[-1].at_ms if events else 0
    if "duration" in data:
        duration = sr.duration(data["duration"], ("duration",), minimum=1)
        if duration < last:
            raise r.fail(("duration",), f"the run ends at {duration} ms, before the last event at {last} ms")
    else:
        duration = last + 300_000
    rates = _produce_rates(r, data.get("produce_rates"), fixture.cluster)
    return Scenario(doc.source, data.get("description"), fixture.cluster, group, clients, default, phases, broker,
                    tuple(events), duration, fixture.warnings + tuple(r.warnings), rates)


def _produce_rates(r: FieldReader, raw: Any, cluster: Cluster) -> dict[str, float]:
    """`produce_rates: {topic: messages per second}`, spread evenly over the topic's partitions."""
    rates: dict[str, float] = {}
    names = {t.name for t in cluster.topics}
    for topic, rate in r.keyed(raw or {}, ("produce_rates",)).items():
        path = ("produce_rates", topic)
        if topic not in names:
            raise r.fail(path, f"no topic {topic!r} in the cluster ({', '.join(sorted(names))})")
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or rate < 0:
            raise r.fail(path, f"expected messages per second (a number, 0 or more), got {rate!r}")
        rates[topic] = float(rate)
    return rates


def _read_events(sr: _ScenarioReader, items: list[dict[str, Any]], group: Group, cluster: Cluster,
                 clients: dict[str, ClientConfig], default: ClientConfig) -> list[ScenarioEvent]:
    r = sr.r
    alive = {m.member_id for m in group.members}
    known = set(alive)
    sizes = {t.name: t.partitions for t in cluster.topics}
    events: list[ScenarioEvent] = []
    previous = 0
    for index, item in enumerate(items):
        path: Path = ("events", index)
        kind = str(item["kind"])
        if kind not in EVENT_KINDS:
            raise r.fail(path + ("kind",), f"unknown event kind {kind!r}; expected one of {', '.join(EVENT_KINDS)}")
        at_text = item["at"]
        if isinstance(at_text, str) and at_text.startswith("-"):
            raise r.fail(path + ("at",), f"negative time {at_text!r}; times count from the start of the run")
        at = sr.duration(at_text, path + ("at",))
        if at < previous:
            raise r.fail(path + ("at",), f"{at} ms is before the previous event ({previous} ms); list events in "
                                         "time order")
        previous = at
        fields: dict[str, Any] = {}
        if kind == "add-partitions":
            topic = r.text(item.get("topic"), path + ("topic",))
            if topic not in sizes:
                raise r.fail(path + ("topic",), f"no topic {topic!r} in the cluster ({', '.join(sizes)})")
            amount = str(item.get("partitions") or "")
            if not amount.lstrip("+").isdigit():
                raise r.fail(path + ("partitions",), f"expected +N (add N) or N (new total), got {amount!r}")
            total = sizes[topic] + int(amount[1:]) if amount.startswith("+") else int(amount)
            if total <= sizes[topic]:
                raise r.fail(path + ("partitions",), f"topic {topic} has {sizes[topic]} partitions; Kafka can only "
                                                     f"add partitions, so {total} is not a change")
            sizes[topic] = fields["total"] = total
            events.append(ScenarioEvent(index, kind, at, topic, fields))
            continue
        if kind == "outage":
            system = r.text(item.get("system"), path + ("system",))
            if system not in OUTAGE_SUBJECTS:
                raise r.fail(path + ("system",), f"expected one of {', '.join(OUTAGE_SUBJECTS)}, got {system!r}")
            fields["duration"] = sr.duration(_need(r, item, "for", path, "outage zookeeper|service-discovery at T "
                                                                        "for DURATION"), path + ("for",), minimum=1)
            events.append(ScenarioEvent(index, kind, at, system, fields))
            continue
        member = r.text(item.get("member"), path + ("member",))
        if kind == "join":
            if member in alive:
                raise r.fail(path + ("member",), f"{member!r} is already running; use restart, or a new name")
            config = clients.get(member, default)
            if item.get("static") and config.instance_id is None:
                config = ClientConfig(**{**config.__dict__, "instance_id": member})
            clients[member] = config
            if "topics" in item:
                fields["topics"] = _topics(r, item["topics"], path + ("topics",), sizes)
            alive.add(member)
            known.add(member)
        else:
            if member not in known:
                raise r.fail(path + ("member",), f"unknown member {member!r} (members: {', '.join(sorted(known))})")
            if member not in alive and kind != "restart":
                raise r.fail(path + ("member",), f"{member!r} is not running at {at} ms (it crashed or left "
                                                 "earlier); restart it first")
        if kind in ("leave", "crash"):
            alive.discard(member)
        elif kind == "gc-pause":
            fields["duration"] = sr.duration(_need(r, item, "for", path, "gc-pause MEMBER at T for DURATION"),
                                             path + ("for",), minimum=1)
        elif kind == "slow-poll":
            fields["processing"] = sr.duration(
                _need(r, item, "processing", path, "slow-poll MEMBER at T processing DURATION [batches N]"),
                path + ("processing",), minimum=1)
            batches = item.get("batches", 1)
            if isinstance(batches, str) and batches.isdigit():
                batches = int(batches)
            fields["batches"] = r.integer(batches, path + ("batches",), minimum=1)
        elif kind == "restart":
            fields["down"] = sr.duration(item.get("down", "5s"), path + ("down",))
            config = clients[member]
            if item.get("static") and config.instance_id is None:
                raise r.fail(path + ("static",), f"{member!r} has no group.instance.id; set one under "
                                                 f"clients.{member} to restart it as a static member")
            fields["static"] = bool(config.instance_id) and not item.get("dynamic")
            alive.add(member)
        elif kind == "subscribe":
            fields["topics"] = _topics(r, _need(r, item, "topics", path, "subscribe MEMBER at T topics a,b"),
                                       path + ("topics",), sizes)
        events.append(ScenarioEvent(index, kind, at, member, fields))
    return events


def _need(r: FieldReader, item: Mapping[str, Any], key: str, path: Path, usage: str) -> Any:
    if key not in item:
        raise r.fail(path, f"{item['kind']} needs '{key}'; usage: {usage}")
    return item[key]


def _topics(r: FieldReader, raw: Any, path: Path, sizes: Mapping[str, int]) -> tuple[str, ...]:
    names = tuple(t for t in (raw.split(",") if isinstance(raw, str) else r.text_list(raw, path)) if t)
    for name in names:
        if name not in sizes:
            raise r.fail(path, f"no topic {name!r} in the cluster ({', '.join(sizes)})")
    if not names:
        raise r.fail(path, "expected at least one topic")
    return names
