"""Erasure of a subject (docs/security.md): POST /v1/erasure."""
