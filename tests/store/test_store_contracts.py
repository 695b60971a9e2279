"""The store's contracts stay narrow: each concern is its own small Protocol, a method belongs to
exactly one of them, and ``Store`` is nothing but their sum (docs/architecture.md)."""

from __future__ import annotations

import inspect

from memlane.store import contracts
from memlane.store.contracts import Store
from memlane.store.sqlite.store import SqliteStore

#: the widest contract a service may depend on; ``Store`` itself is only for the container
WIDEST = 5


def members(protocol: type) -> set[str]:
    own = {name for name in vars(protocol) if not name.startswith("_")}
    return own | set(getattr(protocol, "__annotations__", {}))


NARROW = [getattr(contracts, name) for name in contracts.__all__ if name != "Store"]


def test_every_contract_is_narrow() -> None:
    wide = {p.__name__: len(members(p)) for p in NARROW if len(members(p)) > WIDEST}
    assert wide == {}


def test_each_store_method_belongs_to_exactly_one_contract() -> None:
    seen: dict[str, str] = {}
    for p in NARROW:
        for name in members(p):
            assert name not in seen, f"{name} is in {seen[name]} and {p.__name__}"
            seen[name] = p.__name__
    assert set(seen) == {name for p in Store.__mro__ if p in NARROW for name in members(p)}
    assert Store.__bases__[:-1] == tuple(b for b in Store.__bases__ if b in NARROW)
    assert set(NARROW) <= set(Store.__mro__)


def test_the_sql_store_implements_every_contract_method() -> None:
    for p in NARROW:
        for name in members(p):
            if name == "backend":
                continue
            assert inspect.iscoroutinefunction(getattr(SqliteStore, name)), f"{p.__name__}.{name}"
