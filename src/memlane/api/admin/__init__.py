"""The admin channel: /v1/admin export and import."""
