"""The memory browser at ``/ui``: server-rendered pages (Jinja2) with htmx, shipped in the package."""
