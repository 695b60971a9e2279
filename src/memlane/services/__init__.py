"""Use cases, each a module; they know nothing of HTTP."""
