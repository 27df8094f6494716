"""The KIP-848 consumer protocol: group and member epochs, target assignment, reconciliation, request scripts."""
