"""What `offsets reset` was asked, checked: exactly one reset spec and a scope, as
ConsumerGroupCommand.ResetOffsetsCommand checks its options (and rpk's `group seek --to-group`)."""

from __future__ import annotations

from dataclasses import dataclass

from kgroup.assignors.offsets.reset_plan import (
    FROM_FILE,
    SHIFT_BY,
    TO_CURRENT,
    TO_DATETIME,
    TO_EARLIEST,
    TO_LATEST,
    TO_OFFSET,
)
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.offsets.live_reset import ResetRequest
from kgroup.inspectors.offsets.reset_csv import read_plan_csv
from kgroup.inspectors.offsets.reset_times import ago_ms, datetime_ms

BY_DURATION = "by-duration"
TO_GROUP = "to-group"


@dataclass(frozen=True)
class ResetFlags:
    """The reset options as given on the command line; None or False where absent."""

    to_earliest: bool = False
    to_latest: bool = False
    to_current: bool = False
    to_offset: int | None = None
    shift_by: int | None = None
    to_datetime: str | None = None
    by_duration: str | None = None
    from_file: str | None = None
    to_group: str | None = None
    topics: tuple[str, ...] = ()
    all_topics: bool = False

    def specs(self) -> list[str]:
        chosen = {
            TO_EARLIEST: self.to_earliest,
            TO_LATEST: self.to_latest,
            TO_CURRENT: self.to_current,
            TO_OFFSET: self.to_offset is not None,
            SHIFT_BY: self.shift_by is not None,
            TO_DATETIME: self.to_datetime is not None,
            BY_DURATION: self.by_duration is not None,
            FROM_FILE: self.from_file is not None,
            TO_GROUP: self.to_group is not None,
        }
        return [name for name, on in chosen.items() if on]


def reset_request(group_ids: list[str], flags: ResetFlags) -> ResetRequest:
    """One ResetRequest, or an InputError naming the option that is wrong."""
    specs = flags.specs()
    if len(specs) != 1:
        given = f" (got {', '.join('--' + s for s in specs)})" if specs else ""
        raise InputError(
            "give exactly one of --to-earliest, --to-latest, --to-current, --to-offset, --shift-by, "
            "--to-datetime, --by-duration, --from-file, --to-group" + given,
            field="reset spec",
        )
    spec = specs[0]
    topics, all_topics = flags.topics, flags.all_topics
    if spec == TO_GROUP:
        if flags.to_group in group_ids:
            raise InputError(f"{flags.to_group!r} is also a group to reset", field="--to-group")
        if topics and all_topics:
            raise InputError("give --all-topics or --topic, not both", field="--topic")
        return ResetRequest(TO_GROUP, topics=topics, all_topics=all_topics, to_group=flags.to_group)
    if spec == FROM_FILE:
        if topics or all_topics:
            raise InputError(
                "--from-file takes its partitions from the file; drop --topic/--all-topics", field="--from-file"
            )
        return ResetRequest(FROM_FILE, from_file=read_plan_csv(str(flags.from_file), group_ids))
    if bool(topics) == all_topics:
        raise InputError("give the scope: --all-topics or --topic TOPIC[:P,...] (not both)", field="--topic")
    if flags.to_offset is not None and flags.to_offset < 0:
        raise InputError(f"{flags.to_offset}: an offset is not negative", field="--to-offset")
    if spec == BY_DURATION:
        return ResetRequest(
            TO_DATETIME, timestamp_ms=ago_ms(str(flags.by_duration)), topics=topics, all_topics=all_topics
        )
    timestamp = datetime_ms(flags.to_datetime) if flags.to_datetime is not None else None
    value = flags.to_offset if spec == TO_OFFSET else flags.shift_by
    return ResetRequest(spec, value, timestamp, topics, all_topics)
