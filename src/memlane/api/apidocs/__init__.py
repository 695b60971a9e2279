"""``/docs`` (Swagger UI) and ``/redoc`` served from files installed with memlane, no CDN."""
