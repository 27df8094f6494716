"""The designs before the broker coordinator (seeds 001, 002): ZooKeeper watchers, an external coordinator."""
