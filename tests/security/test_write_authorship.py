"""Who a graph write is by is decided by the write service from the writer, not by a route:
nodes it creates without an owner are the writer's, they record the user the writer acts for,
and the commit's actor defaults to the credentials' agent; with auth off the writer is
anonymous."""

from __future__ import annotations

from memlane.domain.model import Node
from memlane.domain.visibility import Viewer
from memlane.services.container import Services
from memlane.services.writing import WriteCommand, WriteNodeSpec, WriteOutcome

FIELDS = frozenset({"type", "client_id", "title"})


async def _write(services: Services, writer: Viewer, *, actor: str | None = None, **node: str) -> WriteOutcome:
    spec = WriteNodeSpec(type="fact", client_id="n1", title="tea", fields_set=FIELDS | frozenset(node), **node)
    cmd = WriteCommand(tenant_id=writer.tenant_id, scope="s", input_sha256="0" * 64, actor=actor, nodes=[spec])
    return await services.writes.write_as(writer, cmd)


async def _node(services: Services, outcome: WriteOutcome) -> Node:
    (written,) = outcome.result.nodes
    (node,) = await services.reader.nodes(Viewer(tenant_id="t1", role="admin"), "s", [written.id])
    return node


async def test_an_authenticated_writer_owns_and_signs_what_it_creates(services: Services) -> None:
    planner = Viewer(tenant_id="t1", agent_id="planner", user_id="u1", authenticated=True)
    outcome = await _write(services, planner)
    node = await _node(services, outcome)
    assert (node.owner_agent_id, node.producer_agent_id, node.user_id) == ("planner", "planner", "u1")
    assert outcome.result.commit.actor == "planner"


async def test_a_team_key_owns_as_its_team_and_a_named_actor_labels_the_commit(services: Services) -> None:
    team = Viewer(tenant_id="t1", team_id="ops", authenticated=True)
    outcome = await _write(services, team, actor="reviewer")
    node = await _node(services, outcome)
    assert (node.owner_agent_id, node.owner_team_id, node.producer_agent_id) == (None, "ops", None)
    assert outcome.result.commit.actor == "reviewer"


async def test_an_owner_the_request_names_wins_over_the_writer(services: Services) -> None:
    planner = Viewer(tenant_id="t1", agent_id="planner", authenticated=True)
    node = await _node(services, await _write(services, planner, owner_team_id="ops"))
    assert (node.owner_agent_id, node.owner_team_id, node.producer_agent_id) == (None, "ops", "planner")


async def test_with_auth_off_the_writer_is_anonymous_but_its_user_is_recorded(services: Services) -> None:
    anonymous = Viewer(tenant_id="t1", user_id="u7")
    outcome = await _write(services, anonymous)
    node = await _node(services, outcome)
    assert (node.owner_agent_id, node.owner_team_id, node.producer_agent_id, node.user_id) == (None, None, None, "u7")
    assert outcome.result.commit.actor is None
