"""`lag analyze`'s options checked before any Spark starts, without the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgroup.inspectors.errors import InputError
from kgroup.inspectors.lag.analysis import IN_PROCESS
from kgroup.inspectors.lag.analyze_request import analyze_request, spark_settings


def _request(**given):  # type: ignore[no-untyped-def]
    options = {
        "engine": "auto",
        "spark": None,
        "in_process": False,
        "since": None,
        "until": None,
        "window": 10,
        "allowed_lag": 0,
        "isolation": "read_uncommitted",
        "bucket": None,
    }
    return analyze_request(**{**options, **given})


@pytest.mark.parametrize(
    ("given", "field"),
    [
        ({"engine": "duckdb"}, "--engine"),
        ({"in_process": True, "spark": "local[2]"}, "--in-process"),
        ({"engine": "in-process", "spark": "local[2]"}, "--engine"),
        ({"until": "30m"}, "--until"),
        ({"since": "soon"}, "--since"),
        ({"bucket": "often"}, "--bucket"),
    ],
)
def test_a_wrong_option_is_named(given: dict, field: str) -> None:
    with pytest.raises(InputError) as raised:
        _request(**given)
    assert raised.value.field == field


def test_auto_picks_in_process_for_a_small_history_and_spark_for_a_large_or_remote_one() -> None:
    request = _request()
    assert request.chosen_by_kgroup
    assert request.engine_for(1_000)[0] == IN_PROCESS
    assert request.engine_for(5_000_000)[0] == "local[*]"
    assert request.engine_for(None) == ("local[*]", "a remote history is not surveyed")


def test_a_spark_url_given_is_the_users_choice_whatever_the_size() -> None:
    request = _request(spark="sc://127.0.0.1:15002")
    assert not request.chosen_by_kgroup
    assert request.engine_for(10) == ("sc://127.0.0.1:15002", "--spark was given")


def test_in_process_flag_is_the_in_process_engine() -> None:
    assert _request(in_process=True).engine_for(10_000_000)[0] == IN_PROCESS


def test_since_as_a_span_counts_back_from_until() -> None:
    request = _request(since="30m", until="2026-11-21T08:00:00")
    query = request.query(None)(1_000)  # the newest sample does not matter once --until is given
    assert query.as_of == 1795248000000
    assert query.since == 1795248000000 - 30 * 60_000


def test_spark_conf_entries_are_key_value() -> None:
    assert spark_settings(["spark.driver.memory = 4g", "a=b=c"]) == {"spark.driver.memory": "4g", "a": "b=c"}
    with pytest.raises(InputError) as raised:
        spark_settings(["=4g"])
    assert raised.value.field == "--spark-conf"


def test_an_output_in_a_missing_folder_fails_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(InputError) as raised:
        _request(writes=[(str(tmp_path / "nowhere" / "out.parquet"), "--out")])
    assert raised.value.field == "--out"
