"""What a change does to an assignment: what-if edits, evaluation, diff, balance and stickiness, CI checks."""
