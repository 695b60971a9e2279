"""The layered surface (docs/api-layers.md): /v1/layers/*."""
