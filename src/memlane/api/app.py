"""The FastAPI application: one app, every surface mounted on the same services."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable

from fastapi import FastAPI

from memlane import __version__
from memlane.api.admin import routes as admin
from memlane.api.apidocs.routes import mount_docs
from memlane.api.common.auth import Authenticator
from memlane.api.common.body import document_body_models
from memlane.api.common.browser_boundary import BrowserBoundary, add_cors
from memlane.api.common.edge_middleware import EdgeMiddleware
from memlane.api.common.errors import install_error_handlers
from memlane.api.common.openapi import install_openapi
from memlane.api.common.slash_redirect import use_relative_slash_redirects
from memlane.api.conversation import routes as conversation
from memlane.api.erasure import routes as erasure
from memlane.api.graph import routes as graph
from memlane.api.graph.requests import WriteRequest
from memlane.api.knowledge import routes as knowledge
from memlane.api.layers import routes as layers
from memlane.api.lifecycle import routes as lifecycle
from memlane.api.rules import routes as rules
from memlane.api.system import metrics
from memlane.api.system import routes as system
from memlane.api.tools import mcp_http
from memlane.api.tools import routes as tools
from memlane.api.ui.routes import mount_ui
from memlane.config import Settings
from memlane.domain.browser_policy import BrowserPolicy
from memlane.gc_freeze import freeze_startup_objects
from memlane.services.container import Services, open_services

log = logging.getLogger(__name__)


def create_app(
    settings: Settings | None = None, *, services: Services | None = None, freeze_startup_heap: bool = False
) -> FastAPI:
    """Build the app; with ``services`` given (tests), the caller owns their lifecycle.
    ``freeze_startup_heap`` is for the server process (gc_freeze.py), not for apps in tests."""
    settings = settings or (services.settings if services else Settings())

    app = FastAPI(
        title="memlane",
        version=__version__,
        description="Long-term memory for AI agents: graph memory, conversation memory, layered memory "
        "and agent tools on one core.",
        lifespan=_lifespan(settings, services, freeze_startup_heap=freeze_startup_heap),
        # served from packaged files, not a CDN (api/apidocs/routes.py)
        docs_url=None,
        redoc_url=None,
    )
    if services is not None:
        app.state.services = services

    browser = _install_edge(app, settings)
    use_relative_slash_redirects(app.router)

    # Built here, not in the lifespan, so a bad key registry or secret stops start-up at once.
    app.state.authenticator = Authenticator(settings)
    install_error_handlers(app)
    app.include_router(system.router)
    app.include_router(metrics.router)
    app.include_router(admin.router)
    app.include_router(graph.router)
    document_body_models(app, [WriteRequest])
    app.include_router(rules.router)
    app.include_router(lifecycle.router)
    app.include_router(conversation.router)
    app.include_router(layers.router)
    app.include_router(tools.router)
    app.include_router(knowledge.router)
    app.include_router(erasure.router)
    mount_ui(app)
    mount_docs(app)
    mcp_http.mount_mcp(app, browser)
    install_openapi(app, settings)
    return app


def _lifespan(
    settings: Settings, services: Services | None, *, freeze_startup_heap: bool
) -> Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]]:
    """Open the services (unless the caller gave them), start the in-process worker, have
    the services queue their periodic jobs (``Services.start_periodic``), and start watching
    the read replicas (store/postgres/replicas.py)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = services is None
        svc = services or await open_services(settings)
        app.state.services = svc
        if owned and settings.worker.in_process:
            svc.worker.start()
            requeued = await svc.embedding.requeue_stale_model()
            if requeued:
                log.info("embedding model is %s: %d nodes queued for re-embedding", svc.embedder.model_id, requeued)
        await svc.start_periodic()
        if svc.reads is not None:
            await svc.reads.start()
        if freeze_startup_heap:
            log.debug("froze %d start-up objects", freeze_startup_objects())
        try:
            yield
        finally:
            if owned:
                await svc.close()

    return lifespan


def _install_edge(app: FastAPI, settings: Settings) -> BrowserPolicy:
    """The middleware every request crosses first; the browser policy is returned for the MCP
    transport, which applies the same lists."""
    # outermost last: the body limit and metrics, then CORS (when configured), then the browser
    # boundary (Host, Origin, media type, security headers: browser_boundary.py)
    browser = BrowserPolicy.parse(settings.server.allowed_hosts, settings.server.cors_origins)
    app.add_middleware(BrowserBoundary, policy=browser)
    if browser.origins.enabled:
        add_cors(app, browser.origins)
    app.add_middleware(EdgeMiddleware, max_request_bytes=settings.server.max_request_bytes)
    return browser
