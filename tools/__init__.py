"""Contributor tooling run by `make check` (CONTRIBUTING.md); not part of the installed package."""
