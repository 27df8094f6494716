"""`lag analyze` on Spark: the reference computation (kgroup.assignors.lag.history) as one Spark job.

Spark has no as-of join; both as-of lookups (the log end at a time, the log sample at or below an offset)
are a union of the two tables sorted by the lookup key with `last(..., ignorenulls)` over the partition
(docs/lag.md, "Which engine"). The Burrow rules run on each partition's window as Spark SQL array functions: no Python
UDF, so Spark Connect servers need no kgroup installed. pyspark is imported only here.
"""

from __future__ import annotations

from typing import Any

from kgroup.assignors.lag.burrow_status import RANK, LagStatus
from kgroup.assignors.lag.history import HistoryPoint, PartitionReport, report_order
from kgroup.assignors.lag.rollup import GROUP, METHOD_RANK, MEMBER, TOPIC, Rollup, rollup_order
from kgroup.assignors.lag.samples import READ_COMMITTED, LagQuery
from kgroup.inspectors.lag.dataset import COLUMNS, COMMITS, LOG_OFFSETS, check_columns, check_marker, table_files

HISTORY, EVENT, CURRENT = 0, 1, 2  # roles of commit rows in the as-of sorts
KEY = ["_k1", "_k2"]  # a topic partition's window key, added by keyed()
WINDOW_BLOCK_MS = 3_600_000  # the blocks of commit time _recent ranks; any size gives the same window


PARTITION_COLUMNS = [name for name in PartitionReport.__dataclass_fields__ if name not in ("lag_kind", "readers")]


def read_tables(spark: Any, path: str, skip: frozenset[str] = frozenset()) -> tuple[Any, Any]:
    """The two tables with times as epoch milliseconds; the schema checked column by column. `skip`: files
    left out (--skip-bad-files): then the table's other files are named one by one."""
    from pyspark.sql import functions as F

    check_marker(path)
    tables = []
    for table in (COMMITS, LOG_OFFSETS):
        location = f"{path.rstrip('/')}/{table}"
        if skip:
            kept = [f for f in table_files(path, table) if f not in skip]
            frame = spark.read.option("basePath", location).parquet(*kept)
        else:
            frame = spark.read.parquet(location)
        check_columns(table, {f.name: _kind(f.dataType.typeName()) for f in frame.schema.fields}, location)
        for column, (kind, _) in COLUMNS[table].items():
            if kind == "timestamp":
                frame = frame.withColumn(column, F.unix_millis(F.col(column)))
        tables.append(frame.select(*COLUMNS[table]))
    return tables[0], tables[1]


def _kind(spark_type: str) -> str:
    return {"integer": "int", "timestamp_ntz": "timestamp"}.get(spark_type, spark_type)


def keyed(frame: Any) -> Any:
    """Add KEY: two independent hashes of (cluster, topic, partition). Every as-of window sorts by its
    partition key first, and integers compare much faster than three strings (a 10M-row time as-of pass:
    10.5 s instead of 16.5 s); two distinct partitions would have to collide in both a 64-bit and a 32-bit
    hash (odds 2^-96 a pair)."""
    from pyspark.sql import functions as F

    return frame.withColumn(KEY[0], F.xxhash64("cluster", "topic", "partition")).withColumn(
        KEY[1], F.hash("partition", "topic", "cluster")
    )


def newest_time(commits: Any, logs: Any) -> int | None:
    from pyspark.sql import functions as F

    a = commits.agg(F.max("observed_ts")).first()[0]
    b = logs.agg(F.max("ts")).first()[0]
    return max((x for x in (a, b) if x is not None), default=None)


def analyze(commits: Any, logs: Any, query: LagQuery) -> tuple[list[PartitionReport], list[Rollup], list[HistoryPoint]]:
    from pyspark.sql import functions as F

    def covered(frame: Any, column: str) -> Any:
        keep = F.col(column) <= F.lit(query.as_of)
        if query.since is not None:
            keep = keep & (F.col(column) >= F.lit(query.since))
        return frame.where(keep)

    tp = ["cluster", "topic", "partition"]
    gtp = ["cluster", "group", "topic", "partition"]
    # the log samples feed every branch of the plan: prepared once and cached (a quarter of the rows, few
    # columns); the commits are read from Parquet by each branch, which prunes them to its columns (caching
    # every commit column cost more than the reads it saved)
    logs = _log_timeline(keyed(covered(logs, "ts")), query).cache()
    try:
        return _analyze(keyed(covered(commits, "observed_ts")), logs, query, tp, gtp)
    finally:
        logs.unpersist()


def _log_timeline(logs: Any, query: LagQuery) -> Any:
    """One log sample per time (the highest end on a tie, as the reference keeps), whether it is monotonic
    (no earlier sample ended higher) and its rank from the newest: all from one sort by time."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    end = (
        F.coalesce("last_stable_offset", "high_watermark")
        if query.isolation == READ_COMMITTED
        else F.col("high_watermark")
    )
    ties = Window.partitionBy(*KEY).orderBy("ts", F.desc("high_watermark"))
    logs = (
        logs.withColumn("end", end)
        .withColumn("_p", F.lag("ts").over(ties))
        .where(F.col("_p").isNull() | (F.col("_p") != F.col("ts")))
    )
    by_time = Window.partitionBy(*KEY).orderBy("ts")
    prior = F.max("end").over(by_time.rowsBetween(Window.unboundedPreceding, -1))
    newest_rank = (
        F.count("*").over(by_time.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing))
        - F.row_number().over(by_time)
        + 1
    )
    # peak: the highest end up to this sample, which is the end of the last monotonic sample at or before it
    # (a later sample that is not monotonic ended lower): the monotonic end an ask at this time reads
    return logs.select(
        *KEY,
        "cluster",
        "topic",
        "partition",
        "ts",
        "end",
        "log_start_offset",
        (prior.isNull() | (F.col("end") >= prior)).alias("mono"),
        newest_rank.alias("_r"),
        F.greatest(F.col("end"), prior).alias("peak"),
    )


def _analyze(
    commits: Any, logs: Any, query: LagQuery, tp: list[str], gtp: list[str]
) -> tuple[list[PartitionReport], list[Rollup], list[HistoryPoint]]:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    by_time = Window.partitionBy(*KEY).orderBy("ts")
    mono = logs.where("mono").select(*KEY, "ts", "end")
    mono = mono.withColumn("t1", F.lead("ts").over(by_time)).withColumn("o1", F.lead("end").over(by_time))
    latest_log = logs.where("_r = 1").select(
        *tp, F.col("log_start_offset").alias("start"), F.col("end").alias("log_end")
    )
    broker = (
        logs.where(F.col("_r") <= query.window)
        .groupBy(*tp)
        .agg(F.min("end").alias("b_min"), F.max("end").alias("b_max"), F.count("*").alias("b_count"))
    )

    # the newest sample of each group partition (by observation, then commit time): the newest observation
    # time is a plain aggregation, and joining it back keeps only the newest poll's rows; a window (or
    # max_by over the string columns, a sort-based aggregation) would sort every commit
    seen = commits.groupBy(*KEY, *gtp).agg(F.max("observed_ts").alias("observed_ts"))
    newest = F.max_by(
        F.struct("member_id", "client_id", "host", F.col("committed_offset").alias("committed")), "commit_ts"
    )
    # cached: the parts and the current asks both read it, and each would otherwise scan every commit twice
    latest = (
        commits.join(F.broadcast(seen), [*KEY, *gtp, "observed_ts"])
        .groupBy(*KEY, *gtp)
        .agg(newest.alias("_l"))
        .select(*KEY, *gtp, "_l.member_id", "_l.client_id", "_l.host", "_l.committed")
        .cache()
    )
    # Burrow's window: the newest `window` distinct commits; a commit seen twice keeps its latest observation
    committed = commits.where(F.col("committed_offset").isNotNull())
    top = F.dense_rank().over(Window.partitionBy(*KEY, "group").orderBy(F.desc("commit_ts")))
    events = (
        _recent(committed, query.window)
        .withColumn("_d", top)
        .where(F.col("_d") <= query.window)
        .groupBy(*KEY, *gtp, "commit_ts")
        .agg(F.max_by("committed_offset", F.struct("observed_ts", "committed_offset")).alias("committed_offset"))
    )
    history_asks = committed.select(
        *KEY, *gtp, F.col("committed_offset").alias("c"), F.col("observed_ts").alias("at"), F.lit(HISTORY).alias("role")
    )
    asks = events.select(
        *KEY, *gtp, F.col("committed_offset").alias("c"), F.col("commit_ts").alias("at"), F.lit(EVENT).alias("role")
    ).unionByName(
        latest.where(F.col("committed").isNotNull()).select(
            *KEY, *gtp, F.col("committed").alias("c"), F.lit(query.as_of).alias("at"), F.lit(CURRENT).alias("role")
        )
    )
    # the few window and current rows apart from the history's many: the history is aggregated straight
    # away, and only the small answer is kept for the three joins below
    answered = _time_lag(_ends_at(asks, logs), mono).cache()

    def history(ended: Any) -> Any:
        return (
            _time_lag(ended, mono)
            .join(latest_log.select(*tp), tp, "left_semi")
            .withColumn("bucket_ts", F.col("at") - F.col("at") % F.lit(query.bucket_ms))
            .groupBy("cluster", "group", "bucket_ts")
            .agg(
                F.max("lag_at").alias("max_lag"),
                F.max("time_lag_ms").alias("max_time_lag_ms"),
                # on ties at the max, one lower bound makes the max a lower bound (history._point): the
                # max of 2*ms + (1 if a lower bound) says both, and, being a long, keeps the aggregation
                # hashed (the max of a struct made Spark sort every observation: a quarter of the history)
                F.max(F.col("time_lag_ms") * 2 + (F.col("time_lag_method") == "lower-bound").cast("long")).alias(
                    "_ms_floor"
                ),
            )
            .withColumn("max_time_lag_lower_bound", F.col("_ms_floor") % 2 == 1)
            .drop("_ms_floor")
            .orderBy("cluster", "group", "bucket_ts")
        )

    window = (
        answered.where(F.col("role") == EVENT)
        .groupBy(*gtp)
        .agg(
            F.array_sort(
                F.collect_list(
                    F.struct(
                        F.col("at").alias("ts"),
                        F.col("c").alias("offset"),
                        F.col("lag_at").alias("lag"),
                        F.col("end_at"),
                    )
                )
            ).alias("w")
        )
    )
    current = answered.where(F.col("role") == CURRENT).select(*gtp, "time_lag_ms", "time_lag_method")
    parts = (
        latest.join(latest_log, tp, "left")
        .join(broker, tp, "left")
        .join(window, gtp, "left")
        .join(current, gtp, "left")
    )
    parts = _partition_columns(parts, query).cache()  # collected, then rolled up
    try:
        rows = parts.collect()
        reports = sorted(
            # the job reads `commits` only: lag_kind and readers keep their defaults (committed, none)
            (
                PartitionReport(
                    **{name: row[name] for name in PARTITION_COLUMNS} | {"status": LagStatus(row["status"])}
                )
                for row in rows
            ),
            key=report_order,
        )
        rollup_rows = _rollups(parts).collect()
        rollups = sorted(
            (
                Rollup(
                    **{name: row[name] for name in Rollup.__dataclass_fields__} | {"status": LagStatus(row["status"])}
                )
                for row in rollup_rows
            ),
            key=rollup_order,
        )
        # the as-of lookup even where `lag record` stamped commits and log ends with one poll time: the
        # equi-join (_ends_at_polls) measured no faster on the whole pipeline (docs/lag.md)
        rows = history(_ends_at(history_asks, logs)).collect()
        points = [
            HistoryPoint(
                r["cluster"],
                r["group"],
                r["bucket_ts"],
                r["max_lag"],
                r["max_time_lag_ms"],
                bool(r["max_time_lag_lower_bound"]),
            )
            for r in rows
        ]
    finally:
        parts.unpersist()
        answered.unpersist()
        latest.unpersist()
    return reports, rollups, points


def _recent(committed: Any, window: int) -> Any:
    """The commit rows from each group partition's `window` newest non-empty blocks of commit time
    (WINDOW_BLOCK_MS each) on: they hold its `window` newest distinct commit times, since a non-empty block
    holds at least one, so ranking these rows alone gives Burrow's window. The blocks come from a hashed
    aggregation; ranking every commit sorted them all (49 of about 300 executor seconds at 40M samples)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    owner = [*KEY, "group"]
    block = F.col("commit_ts") - F.col("commit_ts") % F.lit(WINDOW_BLOCK_MS)
    blocks = committed.select(*owner, block.alias("_b")).distinct()
    newest = F.dense_rank().over(Window.partitionBy(*owner).orderBy(F.desc("_b")))
    cutoffs = (
        blocks.withColumn("_n", newest).where(F.col("_n") <= window).groupBy(*owner).agg(F.min("_b").alias("_cut"))
    )
    return (
        committed.join(F.broadcast(cutoffs), owner)
        .where((F.col("commit_ts") >= F.col("_cut")) | F.col("commit_ts").isNull())
        .drop("_cut")
    )


def _ends_at(asks: Any, logs: Any) -> Any:
    """Each ask gets the log end as of its time (raw and monotonic): one sort of both tables by time."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    samples = logs.select(
        *KEY,
        F.col("ts").alias("at"),
        F.lit(-1).alias("role"),
        F.col("end").alias("s_end"),
        F.when(F.col("mono"), F.col("end")).alias("s_mono"),
    )
    merged = asks.unionByName(samples, allowMissingColumns=True)
    upto = Window.partitionBy(*KEY).orderBy("at", "role").rowsBetween(Window.unboundedPreceding, Window.currentRow)
    merged = merged.withColumn("end_at", F.last("s_end", ignorenulls=True).over(upto)).withColumn(
        "mono_end_at", F.last("s_mono", ignorenulls=True).over(upto)
    )
    return merged.where(F.col("role") >= 0).drop("s_end", "s_mono")


def _ends_at_polls(asks: Any, logs: Any) -> Any:
    """Each ask gets the log sample taken at its very time (raw end and the monotonic end, `peak`): an
    equi-join on (partition, time) instead of _ends_at's sort of both tables, and the same answer where
    `lag record` stamped the commits and log ends of a poll with one time. Asks with no sample at their
    time get null ends. A shuffled hash join: a sort-merge join sorts both sides (at 40M asks, 38 s against
    20 s). bench/lag.py measures it against _ends_at; the pipeline does not use it, since it was no faster
    there (docs/lag.md) and a history with open asks would need the as-of pass as well."""
    from pyspark.sql import functions as F

    samples = logs.select(
        *KEY, F.col("ts").alias("at"), F.col("end").alias("end_at"), F.col("peak").alias("mono_end_at")
    )
    return asks.join(samples.hint("shuffle_hash"), [*KEY, "at"], "left")


def _time_lag(asks: Any, mono: Any) -> Any:
    """assignors.lag.time_lag's interpolation for every ask: the last monotonic sample at or below the offset, found by one sort by offset;
    the partition's first sample (the lower bound's anchor) comes from the same sort."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    samples = mono.select(
        *KEY,
        F.col("end").alias("key"),
        F.lit(0).alias("kind"),
        F.col("ts").alias("k_ts"),
        F.struct(F.col("ts").alias("t0"), F.col("end").alias("o0"), "t1", "o1").alias("s"),
    )
    merged = (
        asks.withColumn("key", F.col("c"))
        .withColumn("kind", F.lit(1))
        .withColumn("k_ts", F.lit(None).cast("long"))
        .unionByName(samples, allowMissingColumns=True)
    )
    by_offset = Window.partitionBy(*KEY).orderBy("key", "kind", "k_ts")
    upto = by_offset.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    whole = by_offset.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)  # same sort, one pass
    merged = (
        merged.withColumn("below", F.last("s", ignorenulls=True).over(upto))
        .withColumn("t_first", F.min("k_ts").over(whole))
        .where(F.col("kind") == 1)
    )
    b = F.col("below")
    appended = b.t0 + F.expr("(c + 1 - below.o0) * (below.t1 - below.t0) div (below.o1 - below.o0)")
    appended = F.least(F.greatest(appended, b.t0), b.t1)
    unknown = F.col("mono_end_at").isNull()
    caught_up = F.col("c") >= F.col("mono_end_at")
    return (
        merged.withColumn(
            "lag_at", F.when(F.col("end_at").isNotNull(), F.greatest(F.lit(0), F.col("end_at") - F.col("c")))
        )
        .withColumn(
            "time_lag_ms",
            F.when(unknown, None)
            .when(caught_up, F.lit(0))
            .when(b.isNull(), F.greatest(F.lit(0), F.col("at") - F.col("t_first")))
            .otherwise(F.greatest(F.lit(0), F.col("at") - appended))
            .cast("long"),
        )
        .withColumn(
            "time_lag_method",
            F.when(unknown, "none")
            .when(caught_up, "caught-up")
            .when(b.isNull(), "lower-bound")
            .otherwise("interpolated"),
        )
        .drop("key", "kind", "k_ts", "below", "t_first", "mono_end_at", *KEY)
    )


def _partition_columns(parts: Any, query: LagQuery) -> Any:
    """The per-partition report columns, Burrow's rules included (burrow_status.partition_status)."""
    from pyspark.sql import functions as F

    allowed, as_of = query.allowed_lag, query.as_of
    c, start, end = F.col("committed"), F.col("start"), F.col("log_end")
    lag = F.when(end.isNull(), None).when(c.isNull(), end - start).otherwise(end - F.least(F.greatest(c, start), end))
    parts = parts.withColumn("w", F.coalesce("w", F.array())).withColumn("lag", lag)
    # Spark 4 runs ANSI SQL: an index past the end raises, so every lookup is try_element_at (1-based)
    first, last = F.expr("try_element_at(w, 1)"), F.expr("try_element_at(w, -1)")
    idle = (F.col("b_count") >= 2) & (F.col("b_min") == F.col("b_max"))
    stopped = F.lit(as_of) - last.ts > last.ts - first.ts
    recently_caught_up = F.col("b_min") <= last.offset
    drop = (
        "try_element_at(filter(sequence(1, size(w)), i -> i >= 2 AND "
        "try_element_at(w, i).offset < try_element_at(w, i - 1).offset), 1)"
    )  # 1-based, or null
    rewound = F.expr(
        f"coalesce(NOT exists(sequence({drop}, size(w)), "
        f"j -> try_element_at(w, j).offset >= try_element_at(w, {drop} - 1).offset), false)"
    )
    ever_zero = F.expr(f"exists(w, x -> x.lag IS NOT NULL AND x.lag <= {allowed})")
    stalled = F.expr("forall(w, x -> x.offset = try_element_at(w, 1).offset)")
    lags = "filter(w, x -> x.lag IS NOT NULL)"
    decreased = F.expr(
        f"exists(sequence(1, size({lags})), i -> i >= 2 AND "
        f"try_element_at({lags}, i).lag < try_element_at({lags}, i - 1).lag)"
    )
    status = (
        F.when(F.col("lag").isNull(), "UNKNOWN")
        .when((F.size("w") == 0) | (F.col("lag") <= allowed), "OK")
        .when(stopped & ~F.coalesce(recently_caught_up, F.lit(False)) & ~F.coalesce(idle, F.lit(False)), "STOP")
        .when(rewound, "REWIND")
        .when(~ever_zero & stalled, "STALL")
        .when(~ever_zero & ~decreased, "WARN")
        .otherwise("OK")
    )
    span = F.lit(as_of) - first.ts
    has_rates = (F.size("w") > 0) & (span > 0)
    consume = F.when(has_rates, (last.offset - first.offset) * F.lit(1000.0) / span)
    produce = F.when(
        has_rates & first.end_at.isNotNull() & end.isNotNull(), (end - first.end_at) * F.lit(1000.0) / span
    )
    eta = (
        F.when(produce.isNull(), None)
        .when(F.col("lag") == 0, F.lit(0.0))
        .when(F.col("lag").isNotNull() & (consume > produce), F.col("lag") / (consume - produce))
    )
    return parts.select(
        "cluster",
        "group",
        "topic",
        "partition",
        "member_id",
        "client_id",
        "host",
        c.alias("committed_offset"),
        start.alias("log_start_offset"),
        end.alias("log_end_offset"),
        "lag",
        c.isNull().alias("never_committed"),
        F.coalesce(c < start, F.lit(False)).alias("below_log_start"),
        "time_lag_ms",
        F.coalesce("time_lag_method", F.lit("none")).alias("time_lag_method"),
        status.alias("status"),
        F.coalesce(idle, F.lit(False)).alias("idle"),
        F.size("w").alias("window_commits"),
        F.when(F.size("w") > 0, last.ts).alias("last_commit_ts"),
        consume.alias("consume_rate"),
        produce.alias("produce_rate"),
        (produce - consume).alias("trend"),
        eta.alias("eta_s"),
    )


def _rollups(parts: Any) -> Any:
    """lag_rollup.rollups as one aggregation per level."""
    from pyspark.sql import functions as F

    # Spark gets the statuses' text, as its own `status` column holds it
    rank = F.create_map(*[x for status, r in RANK.items() for x in (F.lit(str(status)), F.lit(r))])
    unrank = F.create_map(*[x for status, r in RANK.items() for x in (F.lit(r), F.lit(str(status)))])
    lagging = F.coalesce(F.col("lag"), F.lit(0)) > 0
    method_rank = F.create_map(*[x for m, r in METHOD_RANK.items() for x in (F.lit(m), F.lit(r))])
    rank_method = F.create_map(*[x for m, r in METHOD_RANK.items() for x in (F.lit(r), F.lit(m))])
    # the max time lag with, on ties, the least certain method (lag_rollup._rollup)
    late = F.when(
        F.col("time_lag_ms").isNotNull(),
        F.struct(F.col("time_lag_ms").alias("ms"), method_rank[F.col("time_lag_method")].alias("r")),
    )
    frames = []
    for level, name in (
        (GROUP, F.col("group")),
        (TOPIC, F.col("topic")),
        (MEMBER, F.coalesce(F.when(F.col("member_id") != "", F.col("member_id")), F.lit("-"))),
    ):
        frames.append(
            parts.withColumn("name", name)
            .groupBy("cluster", "group", "name")
            .agg(
                F.lit(level).alias("level"),
                F.count("*").alias("partitions"),
                F.sum(F.coalesce("lag", F.lit(0))).alias("lag"),
                F.max(F.coalesce("lag", F.lit(0))).alias("max_lag"),
                F.max("time_lag_ms").alias("max_time_lag_ms"),
                F.coalesce(rank_method[F.max(late)["r"]], F.lit("none")).alias("max_time_lag_method"),
                F.sum(lagging.cast("int")).alias("lagging"),
                unrank[F.max(rank[F.col("status")])].alias("status"),
                # ordered_sum: smallest first, so every engine and plan adds the same floats in the same order
                F.when(
                    F.count("trend") > 0,
                    F.aggregate(F.array_sort(F.collect_list("trend")), F.lit(0.0), lambda acc, x: acc + x),
                ).alias("trend"),
                F.when(F.max(F.when(lagging & F.col("eta_s").isNull(), 1)).isNotNull(), None)
                .otherwise(F.coalesce(F.max(F.when(lagging, F.col("eta_s"))), F.lit(0.0)))
                .alias("eta_s"),
                F.countDistinct(F.when(F.col("member_id") != "", F.col("member_id"))).alias("members"),
            )
        )
    return frames[0].unionByName(frames[1]).unionByName(frames[2])
