"""KIP-848 server-side assignors (uniform, range) and the group spec the coordinator hands them."""
