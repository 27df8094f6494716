"""A small Kafka-protocol client for what confluent-kafka hides: DescribeGroups with the members' raw bytes.

Standard library only (socket, ssl, hashlib). It takes the connection settings kgroup gives confluent-kafka,
in librdkafka's spelling, so profiles and --command-config files work unchanged. kafka-python was measured
and not chosen: its admin client replaces the bytes with decoded v0 structures (raw bytes only through
private internals), it crashed describing a group on Tansu, and it leaks a thread per failed connect.
"""
