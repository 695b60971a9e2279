"""The one protocol every reranker implements, as ``embed/base.py`` does for embedders."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


class RerankFailed(RuntimeError):
    """The reranker could not score; recall keeps its own order (the ranking is still valid)."""


@runtime_checkable
class Reranker(Protocol):
    #: shown in logs and the benchmark
    model_id: str

    async def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        """One relevance score per document, higher is better; raises ``RerankFailed``."""
        ...

    async def aclose(self) -> None: ...
