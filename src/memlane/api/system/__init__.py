"""Health, the index of surfaces, and Prometheus metrics."""
