"""Times for --to-datetime and --by-duration, read as kafka-consumer-groups.sh reads them."""

from __future__ import annotations

import re
import time
from datetime import datetime, timezone
from typing import Any

from kgroup.inspectors.errors import InputError

# java.time.Duration.parse: PnDTnHnMn.nS, each part optional, at least one present, optional sign.
_DURATION = re.compile(
    r"([-+]?)P(?:([-+]?\d+)D)?(?:T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?", re.IGNORECASE
)


def datetime_ms(text: str, option: str = "--to-datetime") -> int:
    """Utils.getDateTime: ISO-8601 `YYYY-MM-DDTHH:mm:SS.sss`, an optional zone, UTC when none is given."""
    if len(text) > 100:
        raise InputError(f"{text[:40]!r}...: too long for a date-time", field=option)
    if "T" not in text:
        raise InputError(f"{text!r}: expected YYYY-MM-DDTHH:mm:SS.sss[zone] (ISO-8601, with a 'T')", field=option)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(f"{text!r}: not an ISO-8601 date-time such as 2026-11-21T08:00:00.000", field=option) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1000)


def duration_ms(text: str, option: str = "--by-duration") -> int:
    """java.time.Duration.parse, as ISO-8601 `PnDTnHnMn.nS`; returns milliseconds."""
    match = _DURATION.fullmatch(text.strip()) if len(text) <= 100 else None
    if not match or text.strip().upper().endswith("T") or not any(match.group(i) for i in range(2, 6)):
        raise InputError(f"{text[:40]!r}: expected an ISO-8601 duration such as PT30M or P1DT2H", field=option)
    sign, days, hours, minutes, seconds, fraction = match.groups()
    total = ((int(days or 0) * 24 + int(hours or 0)) * 60 + int(minutes or 0)) * 60_000 + int(seconds or 0) * 1000
    total += int((fraction or "").ljust(3, "0")[:3])
    if total > _INT64_MAX:
        raise InputError(f"{text[:40]!r}: longer than Kafka's int64 milliseconds", field=option)
    return -total if sign == "-" else total


def ago_ms(duration: str) -> int:
    """The wall-clock time `duration` ago, in epoch ms (ConsumerGroupCommand: now minus the duration)."""
    return int(time.time() * 1000) - duration_ms(duration)


_INT64_MAX = 2**63 - 1
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_SPAN = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")


def parse_duration(text: Any, days: bool = True) -> int | None:
    """`45s`, `1m30s`, `500ms`, `2h`, `1d` (unless `days` is off), or a bare integer of milliseconds;
    None when it is none of these."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return text
    if not isinstance(text, str) or not text.strip() or len(text) > 100:
        return None  # longer than any real duration: never handed to float()
    value, pos, compact = 0.0, 0, text.strip()
    for match in _SPAN.finditer(compact):
        if match.start() != pos or (match.group(2) == "d" and not days):
            return None
        value += float(match.group(1)) * _UNIT_MS[match.group(2)]
        pos = match.end()
    if pos != len(compact) or not value < 2**63 or value != int(value):
        return None
    return int(value)


def span_ms(text: str, option: str) -> int:
    """A positive span such as 30s, 5m, 1h, 2d, 1h30m (or ISO-8601 PT30S), in milliseconds."""
    cleaned = text.strip().lower()
    if cleaned.startswith(("p", "+p")):
        total = duration_ms(text, option)
    else:
        found = parse_duration(cleaned)
        if found is None:
            raise InputError(f"{text[:40]!r}: expected a span such as 30s, 5m, 1h or 1h30m", field=option)
        total = found
    if total <= 0:
        raise InputError(f"{text[:40]!r}: must be more than zero", field=option)
    if total > _INT64_MAX:
        raise InputError(f"{text[:40]!r}: longer than Kafka's int64 milliseconds", field=option)
    return total
