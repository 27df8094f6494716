"""Start a local Apache Kafka broker from the cached jars and keep it running until Ctrl-C.

    .venv/bin/python -m tests.kafka.serve              # 127.0.0.1 on a free port, the pinned release
    .venv/bin/python -m tests.kafka.serve --port 9092 --release 4.0.0

The broker is the live tests' (tests/kafka/broker.py: one combined KRaft node, test-friendly group
settings), in a temporary folder removed on exit. For trying kgroup by hand: `kgroup groups -b ADDRESS`.
"""

from __future__ import annotations

import argparse
import signal
import tempfile
from pathlib import Path

from tests.kafka import broker, jars


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, help="the PLAINTEXT port (default: a free one)")
    parser.add_argument("--release", default=jars.version(), help="Apache Kafka release (default: %(default)s)")
    args = parser.parse_args()
    jars.fetch(args.release)
    with tempfile.TemporaryDirectory(prefix="kgroup-kafka-") as folder:
        extra = {}
        if args.port:
            controller = broker.free_port()
            extra = {
                "listeners": f"PLAINTEXT://127.0.0.1:{args.port},CONTROLLER://127.0.0.1:{controller}",
                "advertised.listeners": f"PLAINTEXT://127.0.0.1:{args.port},CONTROLLER://127.0.0.1:{controller}",
                "controller.quorum.bootstrap.servers": f"127.0.0.1:{controller}",
            }
        node = broker.single(Path(folder), args.release, extra=extra)
        if args.port:
            node.port, node.controller_port = args.port, int(extra["controller.quorum.bootstrap.servers"].split(":")[1])
        node.start()
        print(f"Apache Kafka {args.release} at {node.address} (log: {node.log_path}); Ctrl-C stops it", flush=True)
        try:
            signal.sigwait({signal.SIGINT, signal.SIGTERM})
        except KeyboardInterrupt:
            pass
        finally:
            node.stop()


if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    main()
