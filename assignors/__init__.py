"""kgroup.assignors: the pure core: data model, Kafka assignors, validity, diff and balance."""
