"""Offset histories: sampling a cluster, the Parquet data set, the analysis in-process or on Spark, triage."""
