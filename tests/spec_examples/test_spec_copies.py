"""The examples the tests send are the specs' own text: each copy is checked against the spec
files when they are beside the repository (``../shared/spec``, as in CI and development)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.spec_examples import agent_tools_examples, conversation_examples

SPEC_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "spec"

pytestmark = pytest.mark.skipif(not SPEC_DIR.is_dir(), reason=f"the specs are not beside the repository ({SPEC_DIR})")


def test_agent_tools_examples_are_verbatim_copies_of_the_spec() -> None:
    spec = (SPEC_DIR / "agent-tools.md").read_text()
    for example in agent_tools_examples.ALL:
        assert example.text in spec, example.label


def test_conversation_examples_are_verbatim_copies_of_the_spec() -> None:
    spec = (SPEC_DIR / "conversation-memory-api.md").read_text()
    for name, command in conversation_examples.CURL.items():
        assert f"```bash\n{command}```" in spec, name
    assert f"```json\n{conversation_examples.SUMMARY_BODY}```" in spec


def test_every_curl_example_of_the_conversation_spec_is_sent() -> None:
    spec = (SPEC_DIR / "conversation-memory-api.md").read_text()
    assert spec.count("```bash\ncurl") == len(conversation_examples.CURL)
