"""Persistence: the store contracts (contracts/) and their SQLite and PostgreSQL implementations."""
