"""Demo traffic: 3 partitions of `orders`; a consumer of `billing` reads everything, then stops while the
producer keeps writing to partition 0 for the given seconds."""

import sys
import time
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

broker, seconds = sys.argv[1], float(sys.argv[2])
admin = AdminClient({"bootstrap.servers": broker})
admin.create_topics([NewTopic("orders", 3)])["orders"].result(10)
producer = Producer({"bootstrap.servers": broker, "batch.num.messages": 1, "linger.ms": 0})
for i in range(30):
    producer.produce("orders", value=b"order", partition=i % 3)
producer.flush(10)
consumer = Consumer(
    {
        "bootstrap.servers": broker,
        "group.id": "billing",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 500,
    }
)
consumer.subscribe(["orders"])
read, deadline = 0, time.monotonic() + 30
while read < 30 and time.monotonic() < deadline:
    message = consumer.poll(0.5)
    read += message is not None and not message.error()
consumer.commit(asynchronous=False)
consumer.close()  # billing stops consuming here
print(f"billing read {read} records and stopped; producing to orders-0 for {seconds:g} s", flush=True)
end = time.monotonic() + seconds
while time.monotonic() < end:
    producer.produce("orders", value=b"order", partition=0)
    producer.poll(0)
    time.sleep(0.1)
producer.flush(10)
