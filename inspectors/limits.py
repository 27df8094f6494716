"""The documented limits on what kgroup reads (docs/fixtures.md, "Limits"), and the checks that apply them.

Every limit is checked before anything is allocated in proportion to the value it bounds, so a hostile
or mistyped number (`partitions: 2**63`, `duration: 10**30`) costs one comparison, not the machine.
"""

from __future__ import annotations

import os
import re

from kgroup.inspectors.errors import InputError

MAX_FILE_BYTES = 64 * 1024 * 1024  # fixtures, scenarios, saved assignments, profiles, CSV plans
MAX_VALUES = 1_500_000  # values in one YAML document (list items and mapping entries)
MAX_JSON_VALUES = 4_000_000  # the same in a JSON document, which Python reads some twenty times faster
MAX_PROPERTIES_BYTES = 1024 * 1024  # --command-config
MAX_ALIAS_VALUES = 10_000  # values that YAML aliases may add by repeating an anchored collection
MAX_DEPTH = 64  # nested mappings and lists
MAX_PARTITIONS_PER_TOPIC = 1_000_000
MAX_PARTITIONS_TOTAL = 2_000_000  # over the cluster; KGROUP_MAX_PARTITIONS raises it
MAX_MEMBERS = 100_000  # per group
MAX_EVENTS = 100_000  # per scenario
MAX_SIMULATED_MS = 7 * 86_400_000  # a scenario's run, end to end
MAX_SIMULATED_HEARTBEATS = 20_000_000  # a scenario's heartbeats, all members over the run: some 30 s of work
MAX_ID_CHARS = 32_767  # Kafka's protocol STRING: an int16 length (protocol.types.Type.STRING)
MAX_TOPIC_CHARS = 249  # org.apache.kafka.common.internals.Topic.MAX_NAME_LENGTH
MAX_DIGITS = 19  # any integer kgroup reads fits in int64
INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
MAX_CSV_FIELD = 4096  # one CSV cell; topic names are 249 characters at most

# org.apache.kafka.common.internals.Topic.validate: ASCII alphanumerics, '.', '_' and '-', not "." or "..".
_LEGAL_TOPIC = re.compile(r"[a-zA-Z0-9._-]+")


def partition_budget() -> int:
    """The total partition limit, raised (never lowered below the default) by KGROUP_MAX_PARTITIONS."""
    raw = os.environ.get("KGROUP_MAX_PARTITIONS", "").strip()
    if not raw:
        return MAX_PARTITIONS_TOTAL
    if not raw.isascii() or not raw.isdigit() or len(raw) > MAX_DIGITS or int(raw) > INT64_MAX:
        raise InputError(f"{raw[:40]!r}: expected a whole number of partitions", field="KGROUP_MAX_PARTITIONS")
    return int(raw)


def topic_name_problem(name: str) -> str | None:
    """Why Kafka would refuse `name` as a topic (Topic.validate), or None when it is legal."""
    if len(name) > MAX_TOPIC_CHARS:
        return f"a topic name is at most {MAX_TOPIC_CHARS} characters (Kafka's limit), got {len(name)}"
    if name in (".", ".."):
        return f"{name!r} is not a legal topic name (Kafka refuses '.' and '..')"
    if not _LEGAL_TOPIC.fullmatch(name):
        return f"{_clip(name)!r} is not a legal topic name: Kafka allows only ASCII letters, digits, '.', '_' and '-'"
    return None


def id_problem(text: str) -> str | None:
    """Why `text` cannot be a group, member, instance or client id, or None when it can."""
    if len(text) > MAX_ID_CHARS:
        return f"at most {MAX_ID_CHARS} characters (Kafka's string limit), got {len(text)}"
    if any("\ud800" <= c <= "\udfff" for c in text):
        return f"{_clip(text)!r} contains a lone UTF-16 surrogate, which is not text"
    if not text.isprintable():
        bad = next(c for c in text if not c.isprintable())
        return f"{_clip(text)!r} contains a non-printable character (U+{ord(bad):04X})"
    return None


def shown(value: object) -> str:
    """`repr(value)` for an error message, clipped: a mistyped value may be a megabyte long."""
    return _clip(repr(value))


def _clip(text: str) -> str:
    clean = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return clean if len(clean) <= 60 else clean[:57] + "..."


def digits_problem(text: str) -> str | None:
    """A number written with more digits than int64 has: refused before Python converts it."""
    body = text.strip().lstrip("+-").replace("_", "")
    if len(body) > MAX_DIGITS:
        return f"a number of {len(body)} digits; kgroup reads integers up to 2^63-1 ({MAX_DIGITS} digits)"
    return None
