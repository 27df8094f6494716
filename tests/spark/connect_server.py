"""A real Spark Connect server on 127.0.0.1, started from the installed pyspark
(sbin/start-connect-server.sh in the foreground) and stopped by its process group: for the Spark tests'
fixture and for bench/lag.py's Connect path."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def loopback_connect_server(folder: Path, *spark_args: str) -> Iterator[tuple[str, int]]:
    """(sc:// URL, server pid) once the server listens; its log is folder/server.log. `spark_args` go to
    spark-submit, e.g. --driver-memory 4g."""
    import pyspark

    home = Path(pyspark.__file__).parent
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ,
        "SPARK_HOME": str(home),
        "SPARK_LOG_DIR": str(folder),
        "SPARK_PID_DIR": str(folder),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_NO_DAEMONIZE": "1",
    }
    with open(folder / "server.log", "wb") as log:
        process = subprocess.Popen(
            [
                "bash",
                str(home / "sbin" / "start-connect-server.sh"),
                "--wait",
                "--master",
                "local[2]",
                *spark_args,
                "--conf",
                "spark.connect.grpc.binding.address=127.0.0.1",
                "--conf",
                f"spark.connect.grpc.binding.port={port}",
                "--conf",
                "spark.driver.host=127.0.0.1",
                "--conf",
                "spark.driver.bindAddress=127.0.0.1",
                "--conf",
                "spark.ui.enabled=false",
                "--conf",
                "spark.sql.shuffle.partitions=8",
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            # A process group to stop it by, not a session: the kernel's autogroup scheduling weighs sessions
            # against each other, and the server keeps the priority CI runs the Spark tests at (.ci/run) only in theirs.
            process_group=0,
        )
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
            yield f"sc://127.0.0.1:{port}", process.pid
        finally:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(30)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(process.pid, signal.SIGKILL)
