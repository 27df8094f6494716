"""The CSV reset plan kafka-consumer-groups.sh writes with --export and reads with --from-file.

One group: `topic,partition,offset`; several: `group,topic,partition,offset` (ConsumerGroupCommand
.exportOffsetsToCsv, parseResetPlan). No header, so files move between the two tools unchanged.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from kgroup.assignors.model import TopicPartition
from kgroup.inspectors.errors import InputError

Row = tuple[str, TopicPartition, int]  # group, partition, offset


def plan_csv(rows: Iterable[Row], with_group: bool) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for group, tp, offset in rows:
        writer.writerow([group, tp.topic, tp.partition, offset] if with_group else [tp.topic, tp.partition, offset])
    return out.getvalue()


def read_plan_csv(path: str, group_ids: list[str]) -> dict[str, dict[TopicPartition, int]]:
    """group -> partition -> offset. Three columns are only valid for a single group, as in Kafka's tool."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
    except OSError as exc:
        raise InputError(f"cannot read it: {exc.strerror}", source=path) from None
    except UnicodeDecodeError:
        raise InputError("not a UTF-8 text file", source=path) from None
    plan: dict[str, dict[TopicPartition, int]] = {}
    for number, cells in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not cells or all(not c.strip() for c in cells):
            continue
        if len(cells) == 3:
            if len(group_ids) != 1:
                raise InputError("topic,partition,offset rows name no group; with several groups each row must be "
                                 "group,topic,partition,offset", source=path, line=number)
            group, topic, partition, offset = group_ids[0], *cells
        elif len(cells) == 4:
            group, topic, partition, offset = cells
        else:
            raise InputError(f"{len(cells)} columns; expected topic,partition,offset or group,topic,partition,offset",
                             source=path, line=number)
        tp = TopicPartition(topic.strip(), _number(partition, "partition", path, number))
        if not tp.topic:
            raise InputError("topic: empty", source=path, line=number)
        plan.setdefault(group.strip(), {})[tp] = _number(offset, "offset", path, number)
    if not plan:
        raise InputError("no rows: expected topic,partition,offset lines", source=path)
    return plan


def _number(cell: str, what: str, path: str, line: int) -> int:
    text = cell.strip()
    if not text.isascii() or not text.isdigit():
        raise InputError(f"{what}: {cell!r} is not a non-negative integer", source=path, line=line)
    return int(text)
