"""Lag pipeline benchmark (not a test): kgroup's Spark computations against DuckDB on the same Parquet.

Data: the shape of the engine measurements in docs/lag.md ("Which engine"), as `lag record` writes it. 500 topic-partitions (10 topics x 50), 4 groups per
topic, a poll every 30 s that stamps all its samples (commits and log ends) with one time, a commit dated
by the first poll that saw its offset, lognormal producer rates, consumers trailing by an exponential
delay, 5% of the partitions stalled half-way; written with NumPy in row groups of 1M (a vectorised cousin
of kgroup.assignors.lag.synthetic, whose pure-Python rows are for tests). Log-offset samples are a quarter
of the commit samples.
Queries, each run cold then warm in the same session:
  Q2 lag at every commit: the log end at each commit's observation. Spark runs the as-of path
     spark_job._ends_at that `lag analyze` takes, and the equi-join on partition and poll time that this
     data shape allows, spark_job._ends_at_polls (from Parquet: the log timeline is built inside the
     timing; docs/lag.md says why the pipeline does not use it). DuckDB runs its ASOF JOIN and the
     equi-join; the baseline is the faster of the two (both give the same answer here; the bench checks it);
  Q2 floor: the asks alone read, exchanged by partition and aggregated, no log sample read: what any Spark
     plan that shuffles each ask to its partition's samples pays before joining anything;
  Q3 time lag at every commit: spark_job._time_lag (offset as-of + lead, interpolation) vs DuckDB;
  both aggregated to max per (group, hour). Then the whole pipeline as a user runs it: a fresh
  `kgroup lag analyze DATASET --engine spark -o json` process with the session settings kgroup gives
  (the query sessions get the same ones), timed with its process tree's peak memory.
Baseline: DuckDB, measured in the same run; ratios are Spark / DuckDB (and Connect / local).
Targets (issue 23): at 200M, Spark within 2.0x of DuckDB for Q2 and Q3, the whole pipeline within 600 s,
Spark peak memory <= 6 GiB; the Connect path within 1.2x of local.
Each engine runs in its own process; peak memory is the process tree's (JVM included), sampled every 100 ms.

Usage: python bench/lag.py [--rows 10M,40M,200M] [--connect auto|sc://HOST:PORT] [--dir /tmp/kgroup-bench]
  --connect auto starts a Spark Connect server on loopback from the installed pyspark (local[2], 4g).
  A folder an older bench/lag.py generated (commits observed between the polls) is refused, not reused.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import nullcontext
from pathlib import Path

TOPICS, PARTITIONS, GROUPS_PER_TOPIC, INTERVAL_MS, START = 10, 50, 4, 30_000, 1_700_000_000_000
SHAPE = "_bench_shape"  # names the data's shape; readers skip names starting with '_'


def generate(folder: Path, commit_rows: int) -> None:
    """commit_rows commit samples and a quarter as many log samples, under folder/{commits,log_offsets};
    written in slices of about 10M rows, so 200M rows fit in memory.

    The shape `lag record` writes (inspectors.lag.sampler): every poll stamps all its samples, commits and
    log ends alike, with one observation time, and a commit is dated by the first poll that saw its
    offset (an offset seen again keeps that time)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from kgroup.inspectors.lag.dataset import MARKER, arrow_schema

    rng = np.random.default_rng(7)
    tps = TOPICS * PARTITIONS
    log_rows = commit_rows // 4
    polls = max(2, log_rows // tps)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MARKER).write_text(json.dumps({"schema": "kgroup-lag-history", "version": 1}))
    (folder / SHAPE).write_text("polled\n")
    rates = rng.lognormal(np.log(50), 1.0, tps)  # messages/s per partition
    t = START + np.arange(polls, dtype=np.int64) * INTERVAL_MS + rng.integers(0, 2_000, polls)  # poll times
    ends = np.cumsum(rng.poisson(np.outer(np.ones(polls), rates * INTERVAL_MS / 1000)), axis=0).astype(np.int64)
    topic = np.repeat(np.arange(TOPICS), PARTITIONS)
    part = np.tile(np.arange(PARTITIONS), TOPICS)
    topics = [f"topic-{i}" for i in range(TOPICS)]
    step = max(1, 10_000_000 // tps)  # polls per slice
    (folder / "log_offsets" / "date=bench").mkdir(parents=True, exist_ok=True)
    with pq.ParquetWriter(folder / "log_offsets" / "date=bench" / "part-0.parquet", arrow_schema("log_offsets")) as out:
        for first in range(0, polls, step):
            rows = slice(first, min(polls, first + step))
            k = rows.stop - rows.start
            ts = np.repeat(t[rows], tps)  # one time per poll, shared by every partition's sample
            out.write_table(
                pa.table(
                    {
                        "cluster": _strings(np.zeros(ts.size), ["bench"]),
                        "topic": _strings(np.tile(topic, k), topics),
                        "partition": np.tile(part, k).astype(np.int32),
                        "log_start_offset": np.zeros(ts.size, np.int64),
                        "high_watermark": ends[rows].ravel(),
                        "last_stable_offset": ends[rows].ravel(),
                        "ts": pa.array(ts, pa.timestamp("ms", "UTC")),
                    },
                    schema=arrow_schema("log_offsets"),
                ),
                row_group_size=1_000_000,
            )
    (folder / "commits" / "date=bench").mkdir(parents=True, exist_ok=True)
    per_group = max(1, commit_rows // (tps * GROUPS_PER_TOPIC))
    with pq.ParquetWriter(folder / "commits" / "date=bench" / "part-0.parquet", arrow_schema("commits")) as out:
        for g in range(GROUPS_PER_TOPIC):
            k_all = np.linspace(0, polls - 1, per_group).astype(np.int64)  # the polls that saw this group
            stalled = rng.random(tps) < 0.05
            stall_at = None
            last_offset = np.full(tps, -1, np.int64)  # carried across slices: the offset and when first seen
            last_seen = np.zeros(tps, np.int64)
            for first in range(0, per_group, step):
                k = k_all[first : first + step]
                delay = rng.exponential(2.0, (k.size, tps)).astype(np.int64)  # polls behind
                offsets = ends[np.clip(k[:, None] - delay, 0, polls - 1), np.arange(tps)]
                halfway = np.arange(first, first + k.size) >= per_group // 2
                if halfway.any():  # 5% of the partitions stop moving half-way through
                    if stall_at is None:
                        stall_at = offsets[np.argmax(halfway)]
                    offsets[np.ix_(halfway, stalled)] = stall_at[stalled]
                observed = np.repeat(t[k][:, None], tps, axis=1)
                previous = np.vstack([last_offset[None, :], offsets[:-1]])
                changed = np.where(offsets != previous, np.arange(k.size)[:, None], -1)
                since = np.maximum.accumulate(changed, axis=0)  # the row where the offset was first seen
                cts = np.where(since >= 0, np.take_along_axis(observed, np.maximum(since, 0), axis=0), last_seen)
                last_offset, last_seen = offsets[-1].copy(), cts[-1].copy()
                n = offsets.size
                out.write_table(
                    pa.table(
                        {
                            "cluster": _strings(np.zeros(n), ["bench"]),
                            "group": _strings(np.zeros(n), [f"group-{g}"]),
                            "topic": _strings(np.tile(topic, k.size), topics),
                            "partition": np.tile(part, k.size).astype(np.int32),
                            "committed_offset": offsets.ravel(),
                            "commit_ts": pa.array(cts.ravel(), pa.timestamp("ms", "UTC")),
                            "member_id": _strings(np.zeros(n), [f"m-{g}"]),
                            "client_id": _strings(np.zeros(n), ["c"]),
                            "host": _strings(np.zeros(n), ["/10.0.0.1"]),
                            "generation": np.ones(n, np.int32),
                            "observed_ts": pa.array(observed.ravel(), pa.timestamp("ms", "UTC")),
                        },
                        schema=arrow_schema("commits"),
                    ),
                    row_group_size=1_000_000,
                )


def _strings(indices, names: list[str]):  # type: ignore[no-untyped-def]
    """A string column from small integer codes, built in Arrow (a Python list of 50M strings would not fit)."""
    import pyarrow as pa

    codes = pa.array(indices.astype("int32"))
    return pa.DictionaryArray.from_arrays(codes, pa.array(names)).cast(pa.string())


DUCK_Q2 = """SELECT c."group", c.observed_ts // 3600000 AS hour, max(greatest(l.high_watermark - c.committed_offset, 0))
FROM (SELECT "group", topic, partition, committed_offset, epoch_ms(observed_ts) AS observed_ts FROM commits) c
ASOF JOIN (SELECT topic, partition, high_watermark, epoch_ms(ts) AS ts FROM leo) l
  ON c.topic = l.topic AND c.partition = l.partition AND c.observed_ts >= l.ts GROUP BY ALL"""
DUCK_Q2_EQUI = """SELECT c."group", c.observed_ts // 3600000 AS hour, max(greatest(l.high_watermark - c.committed_offset, 0))
FROM (SELECT "group", topic, partition, committed_offset, epoch_ms(observed_ts) AS observed_ts FROM commits) c
JOIN (SELECT topic, partition, high_watermark, epoch_ms(ts) AS ts FROM leo) l
  ON c.topic = l.topic AND c.partition = l.partition AND c.observed_ts = l.ts GROUP BY ALL"""
DUCK_Q3 = """WITH l2 AS (SELECT topic, partition, high_watermark AS o0, epoch_ms(ts) AS t0,
                   lead(high_watermark) OVER w AS o1, lead(epoch_ms(ts)) OVER w AS t1
            FROM leo WINDOW w AS (PARTITION BY topic, partition ORDER BY ts))
SELECT c."group", c.observed_ts // 3600000 AS hour,
       max(greatest(c.observed_ts - CASE WHEN o1 IS NULL OR o1 = o0 THEN c.observed_ts
                                   ELSE t0 + (c.committed_offset + 1 - o0) * (t1 - t0) // (o1 - o0) END, 0))
FROM (SELECT "group", topic, partition, committed_offset, epoch_ms(observed_ts) AS observed_ts FROM commits) c
ASOF JOIN l2 ON c.topic = l2.topic AND c.partition = l2.partition AND c.committed_offset >= l2.o0
GROUP BY ALL"""


def duckdb_engine(folder: Path, runs: tuple[str, ...]) -> dict:
    import duckdb

    con = duckdb.connect()
    con.execute("SET threads=2")
    con.execute(f"CREATE VIEW commits AS SELECT * FROM read_parquet('{folder}/commits/*/*.parquet')")
    con.execute(f"CREATE VIEW leo AS SELECT * FROM read_parquet('{folder}/log_offsets/*/*.parquet')")
    out = {}
    for name, sql in (("q2_lag_asof", DUCK_Q2), ("q2_lag_equi", DUCK_Q2_EQUI), ("q3_time_lag", DUCK_Q3)):
        for run in runs:
            started = time.perf_counter()
            rows = con.execute(sql).fetchall()
            out[f"{name}_{run}"] = time.perf_counter() - started
            _progress("duckdb", name, run, out[f"{name}_{run}"])
        out[f"{name}_rows"], out[f"{name}_check"] = len(rows), sum(r[-1] or 0 for r in rows)
    return out


def _progress(engine: str, name: str, run: str, seconds: float) -> None:
    """One line per finished query on stderr, so a long run (200M) shows where it is and a stopped one
    leaves its numbers so far."""
    print(f"  {engine} {name} {run}: {seconds:.1f} s", file=sys.stderr, flush=True)


def spark_engine(folder: Path, url: str, runs: tuple[str, ...]) -> dict:

    from kgroup.inspectors.lag import spark_job
    from kgroup.inspectors.lag.spark_session import spark_session

    out = {}
    started = time.perf_counter()
    data_bytes = sum(f.stat().st_size for f in folder.rglob("*.parquet"))
    with spark_session(url, data_bytes=data_bytes) as spark:  # the settings `lag analyze` gives its session
        out["start"] = time.perf_counter() - started
        commits, logs = spark_job.read_tables(spark, str(folder))
        queries = _spark_queries(commits, logs)
        for name in ("q2_lag_poll", "q2_lag_asof", "q3_time_lag", "q2_floor"):
            for run in runs:  # a new plan each run: Spark would otherwise reuse the first's shuffles
                started = time.perf_counter()
                rows = queries()[name].collect()
                out[f"{name}_{run}"] = time.perf_counter() - started
                _progress(url, name, run, out[f"{name}_{run}"])
            out[f"{name}_rows"], out[f"{name}_check"] = len(rows), sum(r[-1] or 0 for r in rows)
            if name == "q2_lag_poll":  # asks with no log sample at their poll time: the pipeline would fall back
                out["q2_lag_poll_open"] = sum(r["open"] for r in rows)
    return out


def pipeline(folder: Path, url: str) -> dict:
    """The whole `lag analyze` as a user runs it: a fresh `kgroup` process with its own Spark session and
    default settings, its wall time and the peak memory of its process tree (the JVM included)."""
    kgroup = str(Path(sys.executable).parent / "kgroup")
    argv = [kgroup, "lag", "analyze", str(folder), "--bucket", "1h", "-o", "json"]
    argv += ["--engine", "spark"] if url.startswith("local") else ["--spark", url]
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, stderr, peak = _watched(process)
    seconds = time.perf_counter() - started
    _progress(url, "lag analyze", "once", seconds)
    failed = (
        ""
        if process.returncode == 0
        else f"exit {process.returncode}: {stderr.strip().splitlines()[-1] if stderr.strip() else ''}"
    )
    return {"seconds": seconds, "peak_rss_gib": peak[0] / 2**30, "failed": failed}


def _spark_queries(commits, logs):  # type: ignore[no-untyped-def]
    """Q2 and Q3 as the pipeline computes them (spark_job's as-of helpers), rebuilt on every call."""

    def build() -> dict:
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        from kgroup.assignors.lag.samples import LagQuery
        from kgroup.inspectors.lag import spark_job

        gtp = ["cluster", "group", "topic", "partition"]
        ends = spark_job.keyed(logs).withColumn("end", F.col("high_watermark")).withColumn("mono", F.lit(True))
        asks = spark_job.keyed(commits).select(
            *spark_job.KEY,
            *gtp,
            F.col("committed_offset").alias("c"),
            F.col("observed_ts").alias("at"),
            F.lit(0).alias("role"),
        )
        hour = (F.col("at") / 3_600_000).cast("long")
        lag_at = F.max(F.greatest(F.lit(0), F.col("end_at") - F.col("c")))
        q2 = spark_job._ends_at(asks, ends).groupBy("group", hour).agg(lag_at)
        # the equi-join this data shape allows: the log timeline (built from Parquet here, as the pipeline
        # builds it once) joined on poll time, with the count of asks it leaves open
        timeline = spark_job._log_timeline(spark_job.keyed(logs), LagQuery(as_of=2**62))
        q2_poll = (
            spark_job._ends_at_polls(asks, timeline)
            .groupBy("group", hour)
            .agg(F.count(F.when(F.col("end_at").isNull(), 1)).alias("open"), lag_at)
        )
        w = Window.partitionBy(*spark_job.KEY).orderBy("ts")
        mono = (
            ends.select(*spark_job.KEY, "ts", "end")
            .withColumn("t1", F.lead("ts").over(w))
            .withColumn("o1", F.lead("end").over(w))
        )
        asked = asks.withColumn("end_at", F.lit(None).cast("long")).withColumn("mono_end_at", F.lit(2**62))
        q3 = spark_job._time_lag(asked, mono).groupBy("group", hour).agg(F.max("time_lag_ms"))
        # the floor under any Spark plan that brings each ask to its partition's log samples through a
        # shuffle: the asks read, exchanged by partition and aggregated, with no log sample read or joined
        floor = asks.repartition(*spark_job.KEY).groupBy("group", hour).agg(F.max("c"))
        return {"q2_lag_poll": q2_poll, "q2_lag_asof": q2, "q3_time_lag": q3, "q2_floor": floor}

    return build


def _connect_server():  # type: ignore[no-untyped-def]
    """The Spark tests' loopback Connect server, with the 4g driver a local session gets
    (spark_session.LOCAL_DRIVER_MEMORY_GIB)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository, for tests.spark
    from tests.spark.connect_server import loopback_connect_server

    return loopback_connect_server(Path(tempfile.mkdtemp(prefix="kgroup-bench-connect-")), "--driver-memory", "4g")


def _tree_rss(pid: int) -> int:
    import psutil

    try:
        root = psutil.Process(pid)
        return sum(p.memory_info().rss for p in [root, *root.children(recursive=True)])
    except psutil.Error:
        return 0


def _watched(process: subprocess.Popen, also: int | None = None) -> tuple[str, str, list[int]]:
    """process.communicate(), sampling the peak memory of its process tree, and of `also`'s (a Connect
    server), every 100 ms while it runs: (stdout, stderr, [its peak, also's peak]) in bytes."""
    peak = [0, 0]

    def sample() -> None:
        while process.poll() is None:
            peak[0] = max(peak[0], _tree_rss(process.pid))
            if also:
                peak[1] = max(peak[1], _tree_rss(also))
            time.sleep(0.1)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    stdout, stderr = process.communicate()
    thread.join()
    return stdout, stderr, peak


def _measured(args: list[str], also: int | None = None) -> dict:
    """Run one engine in its own process and sample the process tree's memory (and `also`'s tree)."""
    process = subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE, text=True)
    stdout, _, peak = _watched(process, also)
    if process.returncode:
        raise SystemExit(f"{args} failed with exit {process.returncode}")
    return {
        **json.loads(stdout.strip().splitlines()[-1]),
        "peak_rss_gib": peak[0] / 2**30,
        "other_peak_rss_gib": peak[1] / 2**30,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", default="10M")
    parser.add_argument(
        "--connect", default=None, help="also run through Spark Connect: auto (start one on loopback) or sc://HOST:PORT"
    )
    parser.add_argument("--dir", default="/tmp/kgroup-bench")
    parser.add_argument("--cold-only", action="store_true", help="run each query once (for 200M: hours otherwise)")
    parser.add_argument("--engine", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--data", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    runs = ("cold",) if args.cold_only else ("cold", "warm")
    run = runs[-1]  # the run the ratios compare
    if args.engine:
        result = (
            duckdb_engine(Path(args.data), runs)
            if args.engine == "duckdb"
            else spark_engine(Path(args.data), args.engine, runs)
        )
        print(json.dumps(result))
        return
    for size in args.rows.split(","):
        rows = int(float(size.upper().rstrip("M")) * 1_000_000)
        folder = Path(args.dir) / f"rows-{rows}"
        if folder.exists() and not (folder / SHAPE).exists():
            raise SystemExit(
                f"{folder}: generated by an older bench/lag.py (commits between the polls); remove it "
                "or give another --dir"
            )
        if not folder.exists():
            started = time.perf_counter()
            generate(folder, rows)
            print(f"generated {rows:,} commit samples in {time.perf_counter() - started:.1f} s")
        once = ["--cold-only"] if args.cold_only else []
        duck = _measured(["--engine", "duckdb", "--data", str(folder), *once])
        spark = _measured(["--engine", "local[2]", "--data", str(folder), *once])
        print(f"\n{rows:,} commit samples, {rows // 4:,} log samples (one time per poll, as `lag record` writes)")
        d2 = {q: duck[f"{q}_{run}"] for q in ("q2_lag_asof", "q2_lag_equi")}
        best = min(d2, key=d2.get)  # type: ignore[arg-type]
        agree = (duck["q2_lag_asof_rows"], duck["q2_lag_asof_check"]) == (
            duck["q2_lag_equi_rows"],
            duck["q2_lag_equi_check"],
        )
        print(
            f"duckdb lag at every commit: ASOF JOIN {d2['q2_lag_asof']:.2f}s, equi-join {d2['q2_lag_equi']:.2f}s "
            f"({run}); baseline: the {'ASOF JOIN' if best == 'q2_lag_asof' else 'equi-join'}"
            f"{'' if agree else '   DUCKDB QUERIES DIFFER'}"
        )
        print(f"{'query':24} {'duckdb ' + run:>12} {'spark ' + run:>11} {'ratio':>6}   (target <= 2.0 at 200M)")
        for q, baseline, label in (
            ("q2_lag_asof", best, "q2 lag (as-of, pipeline)"),
            ("q2_lag_poll", best, "q2 lag (equi-join)"),
            ("q3_time_lag", "q3_time_lag", "q3 time lag"),
        ):
            d, s = duck[f"{baseline}_{run}"], spark[f"{q}_{run}"]
            same = (
                "same result"
                if (duck[f"{baseline}_rows"], duck[f"{baseline}_check"]) == (spark[f"{q}_rows"], spark[f"{q}_check"])
                else f"RESULTS DIFFER: duckdb {duck[f'{baseline}_rows']} rows, sum {duck[f'{baseline}_check']}; "
                f"spark {spark[f'{q}_rows']} rows, sum {spark[f'{q}_check']}"
            )
            print(
                f"{label:24} {d:11.2f}s {s:10.2f}s {s / d:6.2f}   cold {duck[f'{baseline}_cold']:.2f}s / "
                f"{spark[f'{q}_cold']:.2f}s   {same}"
            )
        floor = spark[f"q2_floor_{run}"]
        print(
            f"floor: the asks alone read, exchanged by partition and aggregated (no log sample joined): "
            f"{floor:.2f}s, {floor / duck[f'{best}_{run}']:.2f}x the q2 baseline; a Spark plan that shuffles the "
            f"asks to their partition's samples cannot be faster"
        )
        print(f"equi-join asks left open (no sample at their poll time): {spark['q2_lag_poll_open']}")
        print(f"spark start {spark['start']:.1f} s")
        print(
            f"peak memory: duckdb {duck['peak_rss_gib']:.2f} GiB, spark {spark['peak_rss_gib']:.2f} GiB (target <= 6)"
        )
        whole = pipeline(folder, "local[*]")
        print(
            f"kgroup lag analyze --engine spark: {whole['seconds']:.1f} s (target <= 600 at 200M), peak "
            f"{whole['peak_rss_gib']:.2f} GiB (target <= 6){'   FAILED ' + whole['failed'] if whole['failed'] else ''}"
        )
        if args.connect:
            with _connect_server() if args.connect == "auto" else nullcontext((args.connect, None)) as (url, pid):
                remote = _measured(["--engine", url, "--data", str(folder), *once], also=pid)
                remote_whole = pipeline(folder, url)
            for q in ("q2_lag_poll", "q2_lag_asof", "q3_time_lag"):
                same = (remote[f"{q}_rows"], remote[f"{q}_check"]) == (spark[f"{q}_rows"], spark[f"{q}_check"])
                print(
                    f"connect {q} {run}: {remote[f'{q}_{run}']:.2f} s, ratio to local "
                    f"{remote[f'{q}_{run}'] / spark[f'{q}_{run}']:.2f} (target <= 1.2)"
                    f"   {'same result' if same else 'RESULTS DIFFER from local'}"
                )
            print(
                f"connect kgroup lag analyze: {remote_whole['seconds']:.1f} s (local {whole['seconds']:.1f} s)"
                f"{'   FAILED ' + remote_whole['failed'] if remote_whole['failed'] else ''}"
            )
            server = (
                f", server {remote['other_peak_rss_gib']:.2f} GiB" if pid else " (the server is not ours to measure)"
            )
            print(f"connect peak memory: client {remote['peak_rss_gib']:.2f} GiB{server}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    main()
