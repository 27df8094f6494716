"""What `lag analyze` was asked, checked before any Spark starts: the engine, the history's bounds, Burrow's
knobs and the Spark session's settings. Files it will write are checked here too, so that a bad --out or
--chart fails in a second, not after the Spark job."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from kgroup.assignors.lag.samples import LagQuery
from kgroup.inspectors.errors import InputError
from kgroup.inspectors.files import output_folder
from kgroup.inspectors.lag.analysis import AUTO, IN_PROCESS, SPARK, choose_engine, with_bounds
from kgroup.inspectors.offsets.reset_times import datetime_ms, span_ms

LOCAL_SPARK = "local[*]"


@dataclass(frozen=True)
class AnalyzeRequest:
    engine: str  # auto, in-process or spark, as asked
    spark_url: str
    spark_given: bool
    since_at: int | None = None  # --since as a date-time
    since_span: int | None = None  # --since as a span back from --until (or the newest sample)
    until_at: int | None = None
    knobs: dict[str, Any] = field(default_factory=dict)  # window, allowed_lag, isolation, bucket_ms
    conf: dict[str, str] = field(default_factory=dict)  # --spark-conf

    def engine_for(self, rows: int | None) -> tuple[str, str]:
        """(IN_PROCESS or a Spark URL, why), for a history of `rows` samples (None: not surveyed)."""
        return choose_engine(self.engine, self.spark_url, self.spark_given, rows)

    @property
    def chosen_by_kgroup(self) -> bool:
        """auto without --spark: the engine is kgroup's choice, which the command says on stderr."""
        return self.engine == AUTO and not self.spark_given

    def query(self, oldest: int | None) -> Callable[[int], LagQuery]:
        """The question, once the newest sample's time is known."""
        return lambda newest: with_bounds(
            newest, self.since_at, self.until_at, self.since_span, oldest=oldest, **self.knobs
        )


def analyze_request(
    engine: str,
    spark: str | None,
    in_process: bool,
    since: str | None,
    until: str | None,
    window: int,
    allowed_lag: int,
    isolation: str,
    bucket: str | None,
    spark_conf: Iterable[str] = (),
    writes: Iterable[tuple[str | None, str]] = (),
) -> AnalyzeRequest:
    """`writes`: (path, option) of the files the command will write, each checked to be writable."""
    if engine not in (AUTO, IN_PROCESS, SPARK):
        raise InputError(f"{engine!r}: expected auto, in-process or spark", field="--engine")
    if in_process and spark is not None:
        raise InputError("choose one of --in-process and --spark", field="--in-process")
    if in_process:
        engine = IN_PROCESS
    if engine == IN_PROCESS and spark is not None:
        raise InputError("--engine in-process runs no Spark; drop --spark", field="--engine")
    since_at, since_span = _time(since, "--since")
    until_at, until_span = _time(until, "--until")
    if until_span is not None:
        raise InputError(f"{until!r}: expected an ISO date-time such as 2026-11-21T08:00:00", field="--until")
    knobs = {
        "window": window,
        "allowed_lag": allowed_lag,
        "isolation": isolation,
        "bucket_ms": span_ms(bucket, "--bucket") if bucket else None,
    }
    for path, option in writes:
        if path:
            output_folder(path, option)
    return AnalyzeRequest(
        engine,
        spark or LOCAL_SPARK,
        spark is not None,
        since_at,
        since_span,
        until_at,
        knobs,
        spark_settings(spark_conf),
    )


def spark_settings(entries: Iterable[str]) -> dict[str, str]:
    """--spark-conf KEY=VALUE entries, as spark-submit's --conf takes them."""
    conf = {}
    for entry in entries:
        key, sep, value = entry.partition("=")
        if not sep or not key.strip():
            raise InputError(f"{entry!r}: expected KEY=VALUE", field="--spark-conf")
        conf[key.strip()] = value.strip()
    return conf


def _time(text: str | None, option: str) -> tuple[int | None, int | None]:
    """An ISO date-time (absolute), or a span such as 30m (counted back from --until or the newest sample)."""
    if text is None:
        return None, None
    if "T" in text and text[0].isdigit():
        return datetime_ms(text, option), None
    return None, span_ms(text, option)
