"""Apache Kafka's classic member map as kgroup models it: the order the broker lists members in, and where a
newcomer's random `prefix-UUID` id lands, checked against orders a real broker sent and against the Java
HashMap emulation (tests/assignors/java: values printed by OpenJDK) run on sampled random ids."""

from __future__ import annotations

import random
import uuid
from collections import Counter
from fractions import Fraction

from kgroup.assignors.analysis.member_map import (
    bucket,
    is_map_order,
    map_capacity,
    newcomer_landings,
    share_below,
    smallest_capacity,
)
from kgroup.assignors.java.hash_order import string_order

# The order Apache Kafka 4.2.1 listed 13 librdkafka members in, in DescribeGroups and in the leader's
# JoinGroup response alike (its debug=assignor log); recorded by the measurement of issue 33.
THIRTEEN = [
    "c7-92d61b1d-22b9-4bd4-9064-134b27efdda1",
    "s-3-4abd21f3-8355-4088-8815-e2366698da75",
    "s4-4ef166ff-9ace-4995-99d3-bc53cb08d196",
    "s-1-e7ce317e-4c76-46d3-884d-f1c2cce5cd54",
    "c2-c9a66d4f-7ba9-453a-b0e0-bb7486c30e83",
    "s1-32ae4855-a758-453a-aa4d-4b9ba365ba51",
    "c4-f13927a0-3a72-4ed2-a59f-cbdd023210e9",
    "s8-a4e9b583-879f-4941-a073-7671c3a411a9",
    "s0-df257658-f21c-4e4d-94e6-47160b16b777",
    "s3-b0af97f6-e7d1-44c2-be38-7b20ce43b7fe",
    "s6-afb01898-186f-4fb9-a53a-3c8f5b34a5ae",
    "s9-0c2f3f9f-bd6c-4c56-af73-56f32a1739c4",
    "s-2-676074a6-c818-4c0e-a8e3-15b128115aad",
]
# Six of them, as the same broker listed them when the group had six members.
SIX = [
    "c4-f13927a0-3a72-4ed2-a59f-cbdd023210e9",
    "s4-4ef166ff-9ace-4995-99d3-bc53cb08d196",
    "s8-a4e9b583-879f-4941-a073-7671c3a411a9",
    "s6-afb01898-186f-4fb9-a53a-3c8f5b34a5ae",
    "s9-0c2f3f9f-bd6c-4c56-af73-56f32a1739c4",
    "c2-c9a66d4f-7ba9-453a-b0e0-bb7486c30e83",
]


def _random_id(rng: random.Random, prefix: str) -> str:
    return f"{prefix}-{uuid.UUID(int=rng.getrandbits(128), version=4)}"


def test_orders_a_real_broker_sent_are_map_orders() -> None:
    assert map_capacity(SIX) == 16
    # 13 members took the map past 12 (0.75 x 16): the broker's order is the 32-bucket one, not the 16.
    assert not is_map_order(THIRTEEN, 16)
    assert map_capacity(THIRTEEN) == 32


def test_an_order_no_map_gives_is_told_apart() -> None:
    assert map_capacity(list(reversed(SIX))) is None


def test_the_table_grows_past_three_quarters() -> None:
    assert [smallest_capacity(n) for n in (0, 12, 13, 24, 25)] == [16, 16, 32, 32, 64]


def test_share_below_counts_uuid_strings_exactly() -> None:
    assert share_below("") == 0
    assert share_below("8") == Fraction(1, 2)  # the first digit is uniform over 16
    assert share_below("g") == 1
    assert share_below("0000000") == 0
    # The 15th character is always '4' (the version) and the 20th one of 8, 9, a, b (the variant).
    assert share_below("00000000-0000-5") == Fraction(1, 16**12)
    # After 15 random digits all f, half the variants (a, b) sort at or after "a": those ids sort after it.
    assert share_below("ffffffff-ffff-4fff-a") == 1 - Fraction(1, 16**15) * Fraction(2, 4)


def test_share_below_matches_sampled_uuids() -> None:
    rng = random.Random(33)
    samples = sorted(str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(20000))
    for text in ("3", "a7f", "c0ffee00-1234-4", "ffff"):
        sampled = sum(1 for s in samples if s < text) / len(samples)
        assert abs(sampled - float(share_below(text))) < 0.015, text


def test_a_random_ids_bucket_is_uniform_and_apart_from_how_it_sorts() -> None:
    """The model's two assumptions, on 32,000 random ids: String.hashCode spreads `prefix-UUID` evenly over
    16 buckets, and the bucket tells nothing of whether the id sorts in the lower or upper half."""
    rng = random.Random(7)
    counts: Counter[tuple[int, bool]] = Counter()
    n = 32000
    for _ in range(n):
        member_id = _random_id(rng, "rdkafka")
        counts[(bucket(member_id, 16), member_id[len("rdkafka-")] < "8")] += 1
    expected = n / 32
    chi_square = sum((counts[(b, low)] - expected) ** 2 / expected for b in range(16) for low in (True, False))
    assert chi_square < 61.1  # 31 degrees of freedom: exceeded by chance once in 1,000 runs


def _landing_shares(existing: list[str], prefix: str, rng: random.Random, n: int) -> Counter[tuple[int, int]]:
    """(place in the map's order, rank among ids starting with prefix-) of n random newcomers, the map's
    order from the Java HashMap emulation."""
    rivals = sorted(m for m in existing if m.startswith(prefix + "-"))
    seen: Counter[tuple[int, int]] = Counter()
    for _ in range(n):
        newcomer = _random_id(rng, prefix)
        seen[(string_order([*existing, newcomer]).index(newcomer), sum(1 for r in rivals if r < newcomer))] += 1
    return seen


def test_landings_match_the_java_map_on_sampled_ids() -> None:
    rng = random.Random(11)
    existing = string_order([_random_id(rng, p) for p in ("rdkafka", "s9", "rdkafka", "s7", "rdkafka")])
    ordered, landings = newcomer_landings(existing, "rdkafka", 16)
    assert ordered == existing and abs(sum(x.likelihood for x in landings) - 1) == 0
    rivals = sorted(m for m in existing if m.startswith("rdkafka-"))
    predicted: Counter[tuple[int, int]] = Counter()
    for landing in landings:
        predicted[(landing.position, sum(1 for r in rivals if r < landing.member_id))] += float(landing.likelihood)
    n = 6000
    sampled = _landing_shares(existing, "rdkafka", rng, n)
    for cell in set(predicted) | set(sampled):
        assert abs(sampled[cell] / n - predicted[cell]) < 0.02, cell


def test_a_put_past_the_load_grows_the_table_before_the_newcomer_is_placed() -> None:
    rng = random.Random(5)
    existing = string_order([_random_id(rng, f"c{i}") for i in range(12)])
    ordered, landings = newcomer_landings(existing, "c99", 16)
    assert ordered == string_order(existing, 32)
    n = 4000
    sampled = Counter(
        place for (place, _), count in _landing_shares(existing, "c99", rng, n).items() for _ in range(count)
    )
    for place in range(13):
        predicted = sum(float(x.likelihood) for x in landings if x.position == place)
        assert abs(sampled[place] / n - predicted) < 0.025, place
