"""Offset reset plans, computed as kafka-consumer-groups.sh --reset-offsets computes them."""
