"""A Spark session for `lag analyze`: embedded `local[*]` on loopback by default, or Spark Connect.

pyspark is imported here only, on first use. What goes wrong before any data moves (no pyspark, no java,
nothing listening at the Connect address) is one line and a documented exit code, not a JVM stack trace.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlparse

from kgroup.inspectors.errors import InputError, NotReachableError, RunError

Progress = Callable[[int, int], None]  # (tasks done, tasks known) of the running Spark job
EXTRA = "pip install 'kgroup[spark]'"


def _pyspark() -> Any:
    try:
        import pyspark
    except ImportError:
        raise InputError(f"lag analyze runs on Spark, and PySpark is not installed: {EXTRA}") from None
    return pyspark


BYTES_PER_SHUFFLE_PARTITION = 64 * 1024 * 1024
# Rows of one window partition (a topic partition's samples) kept on the heap before Spark's buffer turns
# into a sorter that spills under memory pressure; reading spills back takes a 1 MiB reader per file, and a
# 200M-sample history (900,000 rows a partition) ran out of heap there (docs/lag.md).
WINDOW_ROWS_IN_MEMORY = 2_000_000
LOCAL_DRIVER_MEMORY_GIB = 4  # what docs/benchmarks.md measured with; Spark's own default, 1g, fails long histories


def sized_settings(data_bytes: int | None) -> dict[str, str]:
    """What every session gets, local or Connect, before --spark-conf: shuffle partitions sized to the
    history (one per 64 MiB of Parquet, 2 to 200; Spark's default 200 makes a 3-partition history pay for
    hundreds of empty tasks), window buffers that hold a partition's samples on the heap, and UTC as the
    session time zone."""
    partitions = 8 if data_bytes is None else max(2, min(200, -(-data_bytes // BYTES_PER_SHUFFLE_PARTITION)))
    return {
        "spark.sql.shuffle.partitions": str(partitions),
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.windowExec.buffer.in.memory.threshold": str(WINDOW_ROWS_IN_MEMORY),
    }


def local_settings(physical_bytes: int) -> dict[str, str]:
    """A local session's JVM heap: 4 GiB, or a quarter of the machine's memory where that is less (at least
    1 GiB). The session's JVM is the only executor, so this is all the memory the job gets."""
    quarter_gib = physical_bytes // 4 // 2**30
    return {"spark.driver.memory": f"{max(1, min(LOCAL_DRIVER_MEMORY_GIB, quarter_gib))}g"}


def _physical_memory() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


@contextmanager
def spark_session(
    url: str, timeout_s: float = 10.0, conf: dict[str, str] | None = None, data_bytes: int | None = None
) -> Iterator[Any]:
    """`local[*]`, `local[N]` or `sc://host:port`; stopped on the way out. `conf`: --spark-conf settings
    (a local session takes them all at start; a Connect session takes the runtime SQL ones), over
    sized_settings(data_bytes), which both kinds of session get alike."""
    conf = {**sized_settings(data_bytes), **(conf or {})}
    _pyspark()
    from pyspark.logger import PySparkLogger
    from pyspark.sql import SparkSession

    # PySpark logs a failed query's context to stderr on its own; kgroup reports the failure in one line
    PySparkLogger.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL + 1)

    # PySpark marks the process as Connect-only in the environment and never unmarks it; a later local
    # session in the same process (tests, notebooks) would then refuse to start
    saved = {k: os.environ.get(k) for k in ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE")}
    if url.startswith("sc://"):
        _check_listening(url, timeout_s)
        spark = SparkSession.Builder().remote(url).getOrCreate()
        # the server reports progress every 2 s by default: a short job would show no bar at all
        for key, value in {"spark.connect.progress.reportInterval": "500ms", **(conf or {})}.items():
            spark.conf.set(key, value)
    elif url.startswith("local"):
        if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
            raise InputError(
                "Spark local needs Java 17 or later: `java` is not on PATH and JAVA_HOME is not set "
                "(or use --spark sc://HOST:PORT)",
                field="--spark",
            )
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # else Spark warns that the hostname is loopback
        with _jvm_stderr_to_log():
            builder = SparkSession.Builder()
            for key, value in {**local_settings(_physical_memory()), **conf}.items():
                builder = builder.config(key, value)
            spark = (
                builder.master(url)
                .appName("kgroup lag analyze")
                .config("spark.ui.enabled", "false")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .getOrCreate()
            )
        spark.sparkContext.setLogLevel("ERROR")
    else:
        raise InputError(f"{url!r}: expected local[*], local[N] or sc://HOST:PORT", field="--spark")
    try:
        yield spark
    finally:
        spark.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextmanager
def _jvm_stderr_to_log() -> Iterator[None]:
    """The JVM inherits file descriptor 2 when it starts: point it at a log file for that moment, so its
    start-up chatter (log4j, native-library warnings) stays out of the terminal; failures still reach kgroup
    as exceptions."""
    import tempfile

    log = os.path.join(tempfile.gettempdir(), f"kgroup-spark-{os.getuid()}.log")
    saved = os.dup(2)
    try:
        with open(log, "ab") as sink:
            os.dup2(sink.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _check_listening(url: str, timeout_s: float) -> None:
    """The Connect client retries for minutes when nobody listens; one TCP connect answers in the timeout."""
    parsed = urlparse(url.replace("sc://", "http://", 1))
    host, port = parsed.hostname or "", parsed.port or 15002
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            pass
    except OSError as exc:
        raise NotReachableError(
            f"Spark Connect at {host}:{port} did not answer within {timeout_s:g} s: {exc.strerror or exc}"
        ) from None


@contextmanager
def following(spark: Any, report: Progress | None) -> Iterator[None]:
    """Call `report` as the session's jobs progress: Connect's progress handler, or the local status tracker."""
    if report is None:
        yield
        return
    if _is_connect(spark):

        def handler(stages: Any, inflight_tasks: int, operation_id: Any, done: bool) -> None:
            # pyspark's Progress.finish calls with done=True and the stages of the server's last report, which
            # can predate the last tasks (the server reports every interval, not on completion): done is done
            total = sum(s.num_tasks for s in stages)
            report(total if done else sum(s.num_completed_tasks for s in stages), total)

        spark.registerProgressHandler(handler)
        try:
            yield
        finally:
            spark.removeProgressHandler(handler)
        return
    stop = threading.Event()
    tracker = spark.sparkContext.statusTracker()

    def poll() -> None:
        while not stop.wait(0.2):
            stages = [tracker.getStageInfo(s) for s in tracker.getActiveStageIds()]
            stages = [s for s in stages if s is not None]
            if stages:
                report(sum(s.numCompletedTasks for s in stages), sum(s.numTasks for s in stages))

    thread = threading.Thread(target=poll, name="kgroup-spark-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _is_connect(spark: Any) -> bool:
    return type(spark).__module__.startswith("pyspark.sql.connect")


def spark_failure(exc: Exception) -> Exception:
    """A failed Spark job as kgroup's error: a file Spark could not read is bad input; the rest failed."""
    text = str(exc)
    for marker in ("FAILED_READ_FILE", "CANNOT_READ_FILE_FOOTER", "not a Parquet file"):
        if marker in text:
            path = next((w.strip(".,'\"") for w in text.split() if w.startswith(("file:", "/"))), "a data set file")
            return InputError(f"cannot read it as Parquet ({marker})", source=path)
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(exc).__name__)
    return RunError(f"the Spark job failed: {first[:300]}")
