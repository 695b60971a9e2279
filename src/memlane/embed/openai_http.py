"""Any OpenAI-compatible ``POST {base_url}/embeddings`` (OpenAI, vLLM, Ollama, LiteLLM, TEI...).

Every way the provider can fail is turned into one of three errors, so the API can tell a
client whether to retry (rate limited / unavailable, with ``retry_after``) or not (bad
response). Nothing the provider returns is trusted: a vector of the wrong length or with a NaN
would otherwise be written to the index and poison every later search.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import numpy as np
import numpy.typing as npt

from memlane.domain.errors import (
    UpstreamEmbeddingBadResponse,
    UpstreamEmbeddingRateLimited,
    UpstreamEmbeddingUnavailable,
    UpstreamError,
)
from memlane.domain.redaction import redact
from memlane.embed.base import Vectors, l2_normalise

DEFAULT_RATE_LIMIT_RETRY_AFTER = 1.0
DEFAULT_UNAVAILABLE_RETRY_AFTER = 2.0
#: how much of an upstream error body is quoted back; enough to see the reason, not a page
_BODY_EXCERPT_CHARS = 300


def parse_retry_after(value: str | None, default: float, *, now: float | None = None) -> float:
    """RFC 9110 allows delta-seconds or an HTTP date; anything unparsable falls back to the
    default rather than failing, since the header is only advice."""
    if value is None or not value.strip():
        return default
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return default
        if when.tzinfo is None:
            return default
        seconds = when.timestamp() - (time.time() if now is None else now)
    if not math.isfinite(seconds):
        return default
    return max(0.0, seconds)


def _display_url(url: str) -> str:
    """Base URLs may carry ``user:password@``; messages and logs get the URL without it."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


class OpenAIEmbedder:
    """One shared ``httpx.AsyncClient`` so connections (and TLS sessions) are reused across
    requests; batches are sent one after another so a single call cannot burst past the
    provider's rate limit."""

    provider = "openai"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        dimension: int,
        api_key: str | None = None,
        timeout_sec: float = 10.0,
        batch_size: int = 32,
        send_dimensions: bool = False,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if dimension < 1:
            raise ValueError("dimension must be at least 1")
        self.model_id = model
        self.dimension = dimension
        self.batch_size = batch_size
        self.timeout_sec = timeout_sec
        self.send_dimensions = send_dimensions
        self._api_key = api_key or None
        self._url = base_url.rstrip("/") + "/embeddings"
        self._shown_url = _display_url(self._url)
        headers = {"Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        self._client = httpx.AsyncClient(
            headers=headers,
            timeout=httpx.Timeout(timeout_sec),
            follow_redirects=False,
            transport=transport,
        )

    def __repr__(self) -> str:
        # never let the key reach a log line through repr()
        return f"OpenAIEmbedder(url={self._shown_url!r}, model={self.model_id!r}, dimension={self.dimension})"

    async def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            out[start : start + len(batch)] = await self._embed_batch(batch)
        return out

    async def aclose(self) -> None:
        await self._client.aclose()

    async def _embed_batch(self, batch: list[str]) -> Vectors:
        payload: dict[str, Any] = {"model": self.model_id, "input": batch}
        if self.send_dimensions:
            payload["dimensions"] = self.dimension
        where = f"embedding provider {self._shown_url} (model {self.model_id!r})"
        try:
            # httpx's timeout is per network operation; the outer deadline bounds a server
            # that trickles bytes, so one request never takes longer than configured.
            async with asyncio.timeout(self.timeout_sec):
                response = await self._client.post(self._url, json=payload)
        except (httpx.TimeoutException, TimeoutError) as exc:
            raise self._redact(
                UpstreamEmbeddingUnavailable(
                    f"{where} did not answer within {self.timeout_sec:g}s",
                    retry_after=DEFAULT_UNAVAILABLE_RETRY_AFTER,
                )
            ) from exc
        except httpx.RequestError as exc:
            raise self._redact(
                UpstreamEmbeddingUnavailable(
                    f"{where} could not be reached: {type(exc).__name__}: {exc}",
                    retry_after=DEFAULT_UNAVAILABLE_RETRY_AFTER,
                )
            ) from exc

        status = response.status_code
        if status == 429:
            raise self._redact(
                UpstreamEmbeddingRateLimited(
                    f"{where} is rate limiting requests (HTTP 429)",
                    retry_after=parse_retry_after(response.headers.get("retry-after"), DEFAULT_RATE_LIMIT_RETRY_AFTER),
                    details={"upstream_status": status},
                )
            )
        if status >= 500:
            raise self._redact(
                UpstreamEmbeddingUnavailable(
                    f"{where} failed with HTTP {status}: {_excerpt(response)}",
                    retry_after=parse_retry_after(response.headers.get("retry-after"), DEFAULT_UNAVAILABLE_RETRY_AFTER),
                    details={"upstream_status": status},
                )
            )
        if not 200 <= status < 300:
            raise self._redact(
                UpstreamEmbeddingBadResponse(
                    f"{where} rejected the request with HTTP {status}: {_excerpt(response)}",
                    details={"upstream_status": status},
                )
            )
        try:
            return self._parse(response, len(batch))
        except _Malformed as exc:
            raise self._redact(UpstreamEmbeddingBadResponse(f"{where} returned a malformed response: {exc}")) from exc

    def _parse(self, response: httpx.Response, expected: int) -> Vectors:
        try:
            body = response.json()
        except ValueError as exc:
            raise _Malformed(f"body is not JSON ({_excerpt(response)})") from exc
        if not isinstance(body, dict):
            raise _Malformed("body is not a JSON object")
        data = body.get("data")
        if not isinstance(data, list):
            raise _Malformed("'data' is missing or not a list")
        if len(data) != expected:
            raise _Malformed(f"expected {expected} embeddings, got {len(data)}")
        out = np.empty((expected, self.dimension), dtype=np.float32)
        seen: set[int] = set()
        for position, item in enumerate(data):
            if not isinstance(item, dict):
                raise _Malformed(f"data[{position}] is not an object")
            index = item.get("index", position)
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < expected:
                raise _Malformed(f"data[{position}].index {index!r} is not in 0..{expected - 1}")
            if index in seen:
                raise _Malformed(f"index {index} appears twice")
            seen.add(index)
            out[index] = self._vector(item.get("embedding"), index)
        return l2_normalise(out)

    def _vector(self, embedding: object, index: int) -> npt.NDArray[np.float64]:
        if not isinstance(embedding, list):
            raise _Malformed(f"embedding {index} is not a list of numbers (base64 encoding is not supported)")
        if len(embedding) != self.dimension:
            raise _Malformed(
                f"embedding {index} has {len(embedding)} dimensions, configured dimension is "
                f"{self.dimension} (MEMLANE_EMBEDDING_DIMENSION)"
            )
        # bool is an int subclass and numpy would silently turn numeric strings into floats
        if not all(type(v) is float or type(v) is int for v in embedding):
            raise _Malformed(f"embedding {index} contains non-numeric values")
        vector = np.asarray(embedding, dtype=np.float64)
        if not np.all(np.isfinite(vector)):
            raise _Malformed(f"embedding {index} contains NaN or infinite values")
        if not np.any(vector):
            # a zero vector has no direction: cosine against it is undefined (NaN in pgvector)
            raise _Malformed(f"embedding {index} is all zeros")
        return vector

    def _redact(self, error: UpstreamError) -> UpstreamError:
        """Upstream error bodies sometimes echo the request headers back; the key must not
        travel on in our message, logs or API responses."""
        error.message = redact(error.message, self._api_key)
        error.args = (error.message,)
        return error


class _Malformed(Exception):
    """Internal: a response body that does not follow the embeddings API shape."""


def _excerpt(response: httpx.Response) -> str:
    text = response.text.strip().replace("\n", " ")
    if not text:
        return "(empty body)"
    if len(text) > _BODY_EXCERPT_CHARS:
        text = text[:_BODY_EXCERPT_CHARS] + "..."
    return text
