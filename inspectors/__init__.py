"""kgroup.inspectors: reads the outside world (fixtures, admin API) into the core model."""
