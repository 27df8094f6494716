"""`lag analyze` end to end: open Spark, read the data set, run the pipeline, write the result files."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from kgroup.assignors.lag.history import HistoryPoint, PartitionReport
from kgroup.assignors.lag.history import analyze as reference_analysis
from kgroup.assignors.lag.rollup import Rollup, rollups
from kgroup.assignors.lag.samples import LagQuery
from kgroup.inspectors.lag import spark_job
from kgroup.inspectors.errors import InputError, NotReachableError, RunError
from kgroup.inspectors.files import output_folder
from kgroup.inspectors.live.admin import group_pattern
from kgroup.inspectors.lag.dataset import (COMMITS, check_marker, damaged_files, pyarrow, read_gaps, read_samples,
                                          table_files)
from kgroup.inspectors.lag.spark_session import Progress, following, spark_failure, spark_session


@dataclass(frozen=True)
class Analysis:
    query: LagQuery
    partitions: list[PartitionReport]
    rollups: list[Rollup]
    history: list[HistoryPoint]
    gaps: list[dict[str, Any]] = field(default_factory=list)  # when the recorder could not poll (dataset.GAPS)


@dataclass(frozen=True)
class Selection:
    groups: tuple[str, ...] = ()
    regex: str | None = None

    def check(self) -> None:
        group_pattern(self.regex)


IN_PROCESS = "in-process"  # instead of a Spark URL: the reference functions, in this process


def run(path: str, spark_url: str, query: Callable[[int], LagQuery], selection: Selection,
        progress: Progress | None = None, timeout_s: float = 10.0, conf: dict[str, str] | None = None,
        skip: frozenset[str] = frozenset()) -> Analysis:
    """`query(newest)` builds the question once the newest sample time is known; `skip`: damaged files to
    leave out (checked_files)."""
    selection.check()
    check_marker(path)
    if "://" not in path and not [f for f in table_files(path, COMMITS) if f not in skip]:
        raise InputError(f"{path!r}: the data set has no commit samples yet", field="DATASET")
    if spark_url == IN_PROCESS:
        return _in_process(path, query, selection, skip)
    with spark_session(spark_url, timeout_s, conf) as spark:
        try:
            with following(spark, progress):
                commits, logs = spark_job.read_tables(spark, path, skip)
                if selection.groups:
                    commits = commits.where(commits["group"].isin(list(selection.groups)))
                if selection.regex:
                    commits = commits.where(commits["group"].rlike(selection.regex))
                newest = spark_job.newest_time(commits, logs)
                if newest is None:
                    raise InputError(f"{path!r}: no samples for the selected groups", field="DATASET")
                asked, gaps = outside_gaps(path, query(newest), skip)
                partitions, rollups, history = spark_job.analyze(commits, logs, asked)
        except (InputError, NotReachableError, RunError):
            raise
        except Exception as exc:
            if type(exc).__module__.startswith(("pyspark", "py4j", "grpc")):
                raise spark_failure(exc) from None
            raise
    return Analysis(asked, partitions, rollups, history, gaps)


def checked_files(path: str, skip_bad: bool) -> frozenset[str]:
    """The damaged files of a local history: an error naming the first, or (skip_bad) the set to leave out."""
    if "://" in path:
        return frozenset()
    check_marker(path)
    damaged = damaged_files(path)
    if damaged and not skip_bad:
        file, why = next(iter(damaged.items()))
        raise InputError(f"cannot read it as Parquet: {why} (--skip-bad-files leaves it out)", source=file)
    return frozenset(damaged)


def outside_gaps(path: str, query: LagQuery, skip: frozenset[str] = frozenset()
                 ) -> tuple[LagQuery, list[dict[str, Any]]]:
    """The recorded gaps, and the query moved out of one: evaluated as of a time inside a gap, the STOP rule
    would read the recorder's blindness as a consumer that stopped committing, so the evaluation time moves
    back to the gap's start (the last poll before it), the newest time the history actually saw."""
    if "://" in path:
        return query, []
    gaps = read_gaps(path, skip)
    for gap in gaps:
        if gap["start_ts"] < query.as_of and (gap["end_ts"] is None or query.as_of < gap["end_ts"]):
            query = replace(query, as_of=gap["start_ts"])
    return query, gaps


def _in_process(path: str, query: Callable[[int], LagQuery], selection: Selection,
                skip: frozenset[str] = frozenset()) -> Analysis:
    """The whole data set in memory through kgroup.assignors.lag.history, which the Spark pipeline is tested
    equal to: no JVM to start, so a small history is answered at once; a large one belongs on Spark."""
    commits, logs = read_samples(path, skip)
    pattern = group_pattern(selection.regex)
    commits = [c for c in commits if (not selection.groups or c.group in selection.groups)
               and (pattern is None or pattern.search(c.group))]
    newest = max([c.observed_ts for c in commits] + [s.ts for s in logs], default=None)
    if newest is None:
        raise InputError(f"{path!r}: no samples for the selected groups", field="DATASET")
    asked, gaps = outside_gaps(path, query(newest), skip)
    partitions, history = reference_analysis(commits, logs, asked)
    return Analysis(asked, partitions, rollups(partitions), history, gaps)


def write_parquet(path: str, analysis: Analysis) -> None:
    """The per-partition result as one Parquet file, renamed into place when complete."""
    pa = pyarrow()
    folder = output_folder(path, "--out")
    rows = [asdict(r) for r in analysis.partitions]
    columns = list(PartitionReport.__dataclass_fields__)
    table = pa.table({c: [r[c] for r in rows] for c in columns}) if rows else pa.table({c: [] for c in columns})
    temporary = os.path.join(folder, f".{os.path.basename(path)}.tmp")
    try:
        pa.parquet.write_table(table, temporary)
        os.replace(temporary, path)
    except OSError as exc:
        raise InputError(f"{path!r}: cannot write it: {exc.strerror}", field="--out") from None


def with_bounds(newest: int, since: int | None, until: int | None, since_span: int | None, **knobs: Any) -> LagQuery:
    as_of = until if until is not None else newest
    start = since if since is not None else (as_of - since_span if since_span is not None else None)
    return replace(LagQuery(as_of=as_of), since=start, **knobs)
