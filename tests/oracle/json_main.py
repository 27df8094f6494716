"""A Java oracle with its own main: one source file under tests/oracle/java, compiled against a Kafka release's
jars, fed one JSON array of cases on stdin and answering one JSON array on stdout.

Where the JDK or the jars are missing, a test skips by name, and fails under CI (which must have them).
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.kafka import jars

# Sized for a loaded 2-core machine: javac of one file takes ~5 s idle, a few hundred cases well under a second.
JAVA_TIMEOUT_S = 300.0


def unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@contextmanager
def json_main(source: Path, release: str, what: str, heap: str = "512m") -> Iterator[Callable[[list[Any]], list[Any]]]:
    """cases -> answers from `source`'s class (named as the file), run once per call in a new JVM."""
    missing = jars.missing_tools()
    if missing:
        unavailable(f"{what} needs {', '.join(missing)} (not installed)")
    try:
        jars.fetch(release)
    except (RuntimeError, OSError) as error:
        unavailable(f"the Kafka {release} jars are unavailable: {error}")
    with tempfile.TemporaryDirectory(prefix="kgroup-oracle-") as folder:
        classes = Path(folder) / "classes"
        compiled = subprocess.run(
            ["javac", "-nowarn", "-d", str(classes), "-cp", jars.classpath(release), str(source)],
            capture_output=True,
            text=True,
            timeout=JAVA_TIMEOUT_S,
            env=jars.java_env(),
        )
        assert compiled.returncode == 0, compiled.stdout + compiled.stderr

        def run(cases: list[Any]) -> list[Any]:
            result = subprocess.run(
                ["java", f"-Xmx{heap}", "-cp", f"{classes}{os.pathsep}{jars.classpath(release)}", source.stem],
                input=json.dumps(cases) + "\n",
                capture_output=True,
                text=True,
                timeout=JAVA_TIMEOUT_S,
                env=jars.java_env(),
            )
            assert result.returncode == 0, result.stderr[-2000:]
            answers: list[Any] = json.loads(result.stdout)
            assert len(answers) == len(cases)
            return answers

        yield run
