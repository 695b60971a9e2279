"""HTTP surfaces: one package per surface (routes.py, requests.py, responses.py), what they
share in common/ (dependencies, identity, errors and their envelopes), the memory browser in ui/."""
