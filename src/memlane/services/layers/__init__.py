"""Layered agent memory: identity / project / workspace layers with per-role access."""
