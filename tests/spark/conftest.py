"""Real Spark for the lag pipeline: the CLI's embedded local session, and a Spark Connect server on
127.0.0.1 started from the installed pyspark (sbin/start-connect-server.sh in the foreground), stopped by pid."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from collections.abc import Iterator

import pytest

from kgroup.assignors.lag.synthetic import Plan, generate
from kgroup.inspectors.lag.dataset import write_all
from tests.spark.connect_server import loopback_connect_server

PLAN = Plan()


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: `pytest -m "not spark"` runs without Java
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.spark)
    if shutil.which("java") or os.environ.get("JAVA_HOME"):
        return
    for item in items:
        if "tests/spark" in str(item.fspath):
            item.add_marker(pytest.mark.skip(reason="no-java: Spark needs Java 17 (not on this machine)"))


@pytest.fixture(scope="session")
def history(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The synthetic history with every planted behaviour, as a data set on disk."""
    path = tmp_path_factory.mktemp("lag") / "history"
    write_all(str(path), *generate(PLAN))
    return str(path)


@pytest.fixture(scope="session")
def connect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with loopback_connect_server(tmp_path_factory.mktemp("spark-connect")) as (url, _):
        yield url
