"""Apache Kafka's own assignors as an oracle: one sidecar JVM per Kafka release for the whole session.

Every test here that uses the sidecar is marked `kafka_oracle` (deselect offline with
`-m "not kafka_oracle"`). It needs java, javac and mvn and the release's jars (tests/kafka/jars.py, fetched
here when missing: 4.0.0, 4.2.1 and 4.4.0 for the server assignors besides the pinned release); without them it is
skipped with the reason, and in CI (`CI` set) that is a failure.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.kafka import jars
from tests.oracle.sidecar import Sidecar, SidecarError

_HERE = Path(__file__).parent
# Cases compared per assignor and Kafka release, in the process that runs the test. The test hands its counts
# on in its report (user_properties), which tests/conftest.py sums for the summary at the end: under
# pytest-xdist the tests run in workers, and only their reports reach the process that prints.
RUN_COUNTS: Counter[tuple[str, str]] = Counter()
# Of those, uniform cases where the other release's rules (KAFKA-18688) would have given another target.
RULES_DIFFER: Counter[tuple[str, str]] = Counter()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        # Only what starts a JVM: replaying the recorded fixed cases against kgroup runs offline too.
        if _HERE in Path(str(item.fspath)).parents and "oracle" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.kafka_oracle)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def oracle() -> Iterator[Callable[[str], Sidecar]]:
    """release -> the running sidecar for it, started the first time it is asked for."""
    started: dict[str, Sidecar] = {}

    def get(release: str) -> Sidecar:
        if release not in started:
            missing = jars.missing_tools()
            if missing:
                _unavailable(f"the Kafka assignor oracle needs {', '.join(missing)} (not installed)")
            try:
                jars.fetch(release)
                started[release] = Sidecar(release)
            except (RuntimeError, SidecarError, OSError) as error:
                _unavailable(f"the Kafka {release} assignor oracle is unavailable: {error}")
        return started[release]

    yield get
    for sidecar in started.values():
        sidecar.close()
