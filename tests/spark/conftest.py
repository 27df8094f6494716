"""Real Spark for the lag pipeline: the CLI's embedded local session, and a Spark Connect server on
127.0.0.1 started from the installed pyspark (sbin/start-connect-server.sh in the foreground), stopped by pid."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgroup.assignors.lag_synthetic import Plan, generate
from kgroup.inspectors.lag_dataset import write_all

PLAN = Plan()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def connect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import pyspark

    home = Path(pyspark.__file__).parent
    folder = tmp_path_factory.mktemp("spark-connect")
    port = _free_port()
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOG_DIR": str(folder), "SPARK_PID_DIR": str(folder),
           "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_NO_DAEMONIZE": "1"}
    log = open(folder / "server.log", "wb")
    process = subprocess.Popen(
        ["bash", str(home / "sbin" / "start-connect-server.sh"), "--wait", "--master", "local[2]",
         "--conf", "spark.connect.grpc.binding.address=127.0.0.1", "--conf", f"spark.connect.grpc.binding.port={port}",
         "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
         "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=8"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 180
    try:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the Spark Connect server exited: see {folder / 'server.log'}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.5)
        else:
            raise RuntimeError(f"the Spark Connect server did not listen within 180 s: {folder / 'server.log'}")
        yield f"sc://127.0.0.1:{port}"
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(process.pid, signal.SIGKILL)
        log.close()
