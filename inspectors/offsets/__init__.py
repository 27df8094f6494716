"""Offset resets against a cluster: the CSV plan file, reset times, the change and its check."""
