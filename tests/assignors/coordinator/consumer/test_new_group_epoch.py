"""The epoch of a consumer group the coordinator creates, by release.

Measured on Apache Kafka (broker log, GroupMetadataManager): on 4.2.1 the first member of a new group logs
"Bumped group epoch to 1" and the second "to 2"; on 4.4.0 "to 2" and "to 3" (ModernGroup's constructor sets
groupEpoch to 1 from 4.3.0, read in the 4.3.0 and 4.4.0 jars). The bundled scenarios' consumer-protocol
replays on 4.4.0 agreed with kgroup in everything but this starting epoch (tests/live/test_scenario_replay_live.py).
"""

from __future__ import annotations

import pytest

from kgroup.assignors.coordinator.classic.client import ClientConfig
from kgroup.assignors.coordinator.consumer.simulation import ConsumerSimulation


@pytest.mark.parametrize(
    ("release", "epochs"), [(None, [1, 2]), ("4.0.0", [1, 2]), ("4.2.1", [1, 2]), ("4.3.0", [2, 3]), ("4.4.0", [2, 3])]
)
def test_each_member_joining_a_new_group_bumps_its_epoch_from_the_releases_start(
    release: str | None, epochs: list[int]
) -> None:
    sim = ConsumerSimulation.create({"orders": 6}, kafka_version=release)
    seen = []
    for i, handle in enumerate(("c1", "c2")):
        client = sim.add_client(handle, ClientConfig(), ["orders"])
        sim.at(i * 10_000, sim.start, client)
        sim.run_until(i * 10_000 + 5_000)
        seen.append(sim.coordinator.groups[sim.group_id].group_epoch)
    assert seen == epochs
    assert [b.group_epoch for b in sim.bumps] == epochs
