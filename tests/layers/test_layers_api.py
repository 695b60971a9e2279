"""The layered memory API over real HTTP: the MemoryObject format, write rules per role, read
modes per layer, retrieval priority, updates and deletes with their confirmations."""

from __future__ import annotations

import httpx

from tests.layers.helpers import as_role, assert_error, post, tenant, write_ok
from tests.support.memory_api import has_long_float_list


def test_manager_writes_identity_and_reads_it_back_as_a_memory_object(client: httpx.Client) -> None:
    t = tenant()
    manager = as_role(t, "manager", "mgr-1")
    mem_id = write_ok(
        client,
        manager,
        layer="identity",
        title="Preferred language",
        content="The user prefers answers in British English",
        metadata={"tags": ["language", "preferences"]},
    )
    assert mem_id.startswith("mem_")
    r = post(client, "read", manager, {"layer": "identity", "id": mem_id})
    assert r.status_code == 200, r.text
    [obj] = r.json()["results"]
    assert obj["id"] == mem_id
    assert obj["layer"] == "identity"
    assert obj["title"] == "Preferred language"
    assert obj["content"] == "The user prefers answers in British English"
    meta = obj["metadata"]
    assert meta["tags"] == ["language", "preferences"]
    assert meta["agent"] == "mgr-1"
    assert meta["user_visible"] is True
    assert meta["timestamp"].endswith("Z")
    assert "embeddings" not in obj
    assert not has_long_float_list(r.json())


def test_embeddings_only_for_admin_authorised_callers(client: httpx.Client) -> None:
    t = tenant()
    manager = as_role(t, "manager")
    mem_id = write_ok(client, manager, layer="project", title="Stack", content="The backend is written in Python")
    # the test client is on loopback with no ADMIN_TOKEN set: admin-authorised outside production
    r = post(client, "read", manager, {"layer": "project", "id": mem_id, "include_embeddings": True})
    assert r.status_code == 200, r.text
    obj = r.json()["results"][0]
    # the debug channel's view: a 16-value preview, the length and a digest, never the vector
    assert len(obj["embeddings"]) == 16 and obj["embedding_dim"] == 384
    assert len(obj["embedding_sha256"]) == 64 and any(x != 0 for x in obj["embeddings"])
    assert not has_long_float_list(r.json())


def test_embeddings_are_previewed_for_the_first_five_results_only(client: httpx.Client) -> None:
    t = tenant()
    manager = as_role(t, "manager")
    for i in range(7):
        write_ok(client, manager, layer="project", title=f"Stack {i}", content=f"The backend part {i} is Python")
    r = post(client, "search", manager, {"layer": "project", "query": "backend Python", "include_embeddings": True})
    results = r.json()["results"]
    assert len(results) == 7
    assert sum("embeddings" in o for o in results) == 5
    assert all("embeddings" in o for o in results[:5])


def test_identity_and_project_writes_need_the_manager_or_a_user_instruction(client: httpx.Client) -> None:
    t = tenant()
    for role in ("planner", "analyst", "executor", "guardian", "user_agent"):
        for layer in ("identity", "project"):
            r = post(client, "write", as_role(t, role), {"layer": layer, "title": "x", "content": "the user likes tea"})
            assert_error(r, 403, "unauthorized_write")
    write_ok(
        client,
        as_role(t, "chat"),
        layer="identity",
        title="Tea",
        content="The user likes green tea",
        user_instruction=True,
    )


def test_workspace_writes_come_from_system_agents_and_are_private_by_default(client: httpx.Client) -> None:
    t = tenant()
    for role in ("planner", "analyst", "executor", "guardian", "manager"):
        mem_id = write_ok(
            client,
            as_role(t, role),
            layer="workspace",
            title=f"{role} note",
            content=f"step 1 of the task done by {role}",
            metadata={"task_id": "task-7"},
        )
        r = post(client, "read", as_role(t, role), {"layer": "workspace", "id": mem_id})
        assert r.json()["results"][0]["metadata"]["user_visible"] is False
    r = post(client, "write", as_role(t, "user_agent"), {"layer": "workspace", "title": "x", "content": "y"})
    assert_error(r, 403, "workspace_restricted")


def test_unknown_layer_and_missing_memory_have_their_own_error_types(client: httpx.Client) -> None:
    t = tenant()
    manager = as_role(t, "manager")
    assert_error(
        post(client, "write", manager, {"layer": "global", "title": "x", "content": "y"}), 400, "invalid_layer"
    )
    assert_error(post(client, "read", manager, {"layer": "scratch", "query": "x"}), 400, "invalid_layer")
    assert_error(post(client, "search", manager, {"layer": "nope", "query": "x"}), 400, "invalid_layer")
    missing = "mem_00000000-0000-0000-0000-000000000000"
    assert_error(post(client, "read", manager, {"layer": "identity", "id": missing}), 404, "memory_not_found")
    assert_error(post(client, "update", manager, {"id": missing, "new_content": "z"}), 404, "memory_not_found")
    assert_error(post(client, "delete", manager, {"id": missing}), 404, "memory_not_found")
    assert_error(post(client, "read", as_role(t, "wizard"), {"layer": "identity", "query": "x"}), 400, "invalid_role")


def test_bad_input_is_a_400_naming_the_field(client: httpx.Client) -> None:
    r = post(client, "write", as_role(tenant(), "manager"), {"layer": "identity", "title": "", "content": "y"})
    body = assert_error(r, 400, "invalid_request")
    assert "title" in body["message"]
    r = post(client, "write", as_role(tenant(), "manager"), {"layer": "identity", "title": "t", "content": "y", "x": 1})
    assert_error(r, 400, "invalid_request")


def test_read_modes_follow_the_layer(client: httpx.Client) -> None:
    t = tenant()
    planner = as_role(t, "planner")
    assert_error(
        post(client, "read", planner, {"layer": "project", "query": "x", "mode": "keyword"}), 400, "invalid_mode"
    )
    assert_error(
        post(client, "read", planner, {"layer": "workspace", "query": "x", "mode": "semantic"}), 400, "invalid_mode"
    )
    r = post(client, "read", planner, {"layer": "workspace", "query": "what is happening"})
    assert_error(r, 400, "invalid_request")
    r = post(client, "read", as_role(t, "user_agent"), {"layer": "identity", "query": "tea", "mode": "keyword"})
    assert_error(r, 403, "mode_not_allowed")


def test_identity_priority_puts_exact_tag_matches_then_keyword_matches_first(client: httpx.Client) -> None:
    t = tenant()
    manager = as_role(t, "manager")
    plain = write_ok(client, manager, layer="identity", title="Coffee", content="The user drinks coffee every morning")
    tagged = write_ok(
        client,
        manager,
        layer="identity",
        title="Diet",
        content="Avoids caffeine after noon",
        metadata={"tags": ["coffee"]},
    )
    r = post(client, "read", manager, {"layer": "identity", "query": "coffee", "limit": 5})
    assert r.status_code == 200, r.text
    ids = [o["id"] for o in r.json()["results"]]
    assert ids[:2] == [tagged, plain]
    r = post(client, "read", manager, {"layer": "identity", "query": "coffee", "mode": "keyword"})
    # keyword mode: only memories whose text has the word are candidates
    assert [o["id"] for o in r.json()["results"]] == [plain]


def test_project_priority_lifts_architecture_then_role_then_safety_critical(client: httpx.Client) -> None:
    t = tenant()
    manager = as_role(t, "manager")
    text = "service deployment rules for the payments service"
    safety = write_ok(
        client, manager, layer="project", title="Deploy safety", content=text, metadata={"tags": ["safety-critical"]}
    )
    plain = write_ok(client, manager, layer="project", title="Deploy notes", content=text)
    role = write_ok(
        client, manager, layer="project", title="Deploy planner", content=text, metadata={"tags": ["role:planner"]}
    )
    arch = write_ok(
        client,
        manager,
        layer="project",
        title="Deploy arch",
        content=text,
        metadata={"tags": ["architecture-critical"]},
    )
    r = post(client, "read", as_role(t, "planner"), {"layer": "project", "query": "payments service deployment"})
    assert [o["id"] for o in r.json()["results"]] == [arch, role, safety, plain]
    # for another role, role:planner is not role-critical
    r = post(client, "read", as_role(t, "executor"), {"layer": "project", "query": "payments service deployment"})
    assert [o["id"] for o in r.json()["results"]][:2] == [arch, safety]


def test_workspace_task_reads_put_the_agents_own_items_first_then_recent(client: httpx.Client) -> None:
    t = tenant()
    first = write_ok(
        client,
        as_role(t, "executor", "exec-1"),
        layer="workspace",
        title="a",
        content="ran tests",
        metadata={"task_id": "t1"},
    )
    second = write_ok(
        client,
        as_role(t, "planner", "plan-1"),
        layer="workspace",
        title="b",
        content="made plan",
        metadata={"task_id": "t1"},
    )
    third = write_ok(
        client,
        as_role(t, "planner", "plan-1"),
        layer="workspace",
        title="c",
        content="revised plan",
        metadata={"task_id": "t1"},
    )
    write_ok(
        client,
        as_role(t, "planner", "plan-1"),
        layer="workspace",
        title="d",
        content="other",
        metadata={"task_id": "t2"},
    )
    r = post(client, "read", as_role(t, "executor", "exec-1"), {"layer": "workspace", "task_id": "t1"})
    assert r.status_code == 200, r.text
    assert r.json()["mode"] == "task"
    assert [o["id"] for o in r.json()["results"]] == [first, third, second]


def test_identity_updates_need_user_confirmation_unless_a_system_refinement(client: httpx.Client) -> None:
    t = tenant()
    manager = as_role(t, "manager")
    mem_id = write_ok(client, manager, layer="identity", title="Name", content="The user is called Sam")
    r = post(client, "update", manager, {"id": mem_id, "new_content": "The user is called Samantha"})
    assert_error(r, 403, "unauthorized_write")
    r = post(
        client, "update", manager, {"id": mem_id, "new_content": "The user is called Samantha", "user_confirmed": True}
    )
    assert r.status_code == 200 and r.json() == {"success": True}
    r = post(client, "update", manager, {"id": mem_id, "new_metadata": {"tags": ["name"]}, "system_refinement": True})
    assert r.status_code == 200, r.text
    r = post(
        client,
        "update",
        as_role(t, "user_agent"),
        {"id": mem_id, "new_title": "x", "system_refinement": True, "user_instruction": True},
    )
    assert_error(r, 403, "unauthorized_write")
    obj = post(client, "read", manager, {"layer": "identity", "id": mem_id}).json()["results"][0]
    assert obj["content"] == "The user is called Samantha"
    assert obj["metadata"]["tags"] == ["name"]
    # the new text is what semantic reads find
    r = post(client, "read", manager, {"layer": "identity", "query": "Samantha"})
    assert r.json()["results"][0]["id"] == mem_id


def test_workspace_updates_are_free_flow_for_system_agents(client: httpx.Client) -> None:
    t = tenant()
    mem_id = write_ok(
        client, as_role(t, "planner"), layer="workspace", title="plan", content="v1", metadata={"task_id": "k"}
    )
    r = post(
        client,
        "update",
        as_role(t, "executor"),
        {"id": mem_id, "new_content": "v2", "new_metadata": {"user_visible": True}},
    )
    assert r.status_code == 200, r.text
    obj = post(client, "read", as_role(t, "analyst"), {"layer": "workspace", "id": mem_id}).json()["results"][0]
    assert obj["content"] == "v2"
    assert obj["metadata"]["user_visible"] is True


def test_identity_deletes_need_an_explicit_user_request(client: httpx.Client) -> None:
    t = tenant()
    manager = as_role(t, "manager")
    mem_id = write_ok(client, manager, layer="identity", title="City", content="The user lives in Leeds")
    assert_error(post(client, "delete", manager, {"id": mem_id}), 403, "unauthorized_write")
    r = post(client, "delete", manager, {"id": mem_id, "user_instruction": True})
    assert r.status_code == 200 and r.json() == {"success": True}
    assert_error(post(client, "read", manager, {"layer": "identity", "id": mem_id}), 404, "memory_not_found")


def test_a_write_without_layer_is_routed_and_says_why(client: httpx.Client) -> None:
    t = tenant()
    manager = as_role(t, "manager")
    cases = {
        "identity": ("Profile", "The user prefers dark mode and wants weekly summaries"),
        "project": ("Auth", "The API service must validate JWTs; the architecture uses one gateway"),
        "workspace": ("Progress", "Currently executing step 3 of the migration task"),
    }
    for expected, (title, content) in cases.items():
        r = post(client, "write", manager, {"title": title, "content": content})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["layer"] == expected
        assert body["routing"]["layer"] == expected
        assert body["routing"]["classifier"] == "rules"
        assert body["routing"]["reason"]
    r = post(client, "write", manager, {"title": "note", "content": "anything", "metadata": {"task_id": "t-9"}})
    assert r.json()["layer"] == "workspace"
    assert "task_id" in r.json()["routing"]["reason"]
    # routing does not bypass the write rules
    r = post(client, "write", as_role(t, "planner"), {"title": "Profile", "content": "The user prefers dark mode"})
    assert_error(r, 403, "unauthorized_write")


def test_search_without_layer_covers_the_layers_the_role_may_see(client: httpx.Client) -> None:
    t = tenant()
    write_ok(client, as_role(t, "manager"), layer="identity", title="Tea", content="The user likes jasmine tea")
    write_ok(client, as_role(t, "planner"), layer="workspace", title="Tea", content="jasmine tea order task running")
    r = post(client, "search", as_role(t, "planner"), {"query": "jasmine tea", "top_k": 5})
    assert {o["layer"] for o in r.json()["results"]} == {"identity", "workspace"}
    r = post(client, "search", as_role(t, "user_agent"), {"query": "jasmine tea", "top_k": 5})
    assert {o["layer"] for o in r.json()["results"]} == {"identity"}
