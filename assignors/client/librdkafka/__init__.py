"""librdkafka's client-side assignors (confluent-kafka 2.16.1 bundles librdkafka 2.16.0), step-exact on glibc.

What a librdkafka consumer computes when it is the classic group's leader: `range`, `roundrobin` and
`cooperative-sticky` (librdkafka has no eager `sticky`). The rules and their sources are in
docs/librdkafka-assignors.md; tests/conformance/data/librdkafka-cases.jsonl holds the outputs of the
real librdkafka code these modules are checked against.
"""
