"""ASGI entry point for uvicorn: ``memlane.api.main:app``."""

from memlane.api.app import create_app

app = create_app(freeze_startup_heap=True)
