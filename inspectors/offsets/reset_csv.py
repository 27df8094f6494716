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
from kgroup.inspectors.limits import INT32_MAX, INT64_MAX, MAX_CSV_FIELD, MAX_FILE_BYTES, topic_name_problem

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
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
        text = raw.decode("utf-8-sig")  # spreadsheet programs start a UTF-8 CSV with a byte-order mark
    except OSError as exc:
        raise InputError(f"cannot read it: {exc.strerror}", source=path) from None
    except UnicodeDecodeError:
        raise InputError("not a UTF-8 text file", source=path) from None
    if len(raw) > MAX_FILE_BYTES:
        raise InputError(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB (the limit for a reset plan)", source=path)
    # Old Mac editors end lines with CR alone; Kafka's tool reads lines, so every ending counts as one.
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    plan: dict[str, dict[TopicPartition, int]] = {}
    for number, line in enumerate(lines, start=1):
        if len(line) > 4 * MAX_CSV_FIELD:
            raise InputError(
                f"a line longer than {4 * MAX_CSV_FIELD} characters; expected topic,partition,offset",
                source=path,
                line=number,
            )
        try:
            cells = next(csv.reader([line]), [])
        except csv.Error as exc:
            raise InputError(f"malformed CSV: {exc}", source=path, line=number) from None
        if not cells or all(not c.strip() for c in cells):
            continue
        if len(cells) == 3:
            if len(group_ids) != 1:
                raise InputError(
                    "topic,partition,offset rows name no group; with several groups each row must be "
                    "group,topic,partition,offset",
                    source=path,
                    line=number,
                )
            group, topic, partition, offset = group_ids[0], *cells
        elif len(cells) == 4:
            group, topic, partition, offset = cells
        else:
            raise InputError(
                f"{len(cells)} columns; expected topic,partition,offset or group,topic,partition,offset",
                source=path,
                line=number,
            )
        tp = TopicPartition(topic.strip(), _number(partition, "partition", path, number, INT32_MAX))
        if not tp.topic:
            raise InputError("topic: empty", source=path, line=number)
        problem = topic_name_problem(tp.topic)
        if problem:
            raise InputError(f"topic: {problem}", source=path, line=number)
        if not group.strip().isprintable() or len(group) > MAX_CSV_FIELD:
            raise InputError("group: expected a printable group id", source=path, line=number)
        plan.setdefault(group.strip(), {})[tp] = _number(offset, "offset", path, number, INT64_MAX)
    if not plan:
        raise InputError("no rows: expected topic,partition,offset lines", source=path)
    return plan


def _number(cell: str, what: str, path: str, line: int, maximum: int) -> int:
    text = cell.strip()
    if not text.isascii() or not text.isdigit():
        raise InputError(f"{what}: {cell[:40]!r} is not a non-negative integer", source=path, line=line)
    if len(text) > 19 or int(text) > maximum:
        raise InputError(f"{what}: more than {maximum}, Kafka's largest", source=path, line=line)
    return int(text)
