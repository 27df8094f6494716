"""Hostile and absurd input to every reader (hypothesis): exit 2, one line, nothing on stdout, in bounded
time and memory, and no secret echoed.

Each example runs the CLI in a forked child under a memory limit (RLIMIT_AS) and a cpu-time limit (RLIMIT_CPU),
with an alarm far beyond it for a child that blocks: a reader that allocates in proportion to a value, or never
ends, kills the child and fails the example. The bound is cpu time, not wall time, because CI runs these tests at
the lowest priority beside the live tests (.ci/run), where a child that needs one second of cpu can wait for it
longer than 20 s. The seeds are
the families a fuzz run found (issue 24); hypothesis varies them.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kgroup.cli.app import COMMANDS, app, load_command
from kgroup.inspectors.lag import dataset

SECONDS = 20  # of cpu: a bound, not a timing; a hang fails the example instead of the whole run
BLOCKED_SECONDS = 600  # of wall time, for a child that hangs without using cpu
HEADROOM = 400 * 1024 * 1024  # memory a reader may add to what the test process already maps
SETTINGS = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


for _name in ("check", "simulate", "groups", "coordinator", "offsets", "lag"):
    load_command(_name)  # imported once here, not again in every forked child
assert COMMANDS


def _mapped_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[0]) * resource.getpagesize()


def run_bounded(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[str, int, str, str]:
    """(how it ended, exit code, stdout, stderr) of `kgroup ARGS` in a child with limited memory and time."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: limit itself, run, report, and never return into pytest
        try:
            os.close(read_end)
            os.chdir(cwd)
            limit = _mapped_bytes() + HEADROOM
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            resource.setrlimit(resource.RLIMIT_CPU, (SECONDS, SECONDS + 5))  # SIGXCPU at SECONDS
            signal.alarm(BLOCKED_SECONDS)
            result = CliRunner().invoke(app, list(args), env=env)
            payload = json.dumps([result.exit_code, result.stdout, result.stderr]).encode()
            with os.fdopen(write_end, "wb") as out:
                out.write(payload)
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as source:
        payload = source.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        signalled = os.WTERMSIG(status)
        why = {
            signal.SIGXCPU: f"more than {SECONDS} s of cpu",
            signal.SIGALRM: f"blocked more than {BLOCKED_SECONDS} s",
        }.get(signalled, "")
        return (f"killed by signal {signalled} ({why or signal.Signals(signalled).name})", -1, "", "")
    if not payload:
        return ("no result (out of memory?)", -1, "", "")
    code, stdout, stderr = json.loads(payload)
    return ("finished", code, stdout, stderr)


def assert_refused(outcome: tuple[str, int, str, str], secret: str | None = None) -> str:
    how, code, stdout, stderr = outcome
    assert how == "finished", how
    assert code == 2, stderr
    assert stdout == ""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kgroup: error: "), stderr
    assert "internal error" not in stderr
    if secret is not None:
        assert secret not in stderr
    return lines[0]


def fixture_text(topic: str = "orders", partitions: str = "4", member: str = '"c1"', extra: str = "") -> str:
    return (
        f"schema: kgroup/v1\ncluster:\n  topics:\n    - {{name: {topic}, partitions: {partitions}}}\n"
        f"groups:\n  - group_id: g\n    members:\n      - {{member_id: {member}, topics: [{topic}]}}\n{extra}"
    )


def bomb(width: int, depth: int) -> str:
    rows = ["schema: kgroup/v1", f"l0: &l0 [{', '.join(['x'] * width)}]"]
    for level in range(1, depth):
        rows.append(f"l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * width)}]")
    return "\n".join(rows) + "\ncluster: {topics: []}\ngroups: []\n"


# -- fixtures ---------------------------------------------------------------------------------------------

huge_numbers = st.one_of(
    st.integers(min_value=1_000_001, max_value=2**70).map(str),
    st.integers(min_value=20, max_value=6000).map(lambda n: "9" * n),
    st.sampled_from(["2147483648", "9223372036854775808", "1e400", ".nan", "-.inf"]),
)


@SETTINGS
@given(partitions=huge_numbers)
@example(partitions="9223372036854775808")
@example(partitions="9" * 5000)
def test_fixture_partition_counts_past_the_limits(tmp_path: Path, partitions: str) -> None:
    (tmp_path / "f.yaml").write_text(fixture_text(partitions=partitions))
    line = assert_refused(run_bounded("check", "f.yaml", cwd=tmp_path))
    assert "f.yaml:4: cluster.topics[0].partitions" in line


@SETTINGS
@given(width=st.integers(min_value=5, max_value=12), depth=st.integers(min_value=6, max_value=9))
@example(width=9, depth=9)  # the classic billion laughs, about a kilobyte
def test_fixture_alias_bombs(tmp_path: Path, width: int, depth: int) -> None:
    (tmp_path / "f.yaml").write_text(bomb(width, depth))
    assert "aliases expand to more than" in assert_refused(run_bounded("check", "f.yaml", cwd=tmp_path))


bad_ids = st.one_of(
    st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3),
    st.text(st.characters(categories=["Cc"]), min_size=1, max_size=3),
)
bad_topics = st.one_of(
    bad_ids,
    st.integers(min_value=250, max_value=3000).map(lambda n: "t" * n),
    st.sampled_from([".", "..", "a b", "orders/1", "ördrës"]),
)


@SETTINGS
@given(name_where=st.one_of(st.tuples(bad_topics, st.just("topic")), st.tuples(bad_ids, st.just("member"))))
@example(name_where=("or\ud800ders", "topic"))
@example(name_where=("c\udc001", "member"))
def test_names_and_ids_that_kafka_could_not_carry(tmp_path: Path, name_where: tuple[str, str]) -> None:
    name, where = name_where
    quoted = json.dumps(name)  # a YAML double-quoted string: \\uD800 escapes included
    text = fixture_text(topic=quoted) if where == "topic" else fixture_text(member=quoted)
    (tmp_path / "f.yaml").write_text(text)
    assert_refused(run_bounded("check", "f.yaml", cwd=tmp_path))


@SETTINGS
@given(count=st.integers(min_value=1_500_001, max_value=3_000_000))
def test_long_flow_lists_are_refused_before_parsing(tmp_path: Path, count: int) -> None:
    (tmp_path / "f.yaml").write_text(fixture_text(extra="    assignment: {c1: [" + "orders-0," * count + "]}\n"))
    assert "values" in assert_refused(run_bounded("check", "f.yaml", cwd=tmp_path))


def test_a_device_that_never_ends(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text("schema: kgroup/v1\nkind: scenario\nfixture: /dev/zero\nevents: []\n")
    assert "larger than" in assert_refused(run_bounded("simulate", "s.yaml", cwd=tmp_path))


# -- scenarios and what-if flags --------------------------------------------------------------------------


@SETTINGS
@given(
    field=st.sampled_from(["duration", "at"]),
    value=st.one_of(
        st.integers(min_value=7 * 86_400_000 + 1, max_value=10**40).map(str),
        st.integers(min_value=20, max_value=5000).map(lambda n: "9" * n + "ms"),
    ),
)
@example(field="duration", value=str(10**30))
@example(field="at", value=str(10**30))
def test_scenario_times_past_the_simulated_limit(tmp_path: Path, field: str, value: str) -> None:
    at = value if field == "at" else "10s"
    duration = value if field == "duration" else "1m"
    text = fixture_text(extra=f"kind: scenario\nduration: {duration}\nevents: ['crash c1 at {at}']\n")
    (tmp_path / "s.yaml").write_text(text)
    assert_refused(run_bounded("simulate", "s.yaml", cwd=tmp_path))


@SETTINGS
@given(
    amount=st.one_of(
        st.integers(min_value=1_000_000, max_value=10**30).map(lambda n: f"+{n}"),
        st.integers(min_value=20, max_value=5000).map(lambda n: "9" * n),
    ),
    where=st.sampled_from(["flag", "event"]),
)
@example(amount="+100000000", where="flag")
@example(amount=str(2**63), where="event")
def test_adding_absurd_partition_counts(tmp_path: Path, amount: str, where: str) -> None:
    if where == "flag":
        (tmp_path / "f.yaml").write_text(fixture_text())
        outcome = run_bounded("simulate", "f.yaml", "--add-partitions", f"orders={amount}", cwd=tmp_path)
    else:
        (tmp_path / "s.yaml").write_text(
            fixture_text(extra=f"kind: scenario\nevents: ['add-partitions orders {amount} at 1s']\n")
        )
        outcome = run_bounded("simulate", "s.yaml", cwd=tmp_path)
    assert "partitions" in assert_refused(outcome)


@SETTINGS
@given(rate=st.sampled_from([".nan", ".inf", "-1", "1e300", "-.inf"]))
def test_produce_rates_that_are_not_rates(tmp_path: Path, rate: str) -> None:
    text = fixture_text(extra=f"kind: scenario\nproduce_rates: {{orders: {rate}}}\nevents: ['crash c1 at 1s']\n")
    (tmp_path / "s.yaml").write_text(text)
    assert "produce_rates.orders" in assert_refused(run_bounded("simulate", "s.yaml", cwd=tmp_path))


@SETTINGS
@given(
    args=st.one_of(
        st.integers(min_value=2**31, max_value=10**50).map(lambda n: ["coordinator", "g", "--partitions", str(n)]),
        st.integers(min_value=20, max_value=5000).map(
            lambda n: ["lag", "analyze", "h", "--in-process", "--since", "9" * n + "s"]
        ),
    )
)
@example(args=["coordinator", "g", "--partitions", "2147483648"])
@example(args=["lag", "analyze", "h", "--in-process", "--since", "9" * 5000])
def test_flag_values_past_int32_and_int64(tmp_path: Path, args: list[str]) -> None:
    assert_refused(run_bounded(*args, cwd=tmp_path))


# -- secret-bearing files ---------------------------------------------------------------------------------

secrets = st.text(
    st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="=:\\#!"), min_size=8, max_size=30
).map(lambda s: "S3CRET" + s)


@SETTINGS
@given(secret=secrets, shape=st.sampled_from(["continued", "=", ":", "bare"]))
@example(secret="S3CRET-XYZ", shape="continued")
def test_command_config_errors_never_quote_a_line(tmp_path: Path, secret: str, shape: str) -> None:
    body = {
        "continued": f"sasl.jaas.config=org.example.Login required \\\n\n{secret}\n",
        "=": f"security.protocol=SASL_SSL\n={secret}\n",
        ":": f"security.protocol=SASL_SSL\n:{secret}\n",
        "bare": f"security.protocol=SASL_SSL\n{secret}\n",
    }[shape]
    (tmp_path / "c.properties").write_text(body)
    line = assert_refused(
        run_bounded("groups", "--command-config", "c.properties", "-b", "127.0.0.1:1", cwd=tmp_path), secret=secret
    )
    assert "c.properties:" in line


def test_profiles_with_alias_bombs(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(bomb(9, 9).replace("cluster: {topics: []}\ngroups: []\n", "profiles: {}\n"))
    outcome = run_bounded("groups", "--profile", "p", cwd=tmp_path, env={"KGROUP_CONFIG_DIR": str(tmp_path)})
    assert "aliases expand" in assert_refused(outcome)


# -- CSV reset plans and Parquet histories ----------------------------------------------------------------


@SETTINGS
@given(
    row=st.one_of(
        st.integers(min_value=130_000, max_value=300_000).map(lambda n: "orders,0," + "9" * n),
        st.integers(min_value=2**31, max_value=10**30).map(lambda n: f"orders,{n},5"),
        st.integers(min_value=2**63, max_value=10**40).map(lambda n: f"orders,0,{n}"),
        st.sampled_from(["or\ud800ders,0,5", "bad topic,0,5", '"orders,0,5']),
    )
)
@example(row="orders,0," + "x" * 131_072)
def test_reset_plans_with_absurd_rows(tmp_path: Path, row: str) -> None:
    (tmp_path / "plan.csv").write_bytes(("orders,1,7\r" + row + "\r").encode("utf-8", "surrogatepass"))
    outcome = run_bounded(
        "offsets", "reset", "g", "--from-file", "plan.csv", "-b", "127.0.0.1:1", "--timeout", "1", cwd=tmp_path
    )
    assert "plan.csv" in assert_refused(outcome)


def _history(folder: Path, commit_ts: list[int | None], group: list[str | None]) -> None:
    shutil.rmtree(folder, ignore_errors=True)  # hypothesis runs several examples in one tmp_path
    dataset.create(str(folder))
    schema = dataset.arrow_schema(dataset.COMMITS)
    n = len(commit_ts)
    columns = {}
    for spec in schema:
        if spec.name == "group":
            columns[spec.name] = pa.array(group, pa.string())
        elif pa.types.is_timestamp(spec.type):
            columns[spec.name] = pa.array(commit_ts, pa.int64()).cast(spec.type)
        elif pa.types.is_string(spec.type):
            columns[spec.name] = pa.array(["x"] * n, spec.type)
        else:
            columns[spec.name] = pa.array([1] * n, spec.type)
    day = folder / dataset.COMMITS / "day=2026-01-01"
    day.mkdir(parents=True)
    pq.write_table(pa.table(columns), day / "part.parquet")


@SETTINGS
@given(case=st.sampled_from(["null group", "null time", "far future", "far past"]))
def test_offset_histories_with_nulls_and_impossible_times(tmp_path: Path, case: str) -> None:
    ts = {"null time": None, "far future": 2**62, "far past": -(2**62)}.get(case, 1_700_000_000_000)
    _history(tmp_path / "h", [1_700_000_000_000, ts], ["g", None if case == "null group" else "g"])
    line = assert_refused(run_bounded("lag", "analyze", "h", "--in-process", cwd=tmp_path))
    assert "part.parquet" in line


# -- output paths -----------------------------------------------------------------------------------------


def test_an_output_path_naming_a_folder_writes_nothing(tmp_path: Path) -> None:
    _history(tmp_path / "h", [1_700_000_000_000], ["g"])
    (tmp_path / "chart").mkdir()
    outcome = run_bounded(
        "lag", "analyze", "h", "--in-process", "--out", "result.parquet", "--chart", "chart", cwd=tmp_path
    )
    assert "--chart" in assert_refused(outcome)
    assert not (tmp_path / "result.parquet").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chart", "h"]
    assert list((tmp_path / "chart").iterdir()) == []
