"""The trailing-slash redirect (``/ui/`` -> ``/ui``) with a relative ``Location``.

Starlette's own (``redirect_slashes``) writes an absolute URL built from the request's ``Host``
header, so a request with a forged ``Host`` got a redirect to that host. Here the ``Location``
is the path alone (RFC 9110 allows a relative reference): the browser stays on the host it
asked. A path that would begin with ``//`` (or ``/\\``, which browsers read the same way) would
name another host and is not redirected.
"""

from __future__ import annotations

from starlette.responses import RedirectResponse
from starlette.routing import Match, Router
from starlette.types import Receive, Scope, Send


def slash_twin(router: Router, scope: Scope) -> str | None:
    """The relative URL of the route this path names with its trailing slash added or removed,
    or None."""
    path: str = scope["path"]
    if scope["type"] != "http" or path == "/":
        return None
    twin = path.rstrip("/") if path.endswith("/") else path + "/"
    # as Starlette escapes a path it writes into a URL; a backslash is a slash to browsers
    twin = twin.replace("?", "%3F").replace("#", "%23").replace("\\", "%5C")
    if not twin.startswith("/") or twin.startswith("//"):
        return None
    twin_scope = {**scope, "path": path.rstrip("/") if path.endswith("/") else path + "/"}
    if not any(route.matches(twin_scope)[0] is not Match.NONE for route in router.routes):
        return None
    query = scope.get("query_string", b"").decode("latin-1")
    return f"{twin}?{query}" if query else twin


def use_relative_slash_redirects(router: Router) -> None:
    """Replace the router's slash redirect by one with a relative ``Location``."""
    router.redirect_slashes = False
    fallback = router.default

    async def default(scope: Scope, receive: Receive, send: Send) -> None:
        location = slash_twin(router, scope)
        if location is None:
            await fallback(scope, receive, send)
            return
        await RedirectResponse(location)(scope, receive, send)

    router.default = default
