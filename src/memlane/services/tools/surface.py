"""Builds the layered-memory, knowledge, sync and tool services once per process, on the
shared Services container (``services.extras["layers_tools"]``), and registers their jobs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memlane.jobs.layers_kinds import KNOWLEDGE_SYNC, LAYERS_SWEEP
from memlane.jobs.worker import Handler
from memlane.services.container import Services
from memlane.services.knowledge.service import KnowledgeService
from memlane.services.knowledge.sync import SyncService
from memlane.services.layers.expiry import ExpirySweeper
from memlane.services.layers.routing import LayerClassifier, LLMClassifier, RuleClassifier
from memlane.services.layers.service import LayeredMemoryService
from memlane.services.tools.memory import MemoryTools
from memlane.services.tools.service import ToolService
from memlane.store.knowledge import KnowledgeStore

KEY = "layers_tools"


@dataclass
class LayersToolsSurface:
    layers: LayeredMemoryService
    knowledge: KnowledgeService
    sync: SyncService
    tools: ToolService
    sweeper: ExpirySweeper
    classifier: LayerClassifier


def build_classifier(svc: Services) -> LayerClassifier:
    """The LLM router when an LLM is configured (``MEMLANE_LLM_BASE_URL``) and
    ``MEMLANE_LAYERS_LLM_ROUTING`` is on; the offline rules otherwise."""
    settings = svc.settings
    base_url = getattr(settings, "llm_base_url", None)
    if not base_url or not settings.layers_llm_routing:
        return RuleClassifier()
    from memlane.llm.client import ChatClient
    from memlane.llm.limits import CallGate

    gate = CallGate(
        max_concurrency=settings.llm_max_concurrency,
        rate=settings.llm_rate_limit_rps,
        burst=settings.llm_rate_limit_burst,
    )
    client = ChatClient(
        base_url,
        model=settings.llm_model,
        api_key=settings.llm_api_key,
        timeout_sec=settings.llm_timeout_sec,
        gate=gate,
    )
    return LLMClassifier(client)


def surface(svc: Services) -> LayersToolsSurface:
    existing: Any = svc.extras.get(KEY)
    if isinstance(existing, LayersToolsSurface):
        return existing
    settings = svc.settings
    kstore = KnowledgeStore(svc.store)
    sweeper = ExpirySweeper(
        svc.store,
        kstore,
        clock=svc.clock,
        ttl_hours=settings.workspace_ttl_hours,
        interval_sec=settings.layers_sweep_interval_sec,
        notify=svc.worker.notify,
    )
    classifier = build_classifier(svc)
    layers = LayeredMemoryService(
        svc.store, svc.embedder, kstore, clock=svc.clock, classifier=classifier, on_write=sweeper.ensure_scheduled
    )
    knowledge = KnowledgeService(kstore, svc.embedder, clock=svc.clock, folder=settings.knowledge_dir)
    sync = SyncService(svc.store, kstore, knowledge, svc.embedder, clock=svc.clock, scope=settings.default_scope)
    memory = MemoryTools(
        svc.store, svc.embedder, clock=svc.clock, scope=settings.default_scope, on_write=sweeper.ensure_scheduled
    )
    tools = ToolService(
        svc.store,
        memory,
        knowledge,
        sync,
        clock=svc.clock,
        sync_timeout_sec=settings.sync_timeout_sec,
        notify=svc.worker.notify,
    )
    built = LayersToolsSurface(
        layers=layers, knowledge=knowledge, sync=sync, tools=tools, sweeper=sweeper, classifier=classifier
    )
    svc.extras[KEY] = built
    return built


def handlers(svc: Services) -> dict[str, Handler]:
    """Job handlers, resolved lazily so building the container stays cheap."""

    async def sweep(job: Any) -> dict[str, Any] | None:
        return await surface(svc).sweeper.run_job(job)

    async def sync(job: Any) -> dict[str, Any] | None:
        return await surface(svc).sync.run_job(job)

    return {LAYERS_SWEEP: sweep, KNOWLEDGE_SYNC: sync}
