"""The knowledge repository: ADRs, policies, patterns and specs with constraints, and their
sync into memory."""
