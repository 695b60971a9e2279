"""One view of each scope for the length of a recall.

A recall reads a scope in several stages (vectors, keywords, edges, briefs), and a store with a
cache (the embedded store's ``ScopeVectors``) must learn, before each cached read, whether the
scope changed since its copy was taken. Reading the scope's head once per stage cost 13-15% of
the event loop under mixed load (BENCHMARKS.md, "Where the mixed-load tail is now"); reading it
once per recall gives every stage the same moment of the scope, which is also the more truthful
answer. Writes are never pinned: a request that writes and then reads outside this block still
sees its write, because nothing but ``one_view_per_scope`` remembers a head.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

#: (tenant, scope) -> (rev, epoch) of the scope's head, or None for a scope never written
ScopeHeads = dict[tuple[str, str], "tuple[int, int] | None"]

_pinned: ContextVar[ScopeHeads | None] = ContextVar("memlane_pinned_scope_heads", default=None)


@contextlib.contextmanager
def one_view_per_scope() -> Iterator[None]:
    """Within this block (and tasks it starts), a store reads each scope's head at most once."""
    token = _pinned.set({})
    try:
        yield
    finally:
        _pinned.reset(token)


def pinned_heads() -> ScopeHeads | None:
    """The heads already read in the current block, or None outside one."""
    return _pinned.get()
