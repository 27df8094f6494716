"""Load `kgroup/v1` fixtures (a cluster and its groups) and saved assignments; validate every field.

The schema is documented in docs/fixtures.md. Every problem is one InputError naming the file, the line
and the field; problems Kafka tolerates (a subscription to a topic that does not exist yet) are warnings.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from kgroup.assignors.model import (
    Assignment, Cluster, Group, Member, PartitionOffsets, Topic, TopicPartition,
)
from kgroup.inspectors.assignor_lookup import known_assignor_names
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.yaml_doc import Path, YamlDoc, parse_yaml, read_yaml

SCHEMA = "kgroup/v1"
PROTOCOLS = ("classic", "consumer")
DEFAULT_ASSIGNORS = {"classic": ("range",), "consumer": ("uniform",)}
# A consumer-protocol group names the coordinator's assignors as Kafka does (group.remote.assignor):
# its `range` is the server-side one.
CONSUMER_PROTOCOL_NAMES = {"range": "server-range"}

_TOP_KEYS = {"schema", "kind", "description", "cluster", "groups"}
_TOPIC_KEYS = {"name", "partitions", "replica_racks", "id"}
_GROUP_KEYS = {"group_id", "protocol", "assignors", "generation", "state", "members", "assignment", "offsets"}
_MEMBER_KEYS = {"member_id", "instance_id", "rack", "client_id", "host", "topics", "owned", "generation",
                "streams", "inferred"}
_OFFSET_KEYS = {"committed", "log_start", "log_end"}
_ASSIGNMENT_KEYS = {"schema", "kind", "group_id", "assignor", "assignment", "description"}


@dataclass(frozen=True)
class Fixture:
    source: str
    cluster: Cluster
    groups: tuple[Group, ...]
    warnings: tuple[str, ...] = ()

    def group(self, group_id: str | None) -> Group:
        """The named group, or the only one; an InputError that lists the ids otherwise."""
        ids = ", ".join(g.group_id for g in self.groups)
        if group_id is None:
            if len(self.groups) == 1:
                return self.groups[0]
            raise InputError(f"the fixture has {len(self.groups)} groups; choose one with --group ({ids})",
                             self.source)
        for group in self.groups:
            if group.group_id == group_id:
                return group
        raise InputError(f"no group {group_id!r} in the fixture (groups: {ids})", self.source)


@dataclass(frozen=True)
class SavedAssignment:
    """An assignment written by `kgroup assign -o yaml`: something `kgroup diff` can compare."""

    source: str
    group_id: str | None
    assignor: str | None
    assignment: Assignment


class FieldReader:
    """Typed accessors over a YamlDoc that raise one precise InputError per problem."""

    def __init__(self, doc: YamlDoc) -> None:
        self.doc = doc
        self.warnings: list[str] = []

    def fail(self, path: Path, message: str) -> Exception:
        return self.doc.error(path, message)

    def warn(self, path: Path, message: str) -> None:
        err = self.doc.error(path, message)
        self.warnings.append(f"warning: {err}")

    def mapping(self, value: Any, path: Path, allowed: set[str], required: tuple[str, ...] = ()) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected a mapping, got {_kind(value)}")
        for key in value:
            if key not in allowed:
                raise self.fail(path + (key,), f"unknown key {key!r}; expected one of {', '.join(sorted(allowed))}")
        for key in required:
            if key not in value:
                raise self.fail(path, f"missing required key {key!r}")
        return value

    def keyed(self, value: Any, path: Path) -> dict[str, Any]:
        """A mapping whose keys are data (member ids, topics, partitions), not schema fields."""
        if not isinstance(value, dict):
            raise self.fail(path, f"expected a mapping, got {_kind(value)}")
        return value

    def seq(self, value: Any, path: Path) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(path, f"expected a list, got {_kind(value)}")
        return value

    def text(self, value: Any, path: Path, allow_empty: bool = False) -> str:
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise self.fail(path, f"expected a string, got {_kind(value)}")
        value = str(value)
        if not value and not allow_empty:
            raise self.fail(path, "must not be empty")
        return value

    def optional_text(self, data: dict[str, Any], key: str, path: Path) -> str | None:
        value = data.get(key)
        return None if value is None else self.text(value, path + (key,), allow_empty=True) or None

    def integer(self, value: Any, path: Path, minimum: int | None = None, what: str = "") -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"expected an integer{what}, got {_kind(value)}")
        if minimum is not None and value < minimum:
            expected = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
            raise self.fail(path, f"expected {expected}{what}, got {value}")
        return value

    def text_list(self, value: Any, path: Path) -> tuple[str, ...]:
        if isinstance(value, str):
            value = [value]
        items = [self.text(v, path + (i,)) for i, v in enumerate(self.seq(value, path))]
        return tuple(dict.fromkeys(items))


def _or_empty(value: Any) -> Any:
    """An empty YAML value (`members:`) reads as an empty list; `false` or `0` stay wrong."""
    return [] if value is None else value


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number"}.get(type(value), type(value).__name__)


def _valid_topic_id(text: str) -> bool:
    """Kafka `Uuid.toString`: 16 bytes in URL-safe base64 without padding (22 characters)."""
    if len(text) != 22:
        return False
    try:
        return len(base64.urlsafe_b64decode(text + "==")) == 16
    except (binascii.Error, ValueError):
        return False


def _read_topic(r: FieldReader, raw: Any, path: Path) -> Topic:
    data = r.mapping(raw, path, _TOPIC_KEYS, ("name", "partitions"))
    name = r.text(data["name"], path + ("name",))
    count = r.integer(data["partitions"], path + ("partitions",), minimum=1)
    racks: tuple[frozenset[str], ...] = ()
    if data.get("replica_racks") is not None:
        rack_path = path + ("replica_racks",)
        rows = r.seq(data["replica_racks"], rack_path)
        if len(rows) != count:
            raise r.fail(rack_path, f"expected one list of racks per partition ({count}), got {len(rows)}")
        racks = tuple(frozenset(r.text_list(row, rack_path + (i,))) for i, row in enumerate(rows))
    topic_id = r.optional_text(data, "id", path)
    if topic_id is not None and not _valid_topic_id(topic_id):
        raise r.fail(path + ("id",), f"{topic_id!r} is not a Kafka topic id (22 characters of URL-safe base64)")
    return Topic(name, count, racks, topic_id)


def _read_cluster(r: FieldReader, raw: Any, path: Path) -> Cluster:
    data = r.mapping(raw, path, {"topics"}, ("topics",))
    topics: list[Topic] = []
    seen: set[str] = set()
    for i, item in enumerate(r.seq(_or_empty(data["topics"]), path + ("topics",))):
        topic = _read_topic(r, item, path + ("topics", i))
        if topic.name in seen:
            raise r.fail(path + ("topics", i, "name"), f"duplicate topic {topic.name!r}")
        seen.add(topic.name)
        topics.append(topic)
    return Cluster(tuple(topics))


def _existing(r: FieldReader, tp: TopicPartition, where: Path, cluster: Cluster) -> TopicPartition:
    topic = cluster.topic(tp.topic)
    if topic is None:
        raise r.fail(where, f"partition {tp} does not exist: topic {tp.topic!r} is not in the cluster")
    if tp.partition >= topic.partitions:
        raise r.fail(where, f"partition {tp} does not exist: {tp.topic} has partitions 0..{topic.partitions - 1}")
    return tp


def _parse_partition(r: FieldReader, raw: Any, where: Path, cluster: Cluster) -> TopicPartition:
    try:
        return _existing(r, TopicPartition.parse(r.text(raw, where)), where, cluster)
    except ValueError as exc:
        raise r.fail(where, str(exc)) from None


def read_partitions(r: FieldReader, raw: Any, path: Path, cluster: Cluster) -> tuple[TopicPartition, ...]:
    """Partitions as a list of `topic-N` strings or as a mapping topic -> [N, ...]; each must exist."""
    found: list[TopicPartition] = []
    if isinstance(raw, dict):
        for topic, numbers in raw.items():
            for i, number in enumerate(r.seq(numbers, path + (topic,))):
                where = path + (topic, i)
                found.append(_existing(r, TopicPartition(topic, r.integer(number, where, minimum=0)), where, cluster))
    else:
        found = [_parse_partition(r, item, path + (i,), cluster) for i, item in enumerate(r.seq(raw, path))]
    return tuple(dict.fromkeys(found))


def _read_member(r: FieldReader, raw: Any, path: Path, cluster: Cluster) -> Member:
    data = r.mapping(raw, path, _MEMBER_KEYS, ("member_id",))
    member_id = r.text(data["member_id"], path + ("member_id",))
    streams: dict[str, int] = {}
    if data.get("streams") is not None:
        streams_raw = r.keyed(data["streams"], path + ("streams",))
        streams = {topic: r.integer(n, path + ("streams", topic), minimum=1) for topic, n in streams_raw.items()}
    if data.get("topics") is not None:
        topics = r.text_list(data["topics"], path + ("topics",))
    else:
        topics = tuple(streams)
    for topic in streams:
        if topic not in topics:
            raise r.fail(path + ("streams", topic), f"streams for {topic!r}, which the member does not subscribe to")
    for i, topic in enumerate(topics):
        if cluster.topic(topic) is None:
            r.warn(path + ("topics", i), f"subscribed topic {topic!r} is not in the cluster "
                                         "(Kafka ignores it until it exists)")
    if data.get("inferred") is not None and not isinstance(data["inferred"], bool):
        raise r.fail(path + ("inferred",), f"expected true or false, got {data['inferred']!r}")
    owned: tuple[TopicPartition, ...] = ()
    if data.get("owned") is not None:
        owned = read_partitions(r, data["owned"], path + ("owned",), cluster)
    generation = None
    if data.get("generation") is not None:
        generation = r.integer(data["generation"], path + ("generation",), minimum=-1)
    return Member(
        member_id=member_id, topics=topics,
        instance_id=r.optional_text(data, "instance_id", path), rack=r.optional_text(data, "rack", path),
        client_id=r.optional_text(data, "client_id", path) or "", host=r.optional_text(data, "host", path) or "",
        owned=owned, generation=generation, streams=MappingProxyType(streams),
    )


def _read_assignors(r: FieldReader, data: dict[str, Any], path: Path, protocol: str) -> tuple[str, ...]:
    if data.get("assignors") is None:
        return DEFAULT_ASSIGNORS[protocol]
    names = r.text_list(data["assignors"], path + ("assignors",))
    if not names:
        raise r.fail(path + ("assignors",), "must name at least one assignor")
    known = known_assignor_names()
    for i, name in enumerate(names):
        if name not in known and ":" not in name:
            raise r.fail(path + ("assignors", i),
                         f"unknown assignor {name!r}; known: {', '.join(known)} (or package.module:Class)")
    if protocol == "consumer":
        names = [CONSUMER_PROTOCOL_NAMES.get(name, name) for name in names]
    return tuple(names)


def _read_offsets(r: FieldReader, raw: Any, path: Path, cluster: Cluster) -> tuple[PartitionOffsets, ...]:
    data = r.keyed(raw, path)
    result = []
    for key, value in data.items():
        tp = _parse_partition(r, key, path + (key,), cluster)
        entry = r.mapping(value, path + (key,), _OFFSET_KEYS)
        numbers = {k: None if entry.get(k) is None else r.integer(entry[k], path + (key, k), minimum=0)
                   for k in _OFFSET_KEYS}
        if numbers["log_start"] is not None and numbers["log_end"] is not None \
                and numbers["log_start"] > numbers["log_end"]:
            raise r.fail(path + (key, "log_start"),
                         f"log_start {numbers['log_start']} is after log_end {numbers['log_end']}")
        result.append(PartitionOffsets(tp, numbers["committed"], numbers["log_start"], numbers["log_end"]))
    return tuple(result)


def _read_group(r: FieldReader, raw: Any, path: Path, cluster: Cluster) -> Group:
    data = r.mapping(raw, path, _GROUP_KEYS, ("group_id",))
    group_id = r.text(data["group_id"], path + ("group_id",))
    protocol = r.text(data.get("protocol", "classic"), path + ("protocol",))
    if protocol not in PROTOCOLS:
        raise r.fail(path + ("protocol",), f"unknown protocol {protocol!r}; expected one of {', '.join(PROTOCOLS)}")
    members: list[Member] = []
    for i, item in enumerate(r.seq(_or_empty(data.get("members")), path + ("members",))):
        member = _read_member(r, item, path + ("members", i), cluster)
        if any(m.member_id == member.member_id for m in members):
            raise r.fail(path + ("members", i, "member_id"), f"duplicate member id {member.member_id!r}")
        if member.instance_id and any(m.instance_id == member.instance_id for m in members):
            raise r.fail(path + ("members", i, "instance_id"), f"duplicate group.instance.id {member.instance_id!r}")
        members.append(member)
    ids = {m.member_id for m in members}
    owners: dict[str, tuple[TopicPartition, ...]] = {}
    if data.get("assignment") is not None:
        assignment_raw = r.keyed(data["assignment"], path + ("assignment",))
        for member_id, parts in assignment_raw.items():
            if member_id not in ids:
                raise r.fail(path + ("assignment", member_id), f"{member_id!r} is not a member of the group")
            owners[member_id] = read_partitions(r, parts, path + ("assignment", member_id), cluster)
    else:
        owners = {m.member_id: m.owned for m in members if m.owned}
    generation = None
    if data.get("generation") is not None:
        generation = r.integer(data["generation"], path + ("generation",), minimum=-1)
    # A member that reports nothing of its own owns what the group's assignment gives it, from the
    # group's generation (what a sticky member's user data or a cooperative subscription would say).
    members = [m if m.owned or not owners.get(m.member_id) else
               replace(m, owned=owners[m.member_id], generation=generation if m.generation is None else m.generation)
               for m in members]
    offsets = () if data.get("offsets") is None else _read_offsets(r, data["offsets"], path + ("offsets",), cluster)
    return Group(
        group_id=group_id, protocol=protocol, assignors=_read_assignors(r, data, path, protocol),
        members=tuple(members), assignment=Assignment.of({m.member_id: owners.get(m.member_id, ()) for m in members}),
        generation=generation, state=r.optional_text(data, "state", path), offsets=offsets,
    )


def check_schema(r: FieldReader, data: dict[str, Any], kind: str) -> None:
    if "schema" not in data:
        raise r.fail((), f"missing 'schema'; expected schema: {SCHEMA}")
    if data["schema"] != SCHEMA:
        raise r.fail(("schema",), f"unsupported schema {data['schema']!r}; expected {SCHEMA}")
    if data.get("kind", kind) != kind:
        raise r.fail(("kind",), f"expected kind {kind!r}, got {data.get('kind')!r}")


def fixture_from_doc(doc: YamlDoc) -> Fixture:
    r = FieldReader(doc)
    data = r.mapping(doc.data, (), _TOP_KEYS, ())
    check_schema(r, data, "fixture")
    return fixture_from_mapping(r, data)


def fixture_from_mapping(r: FieldReader, data: dict[str, Any]) -> Fixture:
    """The `cluster` and `groups` of a document already checked (a fixture, or a scenario inlining one)."""
    doc = r.doc
    for key in ("cluster", "groups"):
        if key not in data:
            raise r.fail((), f"missing required key {key!r}")
    cluster = _read_cluster(r, data["cluster"], ("cluster",))
    groups: list[Group] = []
    raw_groups = r.seq(data["groups"], ("groups",))
    if not raw_groups:
        raise r.fail(("groups",), "expected at least one group")
    for i, item in enumerate(raw_groups):
        group = _read_group(r, item, ("groups", i), cluster)
        if any(g.group_id == group.group_id for g in groups):
            raise r.fail(("groups", i, "group_id"), f"duplicate group id {group.group_id!r}")
        groups.append(group)
    return Fixture(doc.source, cluster, tuple(groups), tuple(r.warnings))


def load_fixture(path: str) -> Fixture:
    return fixture_from_doc(read_yaml(path))


def load_fixture_text(text: str, source: str = "<text>") -> Fixture:
    return fixture_from_doc(parse_yaml(text, source))


def load_assignment_source(path: str, group_id: str | None = None) -> SavedAssignment:
    """A fixture's current assignment (of the chosen group) or a saved `kind: assignment` document."""
    doc = read_yaml(path)
    if isinstance(doc.data, dict) and doc.data.get("kind") == "assignment":
        r = FieldReader(doc)
        data = r.mapping(doc.data, (), _ASSIGNMENT_KEYS, ("assignment",))
        check_schema(r, data, "assignment")
        raw = r.keyed(data["assignment"], ("assignment",))
        owners = {}
        for member, parts in raw.items():
            items = r.seq(parts, ("assignment", member))
            try:
                owners[member] = [TopicPartition.parse(r.text(p, ("assignment", member, i))) for i, p in enumerate(items)]
            except ValueError as exc:
                raise r.fail(("assignment", member), str(exc)) from None
        return SavedAssignment(path, data.get("group_id"), data.get("assignor"), Assignment.of(owners))
    fixture = fixture_from_doc(doc)
    group = fixture.group(group_id)
    return SavedAssignment(path, group.group_id, None, group.assignment)


__all__ = ["Fixture", "SavedAssignment", "load_fixture", "load_fixture_text", "load_assignment_source",
           "fixture_from_doc", "fixture_from_mapping", "FieldReader", "SCHEMA", "check_schema"]
