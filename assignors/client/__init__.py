"""Client-side assignors: the group leader's range, roundrobin, sticky family, and the legacy Scala consumer's."""
