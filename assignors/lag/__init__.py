"""Lag rules: per partition in messages and time, Burrow status, rollups, and the offset-history reference."""
