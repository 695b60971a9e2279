"""What every surface shares: typed dependencies, identity and credentials, the JSON body
reader, error envelopes, the OpenAPI document, the browser boundary and edge middleware."""
