"""The ``memlane`` command line."""
