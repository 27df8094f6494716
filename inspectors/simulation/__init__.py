"""Runs on the core: what-ifs on a fixture, user-level scenarios, one scenario under every design."""
