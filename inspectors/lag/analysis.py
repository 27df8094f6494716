"""`lag analyze` end to end: open Spark, read the data set, run the pipeline, write the result files."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from kgroup.assignors.lag.history import HistoryPoint, PartitionReport
from kgroup.assignors.lag.history import analyze as reference_analysis
from kgroup.assignors.lag.history import report_order
from kgroup.assignors.lag.share_lag import analyze_shares
from kgroup.assignors.lag.rollup import Rollup, rollups
from kgroup.assignors.lag.samples import LagQuery
from kgroup.inspectors.lag import spark_job
from kgroup.inspectors.errors import InputError, NotReachableError, RunError
from kgroup.inspectors.files import output_folder
from kgroup.inspectors.live.consumer_groups import group_pattern
from kgroup.inspectors.lag.dataset import COMMITS, check_marker, pyarrow, read_gaps, read_samples, survey, table_files
from kgroup.inspectors.lag.dataset import SHARES, read_shares
from kgroup.inspectors.lag.spark_session import Progress, following, spark_failure, spark_session


@dataclass(frozen=True)
class Analysis:
    query: LagQuery
    partitions: list[PartitionReport]
    rollups: list[Rollup]
    history: list[HistoryPoint]
    gaps: list[dict[str, Any]] = field(default_factory=list)  # when the recorder could not poll (dataset.GAPS)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Selection:
    groups: tuple[str, ...] = ()
    regex: str | None = None

    def check(self) -> None:
        group_pattern(self.regex)


IN_PROCESS = "in-process"  # instead of a Spark URL: the reference functions, in this process


def run(
    path: str,
    spark_url: str,
    query: Callable[[int], LagQuery],
    selection: Selection,
    progress: Progress | None = None,
    timeout_s: float = 10.0,
    conf: dict[str, str] | None = None,
    skip: frozenset[str] = frozenset(),
    data_bytes: int | None = None,
) -> Analysis:
    """`query(newest)` builds the question once the newest sample time is known; `skip`: damaged files to
    leave out (checked_files)."""
    selection.check()
    check_marker(path)
    shared = "://" not in path and any(f not in skip for f in table_files(path, SHARES))
    if "://" not in path and not shared and not [f for f in table_files(path, COMMITS) if f not in skip]:
        raise InputError(f"{path!r}: the data set has no commit samples yet", field="DATASET")
    if spark_url == IN_PROCESS:
        return _in_process(path, query, selection, skip)
    if shared and not [f for f in table_files(path, COMMITS) if f not in skip]:
        raise InputError(
            f"{path!r}: only share groups are recorded, which are analyzed in-process only: --engine in-process",
            field="--engine",
        )
    with spark_session(spark_url, timeout_s, conf, data_bytes) as spark:
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
    notes = [f"{SHARES}: share groups are analyzed in-process only (--engine in-process); left out"] if shared else []
    return Analysis(asked, partitions, rollups, history, gaps, notes)


# `--engine auto`: histories up to this many samples (commit + log rows) run in-process. Measured on this
# 2-core machine (docs/lag.md, "Which engine"): in-process took 1.1 s for 44,200 samples and 6.8 s for
# 176,700 (about 40 us a sample), while a local Spark session takes about 30 s to start and answer a small
# history on a quiet machine (90-190 s on a busy one); 500,000 samples in-process is about 20 s.
AUTO_IN_PROCESS_MAX_ROWS = 500_000
AUTO, SPARK = "auto", "spark"


@dataclass(frozen=True)
class Checked:
    skip: frozenset[str]  # damaged files to leave out
    rows: int | None  # samples in the rest; None for a remote history (not surveyed)
    bytes: int | None
    oldest_ts: int | None = None


def checked_files(path: str, skip_bad: bool) -> Checked:
    """The damaged files of a local history: an error naming the first, or (skip_bad) the set to leave out."""
    if "://" in path:
        return Checked(frozenset(), None, None)
    check_marker(path)
    found = survey(path)
    if found.damaged and not skip_bad:
        file, why = next(iter(found.damaged.items()))
        raise InputError(f"cannot read it as Parquet: {why} (--skip-bad-files leaves it out)", source=file)
    return Checked(frozenset(found.damaged), found.rows, found.bytes, found.oldest_ts)


def choose_engine(engine: str, spark_url: str, spark_given: bool, rows: int | None) -> tuple[str, str]:
    """(IN_PROCESS or a Spark URL, why) for --engine auto|in-process|spark."""
    if engine == IN_PROCESS:
        return IN_PROCESS, "--engine in-process"
    if engine == SPARK:
        return spark_url, "--engine spark"
    if spark_given:
        return spark_url, "--spark was given"
    if rows is None:
        return spark_url, "a remote history is not surveyed"
    if rows <= AUTO_IN_PROCESS_MAX_ROWS:
        return IN_PROCESS, f"{rows:,} samples <= {AUTO_IN_PROCESS_MAX_ROWS:,}"
    return spark_url, f"{rows:,} samples > {AUTO_IN_PROCESS_MAX_ROWS:,}"


def outside_gaps(
    path: str, query: LagQuery, skip: frozenset[str] = frozenset()
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


def _in_process(
    path: str, query: Callable[[int], LagQuery], selection: Selection, skip: frozenset[str] = frozenset()
) -> Analysis:
    """The whole data set in memory through kgroup.assignors.lag.history, which the Spark pipeline is tested
    equal to: no JVM to start, so a small history is answered at once; a large one belongs on Spark."""
    commits, logs = read_samples(path, skip)
    shares = read_shares(path, skip)
    pattern = group_pattern(selection.regex)

    def chosen(group: str) -> bool:
        return (not selection.groups or group in selection.groups) and (pattern is None or bool(pattern.search(group)))

    commits = [c for c in commits if chosen(c.group)]
    shares = [s for s in shares if chosen(s.group)]  # a share group's lag is its broker's (share_lag)
    newest = max(
        [c.observed_ts for c in commits] + [s.observed_ts for s in shares] + [s.ts for s in logs], default=None
    )
    if newest is None:
        raise InputError(f"{path!r}: no samples for the selected groups", field="DATASET")
    asked, gaps = outside_gaps(path, query(newest), skip)
    partitions, history = reference_analysis(commits, logs, asked)
    shared, shared_history = analyze_shares(shares, logs, asked)
    partitions = sorted(partitions + shared, key=report_order)
    history = sorted(history + shared_history, key=lambda p: (p.cluster, p.group, p.bucket_ts))
    return Analysis(asked, partitions, rollups(partitions), history, gaps)


def write_parquet(path: str, analysis: Analysis) -> None:
    """The per-partition result as one Parquet file, renamed into place when complete."""
    pa = pyarrow()
    folder = output_folder(path, "--out")
    rows = [asdict(r) for r in analysis.partitions]
    columns = list(PartitionReport.__dataclass_fields__)
    types = {"readers": pa.list_(pa.string())}  # a list of member ids, also where every list is empty
    table = pa.table({c: pa.array([r[c] for r in rows], type=types.get(c)) for c in columns})
    temporary = os.path.join(folder, f".{os.path.basename(path)}.tmp")
    try:
        pa.parquet.write_table(table, temporary)
        os.replace(temporary, path)
    except OSError as exc:
        raise InputError(f"{path!r}: cannot write it: {exc.strerror}", field="--out") from None


_BUCKETS_MS = (
    1_000,
    5_000,
    10_000,
    15_000,
    30_000,
    60_000,
    300_000,
    900_000,
    1_800_000,
    3_600_000,
    21_600_000,
    86_400_000,
)


def bucket_for(span_ms: int, points: int = 60) -> int:
    """The smallest usual bucket that draws the span in at most about `points` points: a 25 s history gets
    1 s buckets (25 points), an hour 1 m, a day 30 m; never one point for a whole short history."""
    return next((b for b in _BUCKETS_MS if span_ms / b <= points), _BUCKETS_MS[-1])


def with_bounds(
    newest: int,
    since: int | None,
    until: int | None,
    since_span: int | None,
    oldest: int | None = None,
    bucket_ms: int | None = None,
    **knobs: Any,
) -> LagQuery:
    """The question; without a bucket, one chosen from the span analyzed (--since, else the oldest sample)."""
    as_of = until if until is not None else newest
    start = since if since is not None else (as_of - since_span if since_span is not None else None)
    if bucket_ms is None:
        first = start if start is not None else (oldest if oldest is not None else as_of)
        bucket_ms = bucket_for(max(0, as_of - first))
    return replace(LagQuery(as_of=as_of), since=start, bucket_ms=bucket_ms, **knobs)
