"""A live cluster through confluent-kafka: connection settings, the admin API, snapshots, record timestamps."""
