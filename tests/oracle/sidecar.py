"""A long-lived JVM that runs Apache Kafka's own assignor classes on group states sent as JSON lines.

The Java source (tests/oracle/java) is compiled with javac against one release's jars (tests/kafka/jars.py)
into a private folder, then `java Sidecar` reads one request per line on stdin and writes one answer per
line on stdout. A request is a case object or a list of them (a batch, answered by a list):

    {"assignor": "range" | "roundrobin" | "sticky" | "cooperative-sticky" | "uniform" | "server-range",
     "topics": [{"name": "t0", "id": "<22-char Kafka Uuid>", "partitions": 3,
                 "replica_racks": null | [["r0", "r1"], [], ...]}],        # one rack list per partition
     "members": [{"member_id": "C0", "topics": ["t0"], "owned": [["t0", 1]], "generation": null | int,
                  "rack": null | "r0", "instance_id": null | "i0"}],
     "gone_topic_ids": {"deleted-topic": "<Uuid>"}}                         # server side: owned, no metadata

    {"assignment": {"C0": [["t0", 0], ...]}}   or   {"error": "IllegalStateException: ..."}

What each field means to Kafka (the user data, the protocol fields, the GroupSpec collections) is written in
ClientAssignors.java and ServerAssignors.java; tests/oracle/cases.py gives the same fields to kgroup.
Every wait is bounded; the JVM is stopped by its pid.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.kafka import jars

JAVA_SOURCES = Path(__file__).parent / "java"
# Sized for a loaded 2-core machine: javac of three files takes ~5 s idle, a cold first batch ~2 s.
COMPILE_TIMEOUT_S = 300.0
ANSWER_TIMEOUT_S = 300.0


class SidecarError(RuntimeError):
    """The JVM could not be built or started, died, or did not answer in time."""


class Sidecar:
    def __init__(self, release: str) -> None:
        self.release = release
        self._folder = Path(tempfile.mkdtemp(prefix=f"kgroup-oracle-{release}-"))
        self._compile()
        self._log = open(self._folder / "stderr.log", "wb")
        self._process = subprocess.Popen(
            [
                "java",
                "-Xmx512m",
                "-Xss8m",
                "-XX:+UseSerialGC",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp",
                f"{self._folder / 'classes'}{os.pathsep}{jars.classpath(release)}",
                "Sidecar",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=jars.java_env(),
            # Its own process group, not a session: the kernel's autogroup scheduling weighs sessions against each
            # other, and the JVM keeps the priority CI runs the offline tests at (.ci/run) only in theirs.
            process_group=0,
        )
        self._buffer = b""
        self.requests = 0

    def _compile(self) -> None:
        classes = self._folder / "classes"
        classes.mkdir()
        result = subprocess.run(
            [
                "javac",
                "-nowarn",
                "-Xlint:none",
                "-d",
                str(classes),
                "-cp",
                jars.classpath(self.release),
                *sorted(str(p) for p in JAVA_SOURCES.glob("*.java")),
            ],
            capture_output=True,
            text=True,
            timeout=COMPILE_TIMEOUT_S,
            env=jars.java_env(),
        )
        if result.returncode != 0:
            raise SidecarError(f"javac failed against Kafka {self.release}:\n{result.stdout}{result.stderr}")

    def assign(self, case: dict[str, Any]) -> dict[str, Any]:
        """Kafka's answer to one case."""
        return self._ask(case)

    def assign_all(self, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Kafka's answers to many cases, in one round trip."""
        return self._ask(cases) if cases else []

    def _ask(self, request: Any) -> Any:
        process = self._process
        if process.poll() is not None:
            raise SidecarError(f"the Kafka {self.release} sidecar has exited: {self.stderr_tail()}")
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(request, ensure_ascii=False).encode("utf-8") + b"\n")
        process.stdin.flush()
        self.requests += 1
        line = self._read_line(process.stdout.fileno())
        return json.loads(line)

    def _read_line(self, fd: int) -> bytes:
        deadline = time.monotonic() + ANSWER_TIMEOUT_S
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SidecarError(f"no answer from the Kafka {self.release} sidecar in {ANSWER_TIMEOUT_S:.0f} s")
                if selector.select(left):
                    chunk = os.read(fd, 1 << 16)
                    if not chunk:
                        raise SidecarError(f"the Kafka {self.release} sidecar closed its output: {self.stderr_tail()}")
                    self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def stderr_tail(self) -> str:
        self._log.flush()
        return (self._folder / "stderr.log").read_text(errors="replace")[-2000:]

    def close(self) -> None:
        process = self._process
        if process.poll() is None:
            assert process.stdin is not None
            process.stdin.close()  # end of input: the JVM's loop ends
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(30)
        if process.stdout is not None:
            process.stdout.close()
        self._log.close()
        shutil.rmtree(self._folder, ignore_errors=True)
