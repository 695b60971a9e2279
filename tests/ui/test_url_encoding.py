"""The memory browser puts ids and scopes into URLs encoded, so no id can turn a link or an
action into another request. Ids cannot hold ``?``, ``#`` or ``/`` any more (every surface and
every import refuses them: tests/api/test_unstorable_text.py, tests/transfer/); this is the
defence in depth behind that, on the real templates."""

from __future__ import annotations

from datetime import UTC, datetime

from memlane.api.ui.routes import templates
from memlane.api.ui.views import MemoryPage
from memlane.domain.model import Node

#: an id as an attacker once imported it: the delete button became a delete in another app
HOSTILE_ID = "victim?app_id=other-app#"


def test_a_notes_delete_button_keeps_a_hostile_id_inside_its_path_segment() -> None:
    now = datetime(2024, 1, 1, tzinfo=UTC)
    note = Node(tenant_id="t", id=HOSTILE_ID, scope="my app/1", type="event", title="note", text_summary="text",
                created_at=now, updated_at=now, slots={"memory_kind": "note"})  # fmt: skip
    html = templates.get_template("part_memory.html").render(
        n=note, kind="note", promotion=None, m=MemoryPage(node=note, edges=[], neighbours={}, commits=[])
    )
    assert 'data-api="/api/v1/memories/victim%3Fapp_id%3Dother-app%23?app_id=my%20app/1"' in html
    assert "/api/v1/memories/victim?" not in html


def test_links_to_a_memory_encode_its_id_as_one_path_segment() -> None:
    node = Node(tenant_id="t", id="a/b?c#d", scope="s", type="event", title="t")
    html = templates.get_template("part_layers.html").render(layers=[("user", [node])], per_layer=10)
    assert 'href="/ui/memory/a%2Fb%3Fc%23d?scope=s"' in html
