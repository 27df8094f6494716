"""Java semantics Kafka's output depends on: string order, String.hashCode, HashMap iteration order."""
