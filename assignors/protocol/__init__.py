"""The classic consumer protocol's bytes as the group leader reads them: subscriptions, assignments, user data."""
