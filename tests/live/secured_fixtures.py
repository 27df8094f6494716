"""`secured_kafka`: the session's secured Apache Kafka broker (tests/kafka/secured.py), for the security tests.

Started the first time a test asks for it; skipped with the reason where Java/Maven or openssl is missing (a
failure in CI, as for `broker`), and stopped by pid at the end of the session.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.kafka import secured


@pytest.fixture(scope="session")
def secured_kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[secured.SecuredKafka]:
    """A running secured broker: PLAINTEXT (setup only), SASL_PLAINTEXT, SSL and SASL_SSL listeners, users
    admin / alice / mallory, alice's ACLs applied."""
    from tests.live.conftest import require_kafka

    require_kafka()
    missing = secured.missing_tools()
    if missing:
        reason = f"the secured Apache Kafka broker cannot be built here: missing {', '.join(missing)}"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    broker = secured.start(tmp_path_factory.mktemp("secured-kafka"))
    try:
        yield broker
    finally:
        broker.node.stop()
