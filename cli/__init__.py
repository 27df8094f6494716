"""kgroup.cli: the command line: parses, renders and sets the exit code."""
