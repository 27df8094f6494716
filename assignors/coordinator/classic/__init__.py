"""The classic protocol: the coordinator's state machine, its clients (eager and cooperative), request scripts."""
