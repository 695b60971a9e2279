"""What an erasure takes as naming its subject in stored JSON: key and whole value, and ids."""

from __future__ import annotations

from memlane.domain.clock import new_id
from memlane.domain.erasure import ErasureSubject
from memlane.domain.hashing import canonical_json
from memlane.store.sql.erasure import names_any, node_kind


def test_a_subject_is_named_by_its_key_and_whole_value_not_by_the_value_anywhere() -> None:
    scope = ErasureSubject("default", "scope", "default")
    payload = canonical_json({"tenant_id": "default", "app_id": "other", "note": "the default choice"})
    assert not names_any(payload, set(), scope.needles()), "the default tenant is not the default scope"
    assert names_any(canonical_json({"app_id": "default"}), set(), scope.needles())
    user = ErasureSubject("t", "user", "u1")
    assert names_any(canonical_json({"viewer": {"user_id": "u1", "role": "x"}}), set(), user.needles())
    assert not names_any(canonical_json({"user_id": "u12"}), set(), user.needles()), "a whole value"
    agent = ErasureSubject("t", "agent", "a1")
    assert names_any(canonical_json({"producer_agent_id": "a1"}), set(), agent.needles())
    assert ErasureSubject("t", "tenant", "t").needles() == ()


def test_erased_ids_are_found_in_any_json_and_nothing_else_is() -> None:
    gone, kept = new_id(), new_id()
    assert names_any(canonical_json({"node_ids": [kept, gone]}), {gone}, ())
    assert not names_any(canonical_json({"node_ids": [kept]}), {gone}, ())


def test_the_receipt_counts_nodes_by_the_surface_they_came_from() -> None:
    assert node_kind({"kind": "tool_memory"}) == "tool_memory"
    assert node_kind({"memory_kind": "conversation_note"}) == "conversation_note"
    assert node_kind({"summary_kind": "compression_rollup", "kind": "x"}) == "summary"
    assert node_kind({}) == node_kind(None) == "graph"


def test_the_subject_digest_never_holds_the_value_and_depends_on_the_key() -> None:
    subject = ErasureSubject("acme", "user", "alice@example.com")
    digest = subject.digest(b"k" * 32)
    assert "alice" not in digest and len(digest) == 64
    assert digest == subject.digest(b"k" * 32) != subject.digest(b"j" * 32)
    assert digest != ErasureSubject("acme", "user", "bob@example.com").digest(b"k" * 32)
