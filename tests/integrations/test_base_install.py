"""The integrations are extras: the server, the SDK and the integrations package import no
agent framework until a framework's own module is imported."""

from __future__ import annotations

import subprocess
import sys

FRAMEWORKS = ("langgraph", "agents", "langchain_core", "openai")


def test_importing_memlane_and_its_sdk_loads_no_framework() -> None:
    code = (
        "import sys, memlane, memlane.client, memlane.integrations, memlane.api.app; "
        f"print(sorted(m for m in {FRAMEWORKS!r} if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
