"""MemoryReader, the one read path, on both backends: every method stays inside the caller's
tenant and scope and applies the visibility rule; each negative has its positive control."""

from __future__ import annotations

import numpy as np

from memlane.domain.visibility import Viewer
from memlane.services.container import Services
from memlane.services.writing import WriteCommand, WriteNodeSpec
from tests.support.settings import DIM

WORD = "quetzal"


def vec(seed: int) -> list[float]:
    v = np.random.default_rng(seed).normal(size=DIM)
    return [float(x) for x in v / np.linalg.norm(v)]


async def put(svc: Services, tenant: str, scope: str, title: str, **node: object) -> str:
    spec = WriteNodeSpec(
        type="event",
        title=title,
        text_summary=f"{WORD} {title}",
        embedding=vec(len(title)),
        memory_lane=str(node.pop("memory_lane", "shared")),
        fields_set=frozenset({"type", "title", "text_summary", "embedding", "memory_lane", *node}),
        **node,  # type: ignore[arg-type]
    )
    out = await svc.writes.write(WriteCommand(tenant_id=tenant, scope=scope, input_sha256="0" * 64, nodes=[spec]))
    return out.result.nodes[0].id


async def test_every_read_stays_in_its_tenant_and_scope(services: Services) -> None:
    mine = await put(services, "t1", "s1", "mine")
    other_scope = await put(services, "t1", "s2", "other scope")
    other_tenant = await put(services, "t2", "s1", "other tenant")
    hidden = await put(services, "t1", "s1", "bob's", memory_lane="private", owner_agent_id="bob")
    everything = [mine, other_scope, other_tenant, hidden]
    alice = Viewer("t1", agent_id="alice")
    reader = services.reader

    assert [n.id for n in await reader.nodes(alice, "s1", everything)] == [mine]
    assert {n.id for n in await reader.nodes(alice, None, everything)} == {mine, other_scope}
    assert [b.id for b in await reader.briefs(alice, "s1", everything)] == [mine]
    assert [h.id for h in await reader.keyword(alice, "s1", WORD, 10)] == [mine]
    assert [n.id for n in await reader.find(alice, "s1", limit=10)] == [mine]
    assert {n.id for n in await reader.find(alice, None, limit=10)} == {mine, other_scope}
    assert await reader.node(alice, "s1", hidden) is None
    # what the reader returned may be scored; a node it did not return yields no vector
    shown = await reader.nodes(alice, None, everything)
    bob_node = (await services.reader.nodes(Viewer("t1", agent_id="bob"), "s1", [hidden]))[0]
    vectors = await reader.embeddings(alice, [*shown, bob_node])
    assert set(vectors) == {mine, other_scope}

    bob = Viewer("t1", agent_id="bob")
    assert {h.id for h in await reader.keyword(bob, "s1", WORD, 10)} == {mine, hidden}, "the owner's control"
    t2 = Viewer("t2", agent_id="alice")
    assert [n.id for n in await reader.nodes(t2, None, everything)] == [other_tenant]
    assert [b.id for b in await reader.briefs(t2, "s1", everything)] == [other_tenant]
    assert [h.id for h in await reader.keyword(t2, "s1", WORD, 10)] == [other_tenant]
