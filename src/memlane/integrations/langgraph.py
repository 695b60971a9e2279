"""LangGraph: ``MemlaneStore``, a ``BaseStore`` whose items live in memlane.

Install with ``pip install 'memlane[langgraph]'``. The mapping (docs/integrations.md):

- a namespace ``("users", "u1")`` is the scope ``langgraph.users.u1`` (``scope_prefix`` and the
  labels joined by ``.``, which LangGraph forbids inside a label);
- an item is a node of that scope (type ``concept``) whose id is derived from the scope and
  the key, so a put of the same key updates it; ``slots.langgraph`` holds the namespace, key
  and value, the title is the key, and the text memlane embeds for search is the value (or
  the ``index`` fields asked for); ``index=False`` stores an item no query finds;
- each namespace keeps the list of its keys on one index node (tier ``cold``: never recalled),
  and the prefix scope keeps the list of namespaces holding items, for ``list_namespaces`` and
  searches without a query;
- ``get`` and ``delete`` go through the conversation surface (``GET`` / ``DELETE
  /api/v1/memories/{id}``); ``search`` with a query is ``recall_text`` in each matching
  namespace's scope, its score the seed's similarity; the filter applies to the values.

An item is found by a query once the server has embedded it (docs/api-graph.md, "Embedding
readiness"); get, list_namespaces and searches without a query see it at once. TTL is not
supported: graph nodes have no expiry. One store serialises its own changes; two processes
adding keys to the same namespace at the same instant may lose one index entry.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Literal

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from langgraph.store.base.embed import get_text_at_path

from memlane.client import AsyncMemlaneClient, MemlaneClient
from memlane.client.models import RecallResult
from memlane.integrations._records import adelete_node, aread_node, client_kwargs, delete_node, read_node, stable_id

Namespace = tuple[str, ...]

#: recall_text takes at most this many seeds per scope
_MAX_SEEDS = 200


class MemlaneStore(BaseStore):
    """LangGraph's store interface (``put``, ``get``, ``search``, ``delete``,
    ``list_namespaces`` and their ``a``-prefixed async forms) over a memlane server.

    ``api_key`` (or ``jwt``) authenticates; with auth off, ``tenant_id``, ``agent_id`` and
    ``user_id`` say whom the store acts for. ``index_fields`` are the value's paths whose text
    is embedded for search (LangGraph's path syntax; default: the whole value as JSON).
    ``memory_lane`` is the lane of the items (default: the server's, ``private``).
    """

    supports_ttl: bool = False

    def __init__(
        self,
        *,
        base_url: str = "http://127.0.0.1:8000",
        api_key: str | None = None,
        jwt: str | None = None,
        tenant_id: str | None = None,
        agent_id: str | None = None,
        user_id: str | None = None,
        scope_prefix: str = "langgraph",
        index_fields: Sequence[str] | None = None,
        memory_lane: Literal["private", "shared"] | None = None,
        timeout: float = 30.0,
    ):
        if not scope_prefix or "." in scope_prefix:
            raise ValueError("scope_prefix must be a non-empty name without '.'")
        self.base_url = base_url
        self.scope_prefix = scope_prefix
        self.index_fields = list(index_fields) if index_fields else ["$"]
        self.memory_lane = memory_lane
        self._kwargs = client_kwargs(api_key, jwt, tenant_id, agent_id, user_id, timeout)
        self._lock = threading.Lock()
        self._alock = asyncio.Lock()

    # --- the two methods LangGraph calls ---------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Reads first, then the writes (the last put of a key wins), as LangGraph's stores do."""
        ops = list(ops)
        reads, puts = _split(ops)
        results: list[Result] = [None] * len(ops)
        with self._lock, MemlaneClient(self.base_url, **self._kwargs) as client:
            sync = _SyncIO(self, client)
            for i, op in reads:
                results[i] = sync.read(op)
            for op in puts:
                sync.put(op)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        reads, puts = _split(ops)
        results: list[Result] = [None] * len(ops)
        async with self._alock, AsyncMemlaneClient(self.base_url, **self._kwargs) as client:
            io = _AsyncIO(self, client)
            answers = await asyncio.gather(*(io.read(op) for _, op in reads))
            for (i, _), answer in zip(reads, answers, strict=True):
                results[i] = answer
            for op in puts:
                await io.put(op)
        return results

    # --- the mapping -------------------------------------------------------------------------
    def scope_of(self, namespace: Namespace) -> str:
        """The memlane scope of a namespace."""
        if not namespace:
            raise InvalidNamespaceError("Namespace cannot be empty.")
        if any(not label or "." in label for label in namespace):
            # LangGraph's rule too; here it also keeps ("a.b",) and ("a", "b") apart
            raise InvalidNamespaceError(f"Namespace labels must be non-empty and hold no '.': {namespace}")
        scope = ".".join((self.scope_prefix, *namespace))
        if len(scope) > 256:
            raise InvalidNamespaceError(f"namespace {namespace} makes a scope of {len(scope)} characters (max 256)")
        return scope

    def item_id(self, namespace: Namespace, key: str) -> str:
        return stable_id("langgraph", self.scope_of(namespace), key)

    def keys_id(self, namespace: Namespace) -> str:
        return stable_id("langgraph", self.scope_of(namespace), "\x00keys")

    @property
    def catalogue_id(self) -> str:
        return stable_id("langgraph", self.scope_prefix, "\x00namespaces")

    def item_node(self, op: PutOp) -> dict[str, Any]:
        assert op.value is not None
        node: dict[str, Any] = {
            "id": self.item_id(op.namespace, op.key),
            "type": "concept",
            "title": op.key,
            "slots": {"langgraph": {"namespace": list(op.namespace), "key": op.key, "value": op.value}},
        }
        if op.index is not False:
            paths = self.index_fields if op.index is None else op.index
            texts = [text for path in paths for text in get_text_at_path(op.value, path)]
            node["text_summary"] = "\n".join(texts) or None
        if self.memory_lane is not None:
            node["memory_lane"] = self.memory_lane
        return node

    def keys_node(self, namespace: Namespace, keys: list[str]) -> dict[str, Any]:
        return {"id": self.keys_id(namespace), "type": "concept", "tier": "cold", "title": "langgraph keys",
                "slots": {"langgraph_keys": keys}}  # fmt: skip

    def catalogue_node(self, namespaces: list[Namespace]) -> dict[str, Any]:
        return {"id": self.catalogue_id, "type": "concept", "tier": "cold", "title": "langgraph namespaces",
                "slots": {"langgraph_namespaces": [list(ns) for ns in sorted(namespaces)]}}  # fmt: skip


# --- pure helpers ------------------------------------------------------------------------------
def _split(ops: list[Op]) -> tuple[list[tuple[int, Op]], list[PutOp]]:
    reads: list[tuple[int, Op]] = []
    puts: dict[tuple[Namespace, str], PutOp] = {}
    for i, op in enumerate(ops):
        if isinstance(op, PutOp):
            puts.pop((op.namespace, op.key), None)
            puts[(op.namespace, op.key)] = op
        elif isinstance(op, GetOp | SearchOp | ListNamespacesOp):
            reads.append((i, op))
        else:
            raise ValueError(f"Unknown operation type: {type(op)}")
    if any(op.ttl is not None for op in puts.values()):
        raise NotImplementedError("MemlaneStore does not support TTL: memlane's graph nodes have no expiry")
    return reads, list(puts.values())


def _item(meta: dict[str, Any] | None, cls: type[Item] = Item, score: float | None = None) -> Item | None:
    record = (meta or {}).get("langgraph")
    if not isinstance(record, dict) or meta is None:
        return None
    created, updated = _instant(meta.get("created_at")), _instant(meta.get("updated_at"))
    fields = {"value": record["value"], "key": record["key"], "namespace": tuple(record["namespace"]),
              "created_at": created, "updated_at": updated}  # fmt: skip
    if cls is SearchItem:
        return SearchItem(**fields, score=score)
    return Item(**fields)


def _instant(raw: Any) -> datetime:
    return datetime.fromisoformat(str(raw).replace("Z", "+00:00"))


def _keys(meta: dict[str, Any] | None) -> list[str]:
    return list((meta or {}).get("langgraph_keys") or [])


def _namespaces(meta: dict[str, Any] | None) -> list[Namespace]:
    return [tuple(ns) for ns in (meta or {}).get("langgraph_namespaces") or []]


def _under(namespace: Namespace, prefix: Namespace) -> bool:
    return namespace[: len(prefix)] == prefix


def _matches(value: Any, wanted: Any) -> bool:
    """LangGraph's filter: equality, nested objects, and ``$eq $ne $gt $gte $lt $lte``."""
    if isinstance(wanted, dict):
        if any(k.startswith("$") for k in wanted):
            return all(_compare(value, op, operand) for op, operand in wanted.items())
        return isinstance(value, dict) and all(_matches(value.get(k), v) for k, v in wanted.items())
    return bool(value == wanted)


def _compare(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(value == operand)
    if op == "$ne":
        return bool(value != operand)
    if value is None:
        return False
    if op == "$gt":
        return float(value) > float(operand)
    if op == "$gte":
        return float(value) >= float(operand)
    if op == "$lt":
        return float(value) < float(operand)
    if op == "$lte":
        return float(value) <= float(operand)
    raise ValueError(f"Unsupported operator: {op}")


def _kept(item: Item | None, op: SearchOp) -> bool:
    if item is None or not _under(item.namespace, op.namespace_prefix):
        return False
    return all(_matches(item.value.get(k), v) for k, v in (op.filter or {}).items())


def _condition_holds(condition: MatchCondition, namespace: Namespace) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[len(namespace) - len(path) :]
    return all(p == "*" or p == n for p, n in zip(path, part, strict=True))


def _listed(namespaces: list[Namespace], op: ListNamespacesOp) -> list[Namespace]:
    kept = [ns for ns in namespaces if all(_condition_holds(c, ns) for c in op.match_conditions or ())]
    if op.max_depth is not None:
        kept = [ns[: op.max_depth] for ns in kept]
    return sorted(set(kept))[op.offset : op.offset + op.limit]


def _recall_options(op: SearchOp) -> dict[str, Any]:
    """The seeds to ask a scope for (every one it may give when a filter drops some), with the
    returned nodes' slots and times, so that a seed's item needs no second request."""
    seeds = _MAX_SEEDS if op.filter else max(1, min(_MAX_SEEDS, op.offset + op.limit))
    return {"limit": seeds, "max_nodes": seeds, "include_slots": True, "include_meta": True}


def _shown(result: RecallResult) -> dict[str, dict[str, Any] | None]:
    """The returned nodes as ``get`` would read them: their slots plus ``created_at`` and
    ``updated_at`` (the recall's ``include_slots`` and ``include_meta``)."""
    shown: dict[str, dict[str, Any] | None] = {}
    for node in result.subgraph.nodes:
        extra = node.model_extra or {}
        if isinstance(extra.get("slots"), dict):
            shown[node.id] = {**extra["slots"], "created_at": extra.get("created_at"),
                              "updated_at": extra.get("updated_at")}  # fmt: skip
    return shown


def _ranked(found: list[SearchItem]) -> list[SearchItem]:
    return sorted(found, key=lambda item: item.score or 0.0, reverse=True)


# --- the same operations, sync and async ---------------------------------------------------------
class _SyncIO:
    def __init__(self, store: MemlaneStore, client: MemlaneClient):
        self.s, self.c = store, client

    def read(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return _item(read_node(self.c, self.s.scope_of(op.namespace), self.s.item_id(op.namespace, op.key)))
        if isinstance(op, ListNamespacesOp):
            return _listed(self.catalogue(), op)
        assert isinstance(op, SearchOp)
        namespaces = [ns for ns in self.catalogue() if _under(ns, op.namespace_prefix)]
        wanted = op.offset + op.limit
        scored: list[SearchItem] = []
        if op.query:
            for ns in namespaces:
                scored.extend(self.recalled(ns, op))
            scored = _ranked(scored)
        seen = {(i.namespace, i.key) for i in scored}
        for ns in namespaces:
            if len(scored) >= wanted:
                break
            scope = self.s.scope_of(ns)
            for key in _keys(read_node(self.c, scope, self.s.keys_id(ns))):
                if (ns, key) in seen:
                    continue
                item = _item(read_node(self.c, scope, self.s.item_id(ns, key)), SearchItem)
                if isinstance(item, SearchItem) and _kept(item, op):
                    scored.append(item)
                if len(scored) >= wanted:
                    break
        return scored[op.offset : wanted]

    def recalled(self, ns: Namespace, op: SearchOp) -> list[SearchItem]:
        assert op.query
        scope = self.s.scope_of(ns)
        result = self.c.recall_text(query_text=op.query, scope=scope, **_recall_options(op))
        shown = _shown(result)
        metas = [shown.get(seed.id) or read_node(self.c, scope, seed.id) for seed in result.seeds]
        items = [_item(meta, SearchItem, seed.similarity) for meta, seed in zip(metas, result.seeds, strict=True)]
        return [i for i in items if isinstance(i, SearchItem) and _kept(i, op)]

    def catalogue(self) -> list[Namespace]:
        return _namespaces(read_node(self.c, self.s.scope_prefix, self.s.catalogue_id))

    def put(self, op: PutOp) -> None:
        scope = self.s.scope_of(op.namespace)
        keys = _keys(read_node(self.c, scope, self.s.keys_id(op.namespace)))
        if op.value is None:
            if op.key in keys:
                keys.remove(op.key)
                self.c.write(scope=scope, input_text=f"langgraph delete {op.key}", auto_embed=False,
                             nodes=[self.s.keys_node(op.namespace, keys)])  # fmt: skip
            delete_node(self.c, scope, self.s.item_id(op.namespace, op.key))
            if not keys:
                self.catalogue_change(op.namespace, present=False)
            return
        nodes = [self.s.item_node(op)]
        if op.key not in keys:
            nodes.append(self.s.keys_node(op.namespace, [*keys, op.key]))
        self.c.write(scope=scope, input_text=f"langgraph put {op.key}", nodes=nodes, auto_embed=op.index is not False)
        if not keys:
            self.catalogue_change(op.namespace, present=True)

    def catalogue_change(self, ns: Namespace, *, present: bool) -> None:
        known = self.catalogue()
        if (ns in known) == present:
            return
        known = [*known, ns] if present else [k for k in known if k != ns]
        self.c.write(scope=self.s.scope_prefix, input_text="langgraph namespaces", auto_embed=False,
                     nodes=[self.s.catalogue_node(known)])  # fmt: skip


class _AsyncIO:
    def __init__(self, store: MemlaneStore, client: AsyncMemlaneClient):
        self.s, self.c = store, client

    async def read(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            meta = await aread_node(self.c, self.s.scope_of(op.namespace), self.s.item_id(op.namespace, op.key))
            return _item(meta)
        if isinstance(op, ListNamespacesOp):
            return _listed(await self.catalogue(), op)
        assert isinstance(op, SearchOp)
        namespaces = [ns for ns in await self.catalogue() if _under(ns, op.namespace_prefix)]
        wanted = op.offset + op.limit
        scored: list[SearchItem] = []
        if op.query:
            per_namespace = await asyncio.gather(*(self.recalled(ns, op) for ns in namespaces))
            scored = _ranked([item for found in per_namespace for item in found])
        seen = {(i.namespace, i.key) for i in scored}
        for ns in namespaces:
            if len(scored) >= wanted:
                break
            scope = self.s.scope_of(ns)
            keys = [k for k in _keys(await aread_node(self.c, scope, self.s.keys_id(ns))) if (ns, k) not in seen]
            metas = await asyncio.gather(*(aread_node(self.c, scope, self.s.item_id(ns, key)) for key in keys))
            for meta in metas:
                item = _item(meta, SearchItem)
                if isinstance(item, SearchItem) and _kept(item, op):
                    scored.append(item)
        return scored[op.offset : wanted]

    async def recalled(self, ns: Namespace, op: SearchOp) -> list[SearchItem]:
        assert op.query
        scope = self.s.scope_of(ns)
        result = await self.c.recall_text(query_text=op.query, scope=scope, **_recall_options(op))
        shown, seeds = _shown(result), result.seeds
        missing = [seed.id for seed in seeds if seed.id not in shown]
        read = await asyncio.gather(*(aread_node(self.c, scope, node_id) for node_id in missing))
        shown.update(zip(missing, read, strict=True))
        items = [_item(shown.get(seed.id), SearchItem, seed.similarity) for seed in seeds]
        return [i for i in items if isinstance(i, SearchItem) and _kept(i, op)]

    async def catalogue(self) -> list[Namespace]:
        return _namespaces(await aread_node(self.c, self.s.scope_prefix, self.s.catalogue_id))

    async def put(self, op: PutOp) -> None:
        scope = self.s.scope_of(op.namespace)
        keys = _keys(await aread_node(self.c, scope, self.s.keys_id(op.namespace)))
        if op.value is None:
            if op.key in keys:
                keys.remove(op.key)
                await self.c.write(scope=scope, input_text=f"langgraph delete {op.key}", auto_embed=False,
                                   nodes=[self.s.keys_node(op.namespace, keys)])  # fmt: skip
            await adelete_node(self.c, scope, self.s.item_id(op.namespace, op.key))
            if not keys:
                await self.catalogue_change(op.namespace, present=False)
            return
        nodes = [self.s.item_node(op)]
        if op.key not in keys:
            nodes.append(self.s.keys_node(op.namespace, [*keys, op.key]))
        await self.c.write(
            scope=scope, input_text=f"langgraph put {op.key}", nodes=nodes, auto_embed=op.index is not False
        )
        if not keys:
            await self.catalogue_change(op.namespace, present=True)

    async def catalogue_change(self, ns: Namespace, *, present: bool) -> None:
        known = await self.catalogue()
        if (ns in known) == present:
            return
        known = [*known, ns] if present else [k for k in known if k != ns]
        await self.c.write(scope=self.s.scope_prefix, input_text="langgraph namespaces", auto_embed=False,
                           nodes=[self.s.catalogue_node(known)])  # fmt: skip
