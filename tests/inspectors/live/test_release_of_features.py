"""The broker's release from the highest metadata.version it supports (ApiVersions' SupportedFeatures).

The levels are MetadataVersion.latestProduction().featureLevel() of each release's server-common jar, read
with the jars of 4.0.0, 4.2.1, 4.3.0, 4.3.2 and 4.4.0 (and MetadataVersion.VERSIONS of 4.4.0 for 4.1): a
4.4 broker was read as "release unknown" before 31-33 were in the table, so its snapshot had no
kafka_version."""

from __future__ import annotations

import pytest

from kgroup.inspectors.live.wire.features import METADATA_VERSION, release_of


@pytest.mark.parametrize(
    ("highest", "release"),
    [(25, "4.0"), (27, "4.1"), (29, "4.2"), (30, "4.3"), (31, "4.4"), (32, "4.4"), (33, "4.4")],
)
def test_a_brokers_highest_production_level_names_its_release(highest: int, release: str) -> None:
    assert release_of({METADATA_VERSION: (7, highest)}) == release


def test_a_level_beyond_the_known_releases_leaves_the_release_unknown() -> None:
    assert release_of({METADATA_VERSION: (7, 99)}) is None
    assert release_of({}) is None
