"""Rendering for people and for documents: tables, the scenario timeline, the lag chart, JSON/YAML bodies."""
