"""``/docs`` and ``/redoc`` from packaged files, so they work on a machine with no internet.

FastAPI's own pages load Swagger UI and ReDoc from a CDN and start them with an inline
script: offline they are blank, and a Content-Security-Policy without ``'unsafe-inline'``
blocks them. Here the two bundles come from the ``fastapi-offline`` package (a wheel that
ships them; only its files are used) and each page is markup plus scripts of this origin:
Swagger UI's start-up is ``static/swagger-init.js``, which reads the document's URL from a
``data-`` attribute; ReDoc starts itself on its ``<redoc spec-url>`` element.

The pages carry their own policy (``DOCS_CSP``): scripts of this origin only. Styles may be
inline (ReDoc writes its styles into ``<style>`` elements at run time) and ReDoc's search
runs in a ``blob:`` worker; neither can run a script.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.routing import Route

from memlane.api.common.route_labels import LabelledMount, LabelledRoute

HERE = Path(__file__).parent
ASSETS = "/docs/assets"
DOCS_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)

router = APIRouter(include_in_schema=False)

_SWAGGER = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title} - Swagger UI</title>
<link rel="icon" type="image/png" href="{assets}/favicon.png">
<link rel="stylesheet" href="{assets}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-openapi-url="{openapi}"></div>
<script src="{assets}/swagger-ui-bundle.js"></script>
<script src="{assets}/swagger-init.js"></script>
</body>
</html>
"""

_REDOC = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} - ReDoc</title>
<link rel="icon" type="image/png" href="{assets}/favicon.png">
<link rel="stylesheet" href="{assets}/redoc.css">
</head>
<body>
<redoc spec-url="{openapi}"></redoc>
<script src="{assets}/redoc.standalone.js"></script>
</body>
</html>
"""


def _page(request: Request, template: str) -> HTMLResponse:
    app = request.app
    root = str(request.scope.get("root_path", ""))
    html = template.format(
        title=escape(app.title), assets=escape(root + ASSETS), openapi=escape(root + (app.openapi_url or ""))
    )
    return HTMLResponse(html, headers={"content-security-policy": DOCS_CSP})


@router.get("/docs")
async def swagger_ui(request: Request) -> HTMLResponse:
    return _page(request, _SWAGGER)


@router.get("/redoc")
async def redoc(request: Request) -> HTMLResponse:
    return _page(request, _REDOC)


def mount_docs(app: FastAPI) -> None:
    """Add the two pages and their files to an app built with ``docs_url=None, redoc_url=None``.

    The files are memlane's own (``static/``) and, for the bundles, ``fastapi_offline``'s.
    ``/openapi.json``, a plain Starlette route of FastAPI's, is relabelled so its requests are
    counted under their own route (route_labels.py)."""
    app.include_router(router)
    files = StaticFiles(packages=[("memlane.api.apidocs", "static"), ("fastapi_offline", "static")])
    app.router.routes.append(LabelledMount(ASSETS, files, name="docs-assets"))
    for i, route in enumerate(app.router.routes):
        if isinstance(route, Route) and not isinstance(route, LabelledRoute) and route.path == app.openapi_url:
            app.router.routes[i] = LabelledRoute(
                route.path, route.endpoint, methods=list(route.methods or ()), include_in_schema=False
            )
