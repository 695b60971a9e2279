"""What every response model shares (api/*/responses.py; conventions in docs/architecture.md).

Response models are ``TypedDict``s: a key a handler leaves out stays out (no defaults are
filled in), and ``closed`` refuses undeclared keys, so the document says
``additionalProperties: false`` and a key added to a response without its model fails the
tests loudly instead of reaching clients undocumented.
"""

from __future__ import annotations

from pydantic import ConfigDict, with_config

closed = with_config(ConfigDict(extra="forbid"))
