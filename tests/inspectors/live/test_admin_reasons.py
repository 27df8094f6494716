"""How a failure librdkafka hands back reads in kgroup's one-line error."""

from __future__ import annotations

from confluent_kafka import KafkaError, KafkaException

from kgroup.inspectors.live.admin import _reason


def test_a_group_error_without_a_message_is_named() -> None:
    # librdkafka's ConsumerGroupDescribe parse: "ConsumerGroupDescribe: " and the broker's ErrorMessage, which
    # Kafka's group coordinator leaves empty; the line must still say what the broker answered.
    failed = KafkaException(KafkaError(KafkaError.COORDINATOR_NOT_AVAILABLE, "ConsumerGroupDescribe: "))
    assert _reason(failed) == "ConsumerGroupDescribe: COORDINATOR_NOT_AVAILABLE"


def test_a_message_that_says_something_is_kept_as_it_is() -> None:
    failed = KafkaException(KafkaError(KafkaError.GROUP_ID_NOT_FOUND, "ConsumerGroupDescribe: The group is unknown"))
    assert _reason(failed) == "ConsumerGroupDescribe: The group is unknown"


def test_an_error_with_no_text_at_all_is_its_name() -> None:
    assert _reason(KafkaException(KafkaError(KafkaError.NOT_COORDINATOR, ""))) == "NOT_COORDINATOR"
