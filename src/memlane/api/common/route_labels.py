"""Routes that name themselves in the request metrics, as FastAPI's own routes do.

The metrics label a request with the template of the route that matched it, read from
``scope["route"]`` (edge_middleware.py). FastAPI's ``APIRoute`` sets it; Starlette's plain
``Route`` and ``Mount`` do not, so ``/mcp`` (an ASGI endpoint) and the memory browser's
static files were counted under ``route="unmatched"`` with the 404s. These two set it.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.routing import Match, Mount, Route
from starlette.types import Scope


class LabelledRoute(Route):
    """A Starlette ``Route`` labelled with its path template (``/mcp``)."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        if match is not Match.NONE:
            child["route"] = self
        return match, child


@dataclass(frozen=True)
class _MountedFiles:
    """What a match inside a mount is labelled by: the mount's prefix is added from the
    scope's ``root_path`` (edge_middleware.route_template), so this is the rest."""

    path: str = "/{path}"


class LabelledMount(Mount):
    """A ``Mount`` whose requests are labelled ``<prefix>/{path}`` (``/ui/static/{path}``),
    never with the file's own path."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        if match is not Match.NONE:
            child["route"] = _MountedFiles()
        return match, child
