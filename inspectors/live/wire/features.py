"""The broker's release, read from the features it supports (ApiVersions v3+, KIP-584).

ApiVersions v3 and later carry SupportedFeatures as a tagged field; the highest `metadata.version` level a
broker supports is the last production level of its own release (`MetadataVersion.LATEST_PRODUCTION`,
server-common), so it names the release down to the minor version: 25 is 4.0, 27 is 4.1, 29 is 4.2, 30 is
4.3, 33 is 4.4.
The patch release cannot be told (4.2.0 and 4.2.1 support the same levels). A broker started with
`unstable.feature.versions.enable=true` advertises the next release's level too, and is then read as that
release; a level outside the table leaves the release unknown (None).
"""

from __future__ import annotations

from kgroup.inspectors.live.wire.codec import TAGS_NONE, compact_string
from kgroup.inspectors.live.wire.connection import API_API_VERSIONS, Connection, Deadline
from kgroup.inspectors.live.wire.coordinator import bootstrap

OUR_API_VERSIONS = (3, 4)  # v4 also lists features whose lowest level is 0 (KAFKA-17011)
METADATA_VERSION = "metadata.version"
# MetadataVersion's levels and the release each belongs to (org.apache.kafka.server.common.MetadataVersion,
# read from the 4.0.0 to 4.4.0 jars): IBP_3_3_IV3 (7) is the lowest a 4.x broker accepts; 4.4.0's production
# levels are IBP_4_4_IV0-IV2 (31-33), and IBP_4_5_IV0 (34) its first unstable one.
RELEASE_OF_LEVEL = {
    7: "3.3",
    8: "3.4",
    9: "3.5",
    10: "3.5",
    11: "3.5",
    12: "3.6",
    13: "3.6",
    14: "3.6",
    15: "3.7",
    16: "3.7",
    17: "3.7",
    18: "3.7",
    19: "3.7",
    20: "3.8",
    21: "3.9",
    22: "4.0",
    23: "4.0",
    24: "4.0",
    25: "4.0",
    26: "4.1",
    27: "4.1",
    28: "4.2",
    29: "4.2",
    30: "4.3",
    31: "4.4",
    32: "4.4",
    33: "4.4",
    34: "4.5",
}


def supported_features(config: dict[str, str], timeout_s: float) -> dict[str, tuple[int, int]]:
    """Feature name -> (min, max) level the first bootstrap server that answers supports; empty when the
    broker speaks only ApiVersions v0-v2 (Kafka before 2.7)."""
    conn = bootstrap(dict(config), Deadline(timeout_s))
    try:
        return _features(conn)
    finally:
        conn.close()


def release_of(features: dict[str, tuple[int, int]]) -> str | None:
    """The broker's release (`4.2`) from its highest metadata.version level, or None when it has none or
    one outside the table."""
    level = features.get(METADATA_VERSION, (None, None))[1]
    return None if level is None else RELEASE_OF_LEVEL.get(level)


def _features(conn: Connection) -> dict[str, tuple[int, int]]:
    low, high = conn.versions.get(API_API_VERSIONS, (0, 0))
    if high < OUR_API_VERSIONS[0]:
        return {}
    v = conn.pick(API_API_VERSIONS, OUR_API_VERSIONS, "ApiVersions")
    # ClientSoftwareName and ClientSoftwareVersion (KIP-511), then no tagged fields.
    body = compact_string("kgroup") + compact_string("1") + TAGS_NONE
    r = conn.request(API_API_VERSIONS, v, body, True, f"asking for supported features (ApiVersions v{v})")
    error = r.i16("error code")
    if error:
        return {}
    for _ in range(r.array_len("api keys", True)):
        r.i16("api key"), r.i16("min version"), r.i16("max version")
        r.tags("api key")
    r.i32("throttle time")
    features: dict[str, tuple[int, int]] = {}
    for _ in range(r.uvarint("tag count")):
        tag, size = r.uvarint("tag"), r.uvarint("tag size")
        if tag != 0:  # 0: SupportedFeatures; the finalized ones and the rest are not needed
            r.skip(size, "tagged field")
            continue
        for _ in range(r.array_len("supported features", True)):
            name = r.cstring("feature name") or ""
            features[name] = (r.i16("feature min version"), r.i16("feature max version"))
            r.tags("feature")
    return features
