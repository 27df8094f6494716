"""Test isolation, and the summaries at the end of the run: time per folder and file, the Kafka oracle's cases,
conformance (passed/total per assignor)."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis's 200 ms per-example deadline and its too-slow health check measure the machine, not the code: on a
# loaded 2-core CI runner (where the offline tests run at the lowest priority beside the live ones) a correct
# example overruns the one and a stalled draw trips the other. Tests assert behaviour only; speed lives in bench/.
settings.register_profile("kgroup", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("kgroup")

_conformance: dict[str, list[int]] = defaultdict(lambda: [0, 0])
_seconds_per_folder: dict[str, float] = defaultdict(float)
_seconds_per_file: dict[str, float] = defaultdict(float)
# (assignor, Kafka release) -> cases the differential oracle compared, and of those the uniform cases where the
# other release's rules would differ (tests/oracle), from the reports' user_properties: under pytest-xdist only
# the reports reach this process.
_oracle: dict[str, Counter[tuple[str, str]]] = {"oracle_cases": Counter(), "oracle_rules_differ": Counter()}


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("KGROUP_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # setup and teardown count too: that is where the brokers and JVMs start and stop
    path = report.nodeid.split("::")[0]
    _seconds_per_folder["/".join(path.split("/")[:2])] += report.duration
    _seconds_per_file[path] += report.duration
    if report.when != "call":
        return
    for name, value in report.user_properties:
        if name in _oracle:
            assignor, release, count = value
            _oracle[name][(assignor, release)] += count
    if "test_matches_kafka[" in report.nodeid:
        key = report.nodeid.split("[", 1)[1].split(":")[1]
    elif "test_matches_librdkafka[" in report.nodeid:
        key = "librdkafka " + report.nodeid.split("[", 1)[1].split(":")[1]
    elif "test_classic_coordinator_matches_kafka[" in report.nodeid:
        key = "coordinator classic"
    elif "test_classic_clients_match_kafka[" in report.nodeid:
        key = "classic clients"
    elif "test_consumer_protocol_matches_kafka[" in report.nodeid:
        key = "consumer protocol"
    elif "test_older_designs_match_the_spec[" in report.nodeid:
        key = "zk-watcher/external"
    else:
        return
    _conformance[key][1] += 1
    _conformance[key][0] += report.passed


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from tests.conformance.cases import data_dir
    from tests.conformance.test_assignor_conformance import not_implemented_summary

    if _seconds_per_folder:
        terminalreporter.section("time per folder (setup, call and teardown)")
        for folder, seconds in sorted(_seconds_per_folder.items(), key=lambda item: -item[1]):
            terminalreporter.write_line(f"{folder:40} {seconds:8.1f} s")
        # the CI budget is spent in a few files: these are the ones to trim first
        terminalreporter.section("slowest files (setup, call and teardown)")
        for path, seconds in sorted(_seconds_per_file.items(), key=lambda item: -item[1])[:15]:
            terminalreporter.write_line(f"{path:60} {seconds:8.1f} s")

    if _oracle["oracle_cases"]:
        terminalreporter.section("Kafka assignor oracle: cases compared")
        for (assignor, release), count in sorted(_oracle["oracle_cases"].items()):
            differ = _oracle["oracle_rules_differ"].get((assignor, release))
            note = f" ({differ} where 4.0's and 4.2's uniform differ)" if differ else ""
            terminalreporter.write_line(f"{assignor:20} Kafka {release:8} {count} cases{note}")

    if not _conformance:
        return
    terminalreporter.section(f"conformance ({data_dir()})")
    for assignor, (passed, total) in sorted(_conformance.items()):
        terminalreporter.write_line(f"{assignor:30} {passed}/{total} passed")
    for assignor, count in sorted(not_implemented_summary().items()):
        terminalreporter.write_line(f"{assignor:30} not implemented ({count} cases not run)")
