"""The offset-history data set on disk: two Parquet tables partitioned by date, schema version 1.

    DATASET/_kgroup_dataset.json                     {"schema": "kgroup-lag-history", "version": 1}
    DATASET/commits/date=YYYY-MM-DD/part-*.parquet   `commits`
    DATASET/log_offsets/date=YYYY-MM-DD/part-*.parquet   `log_offsets`
    DATASET/gaps/date=YYYY-MM-DD/part-*.parquet      when `lag record` could not poll
    DATASET/share_partitions/date=YYYY-MM-DD/part-*.parquet   share groups' share-partitions (KIP-932)

The columns of each table: docs/lag.md, "The offset-history data set".

`gaps` is optional (older histories have none): one row per outage the recorder rode out, from the last
poll it wrote (`start_ts`) to the first poll after the outage (`end_ts`; null when the recording ended in
it), with the error that opened it. The analysis never evaluates inside a gap, so blind time cannot look
like a consumer that stopped committing (STOP).

Each append is one new file per table and date, written under a dot-name and renamed into place: Spark,
pyarrow and DuckDB skip names starting with '.' or '_', so a reader never sees a half-written file, and an
interrupted writer leaves the data set valid. pyarrow is imported on first use (the `spark` extra).
"""

from __future__ import annotations

import json
import os
import uuid
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from kgroup.assignors.lag.samples import SHARE_PARTITION_LAG, CommitSample, LogSample, ShareSample
from kgroup.inspectors.errors import InputError

MARKER = "_kgroup_dataset.json"
SCHEMA_NAME, VERSION = "kgroup-lag-history", 1
COMMITS, LOG_OFFSETS, GAPS = "commits", "log_offsets", "gaps"
# Share groups (KIP-932) commit no offsets: their polls go to a table of their own, optional like `gaps`, so
# no reader of `commits` (an older kgroup, a Spark job, a user's query) takes a share-partition's start
# offset for a committed offset; `lag_kind` says what its `lag` is.
SHARES = "share_partitions"
EXTRA_HINT = "pip install 'kgroup[spark]'"

# column -> (kind, nullable); kinds are checked the same way on pyarrow and on Spark schemas
COLUMNS: dict[str, dict[str, tuple[str, bool]]] = {
    COMMITS: {
        "cluster": ("string", False),
        "group": ("string", False),
        "topic": ("string", False),
        "partition": ("int", False),
        "committed_offset": ("long", True),
        "commit_ts": ("timestamp", False),
        "member_id": ("string", True),
        "client_id": ("string", True),
        "host": ("string", True),
        "generation": ("int", True),
        "observed_ts": ("timestamp", False),
    },
    LOG_OFFSETS: {
        "cluster": ("string", False),
        "topic": ("string", False),
        "partition": ("int", False),
        "log_start_offset": ("long", False),
        "high_watermark": ("long", False),
        "last_stable_offset": ("long", True),
        "ts": ("timestamp", False),
    },
    SHARES: {
        "cluster": ("string", False),
        "group": ("string", False),
        "topic": ("string", False),
        "partition": ("int", False),
        "start_offset": ("long", True),
        "lag": ("long", True),
        "lag_kind": ("string", False),
        "start_ts": ("timestamp", False),
        "members": ("string", True),
        "group_epoch": ("int", True),
        "observed_ts": ("timestamp", False),
    },
    GAPS: {
        "cluster": ("string", False),
        "start_ts": ("timestamp", False),
        "end_ts": ("timestamp", True),
        "attempts": ("int", False),
        "reason": ("string", False),
    },
}
_TIME_COLUMNS = {"commit_ts", "observed_ts", "ts", "start_ts", "end_ts"}


def pyarrow() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet  # noqa: F401  (registers pa.parquet)
    except ImportError:
        raise InputError(f"the offset history is Parquet, which needs pyarrow: {EXTRA_HINT}") from None
    return pa


def arrow_schema(table: str) -> Any:
    pa = pyarrow()
    kinds = {"string": pa.string(), "int": pa.int32(), "long": pa.int64(), "timestamp": pa.timestamp("ms", "UTC")}
    return pa.schema([pa.field(name, kinds[kind], nullable) for name, (kind, nullable) in COLUMNS[table].items()])


def create(path: str) -> None:
    """Make `path` a data set (or check that it is one)."""
    marker = os.path.join(path, MARKER)
    if os.path.exists(marker):
        check_marker(path)
        return
    if os.path.exists(path) and os.listdir(path):
        raise InputError(f"{path!r}: the folder exists and is not a kgroup offset history", field="--out")
    try:
        os.makedirs(path, exist_ok=True)
        with open(marker, "w", encoding="utf-8") as out:
            json.dump({"schema": SCHEMA_NAME, "version": VERSION}, out)
    except OSError as exc:
        raise InputError(f"{path!r}: cannot create the data set: {exc.strerror}", field="--out") from None


def check_marker(path: str) -> None:
    marker = os.path.join(path, MARKER)
    try:
        with open(marker, encoding="utf-8") as handle:
            found = json.load(handle)
    except FileNotFoundError:
        raise InputError(
            f"{path!r}: not a kgroup offset history (no {MARKER}; `kgroup lag record` makes one)", field="DATASET"
        ) from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read it: {exc}", source=marker) from None
    if not isinstance(found, dict) or found.get("schema") != SCHEMA_NAME:
        raise InputError(f"schema: expected {SCHEMA_NAME!r}", source=marker)
    if found.get("version") != VERSION:
        raise InputError(
            f"version: {found.get('version')!r} is not supported (this kgroup reads {VERSION})", source=marker
        )


def append(path: str, commits: list[CommitSample], logs: list[LogSample], shares: Iterable[ShareSample] = ()) -> None:
    """Append one poll's samples: one file per table and date, each renamed into place when complete."""
    _write(path, COMMITS, [_row(s) for s in commits], lambda r: r["observed_ts"])
    _write(path, LOG_OFFSETS, [_row(s) for s in logs], lambda r: r["ts"])
    _write(path, SHARES, [_share_row(s) for s in shares], lambda r: r["observed_ts"])


def _share_row(sample: ShareSample) -> dict[str, Any]:
    # member ids are base64 Uuids (KIP-1082): a comma never occurs in one
    return {**_row(sample), "lag_kind": SHARE_PARTITION_LAG, "members": ",".join(sample.members) or None}


def read_shares(path: str, skip: frozenset[str] = frozenset()) -> list[ShareSample]:
    """Every share-partition sample (none for a history without the table)."""
    found = []
    for file, row in _checked_rows(path, SHARES, skip):
        if row.pop("lag_kind") != SHARE_PARTITION_LAG:  # a kind this kgroup does not know is not guessed at
            raise InputError(f"{SHARES}.lag_kind: expected {SHARE_PARTITION_LAG!r}", source=file)
        for column in ("start_ts", "observed_ts"):
            row[column] = _millis(row[column])
        row["members"] = tuple(row["members"].split(",")) if row["members"] else ()
        found.append(ShareSample(**row))
    return found


def _checked_rows(path: str, table: str, skip: frozenset[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each row of `table`'s files (but those in `skip`) with the file it came from, once the file's columns
    and required values are checked against the schema."""
    pa = pyarrow()
    for file in table_files(path, table):
        if file in skip:
            continue
        try:
            data = pa.parquet.read_table(file)
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"cannot read it as Parquet: {exc}", source=file) from None
        check_columns(table, {f.name: arrow_kind(f.type) for f in data.schema}, file)
        _require_values(table, data, file)
        for row in data.select(list(COLUMNS[table])).to_pylist():
            yield file, row


def append_gap(path: str, gap: dict[str, Any]) -> None:
    """One outage: cluster, start_ts, end_ts (None while it lasted to the end), attempts, reason."""
    _write(path, GAPS, [gap], lambda r: r["start_ts"])


def read_gaps(path: str, skip: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """Every recorded gap, oldest first (an empty list for a history without the table)."""
    pa = pyarrow()
    rows: list[dict[str, Any]] = []
    for file in table_files(path, GAPS):
        if file in skip:
            continue
        try:
            data = pa.parquet.read_table(file)
        except (OSError, pa.ArrowException) as exc:
            raise InputError(
                f"cannot read it as Parquet: {exc} (--skip-bad-files leaves it out)", source=file
            ) from None
        for row in data.select(list(COLUMNS[GAPS])).to_pylist():
            for column in ("start_ts", "end_ts"):
                row[column] = None if row[column] is None else _millis(row[column])
            rows.append(row)
    return sorted(rows, key=lambda r: (r["start_ts"], r["cluster"]))


def _row(sample: CommitSample | LogSample | ShareSample) -> dict[str, Any]:
    return {name: getattr(sample, name) for name in sample.__dataclass_fields__}


def _write(path: str, table: str, rows: list[dict[str, Any]], day_of: Any) -> None:
    if not rows:
        return
    pa = pyarrow()
    by_day: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_day[datetime.fromtimestamp(day_of(row) / 1000, tz=timezone.utc).strftime("%Y-%m-%d")].append(row)
    for day, day_rows in sorted(by_day.items()):
        folder = os.path.join(path, table, f"date={day}")
        os.makedirs(folder, exist_ok=True)
        name = f"part-{min(day_of(r) for r in day_rows)}-{uuid.uuid4().hex[:12]}.parquet"
        temporary = os.path.join(folder, f".{name}.tmp")
        columns = {c: [r[c] for r in day_rows] for c in COLUMNS[table]}
        pa.parquet.write_table(pa.table(columns, schema=arrow_schema(table)), temporary)
        os.replace(temporary, os.path.join(folder, name))


def table_files(path: str, table: str) -> list[str]:
    """The visible Parquet files of one table (what a reader would pick up)."""
    found = []
    for root, dirs, files in os.walk(os.path.join(path, table)):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        found.extend(
            os.path.join(root, f) for f in sorted(files) if f.endswith(".parquet") and not f.startswith((".", "_"))
        )
    return found


def newest_commits(
    path: str, skip_bad: bool = False
) -> tuple[dict[tuple[str, str, str, int], tuple[int, int]], list[str]]:
    """(cluster, group, topic, partition) -> (offset, commit time) as the newest poll in the data set saw it:
    a recording that resumes keeps dating an unchanged offset from when it was first seen. Only the newest
    day is read (every poll writes every recorded partition), with Arrow's group-by, not row by row.
    With `skip_bad`, a file that cannot be read is left out and named in the second value."""
    check_marker(path)
    found: dict[tuple[str, str, str, int], tuple[int, int]] = {}
    skipped: list[str] = []
    # a share group's start offset is dated as a commit is (sampler.Sampler._commit_time)
    for table, offset, since in ((COMMITS, "committed_offset", "commit_ts"), (SHARES, "start_offset", "start_ts")):
        got, bad = _newest(path, table, offset, since, skip_bad)
        found |= got
        skipped += bad
    return found, skipped


def _newest(
    path: str, table: str, offset: str, since: str, skip_bad: bool
) -> tuple[dict[tuple[str, str, str, int], tuple[int, int]], list[str]]:
    pa = pyarrow()
    every = table_files(path, table)
    if not every:
        return {}, []
    newest_day = max(os.path.dirname(f) for f in every)
    files = [f for f in every if os.path.dirname(f) == newest_day]
    keys = ["cluster", "group", "topic", "partition"]
    tables, skipped = [], []
    for file in files:
        try:
            tables.append(pa.parquet.read_table(file, columns=[*keys, offset, since, "observed_ts"]))
        except (OSError, pa.ArrowException) as exc:
            if not skip_bad:
                raise InputError(f"cannot read it as Parquet: {exc}", source=file) from None
            skipped.append(file)
    if not tables:
        return {}, skipped
    data = pa.concat_tables(tables)
    _require_values(table, data, newest_day)
    newest = (
        data.sort_by("observed_ts").group_by(keys, use_threads=False).aggregate([(offset, "last"), (since, "last")])
    )
    found = {}
    for row in newest.to_pylist():
        if row[f"{offset}_last"] is not None:
            found[(row["cluster"], row["group"], row["topic"], row["partition"])] = (
                row[f"{offset}_last"],
                _millis(row[f"{since}_last"]),
            )
    return found, skipped


def check_columns(table: str, found: dict[str, str], where: str) -> None:
    """`found`: column -> kind as the engine reports it. One line naming the column on a mismatch."""
    for name, (kind, _) in COLUMNS[table].items():
        if name not in found:
            raise InputError(
                f"{table}.{name}: missing column (expected {kind}; data set schema v{VERSION}, docs/lag.md)",
                source=where,
            )
        if found[name] != kind:
            raise InputError(f"{table}.{name}: is {found[name]}, expected {kind}", source=where)


def arrow_kind(arrow_type: Any) -> str:
    pa = pyarrow()
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "string"
    if pa.types.is_int32(arrow_type):
        return "int"
    if pa.types.is_int64(arrow_type):
        return "long"
    if pa.types.is_timestamp(arrow_type):
        return "timestamp"
    return str(arrow_type)


@dataclass(frozen=True)
class Survey:
    """What the footers say: the files that cannot be read (with why), and the size of the rest."""

    damaged: dict[str, str]
    rows: int  # commit and log samples in the readable files
    bytes: int
    oldest_ts: int | None  # the first observation, from the file names (part-<first observation ms>-...)


def survey(path: str) -> Survey:
    """Each visible file read up to its Parquet footer only, so this costs little even for a long history:
    a truncated or overwritten file is found before any engine starts, and the row count picks the engine."""
    pa = pyarrow()
    damaged, rows, size, oldest = {}, 0, 0, None
    for table in (COMMITS, LOG_OFFSETS, SHARES, GAPS):
        for file in table_files(path, table):
            # part-<first observation ms>-...; a file renamed by hand simply tells no time
            parts = os.path.basename(file).split("-")
            stamp = parts[1] if table in (COMMITS, SHARES) and len(parts) > 1 else ""
            if stamp.isdigit():
                oldest = int(stamp) if oldest is None else min(oldest, int(stamp))
            try:
                metadata = pa.parquet.ParquetFile(file).metadata
            except (OSError, pa.ArrowException) as exc:
                damaged[file] = str(exc)
                continue
            if table != GAPS:
                rows += metadata.num_rows
                size += os.path.getsize(file)
    return Survey(damaged, rows, size, oldest)


def read_samples(path: str, skip: frozenset[str] = frozenset()) -> tuple[list[CommitSample], list[LogSample]]:
    """The whole data set in memory, for the in-process reference and small histories; `skip`: files left out."""
    check_marker(path)
    out: dict[str, list[Any]] = {}
    for table, make in ((COMMITS, CommitSample), (LOG_OFFSETS, LogSample)):
        rows: list[Any] = []
        for _, row in _checked_rows(path, table, skip):
            for column in _TIME_COLUMNS & row.keys():
                row[column] = _millis(row[column])
            rows.append(make(**row))
        out[table] = rows
    return out[COMMITS], out[LOG_OFFSETS]


def _require_values(table: str, data: Any, where: str) -> None:
    """No nulls where the schema requires a value, and timestamps Python can represent (years 1 to 9999)."""
    pa = pyarrow()
    import pyarrow.compute as pc

    for name, (kind, nullable) in COLUMNS[table].items():
        if name not in data.column_names:
            continue
        column = data.column(name)
        if not nullable and column.null_count:
            raise InputError(
                f"{table}.{name}: {column.null_count} empty (null) values; the column is required", source=where
            )
        if kind == "timestamp" and len(column) - column.null_count:
            millis = column.cast(pa.timestamp("ms", "UTC"), safe=False).cast(pa.int64())
            low, high = pc.min(millis).as_py(), pc.max(millis).as_py()
            if low < _FIRST_MS or high > _LAST_MS:
                raise InputError(f"{table}.{name}: a timestamp outside the years 1 to 9999", source=where)


_FIRST_MS = -62135596800000  # 0001-01-01T00:00:00Z
_LAST_MS = 253402300799999  # 9999-12-31T23:59:59.999Z


def _millis(value: datetime) -> int:
    return int(value.timestamp() * 1000) if value.tzinfo else int(value.replace(tzinfo=timezone.utc).timestamp() * 1000)


def write_all(path: str, commits: Iterable[CommitSample], logs: Iterable[LogSample]) -> None:
    """A whole history at once (the synthetic generator, imports)."""
    create(path)
    append(path, list(commits), list(logs))
