"""Wires settings into one set of services shared by every surface, the worker and the CLI.

Each feature is built here from exactly what it needs (no feature sees the container, so no
module imports this one back), once per process: one store, one embedder, one LLM client with
one call gate, one quota guard.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, TypeVar

from memlane.config import Settings, SettingsGroup
from memlane.domain.clock import Clock
from memlane.embed.base import Embedder
from memlane.embed.factory import build_embedder
from memlane.jobs.fair_share import FairBudget
from memlane.jobs.kinds import EMBED_NODES, RETENTION_SWEEP
from memlane.jobs.layers_kinds import KNOWLEDGE_SYNC, LAYERS_SWEEP
from memlane.jobs.worker import Handler, Worker
from memlane.llm.client import ChatClient
from memlane.llm.limits import CallGate
from memlane.rerank.factory import build_reranker
from memlane.services.backlog import BacklogGate
from memlane.services.conversation.wiring import ConversationConfig, ConversationServices, build_conversation
from memlane.services.embedding import EmbeddingService, embed_job_size
from memlane.services.embedding_context import ContextConfig
from memlane.services.erasure import ErasureService
from memlane.services.knowledge.service import KnowledgeService
from memlane.services.knowledge.sync import SyncService
from memlane.services.layers.expiry import ExpirySweeper
from memlane.services.layers.routing import LayerClassifier, LLMClassifier, RuleClassifier
from memlane.services.layers.service import LayeredMemoryService
from memlane.services.lifecycle import Lifecycle, build_lifecycle
from memlane.services.lifecycle.decay import DecayPolicy
from memlane.services.quotas import QuotaGuard, QuotaPolicy
from memlane.services.ranking.calibration import RelevanceScale
from memlane.services.ranking.config import RankingConfig
from memlane.services.reading import MemoryReader
from memlane.services.recall.graph_recall import GraphRecallService
from memlane.services.recall.service import RecallService
from memlane.services.retention import RetentionPolicy, RetentionService
from memlane.services.rules_service import RulesService
from memlane.services.tools.memory import MemoryTools
from memlane.services.tools.service import ToolService
from memlane.services.transfer.export import Exporter
from memlane.services.transfer.importer import Importer
from memlane.services.writing import WriteService
from memlane.store import migrate
from memlane.store.contracts import Store
from memlane.store.knowledge import KnowledgeStore
from memlane.store.read_routing import ReadRouting

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

log = logging.getLogger(__name__)

C = TypeVar("C", bound="DataclassInstance")


def from_settings(kind: type[C], group: SettingsGroup, *, prefix: str = "", **given: object) -> C:
    """A service's own frozen config from one settings group: each field of the dataclass ``kind``
    takes the setting named ``prefix + field`` when the group has one; the others keep their
    defaults or come from ``given``. Services never read Settings (the import contracts in
    pyproject.toml hold it): this is where settings become their values, so no field list is copied."""
    names = type(group).model_fields
    values = {f.name: getattr(group, prefix + f.name) for f in fields(kind) if prefix + f.name in names}
    return kind(**(values | given))


def build_store(settings: Settings, *, dimension: int) -> Store:
    url = settings.storage.resolved_database_url
    if settings.storage.backend == "postgres":
        from memlane.store.postgres.store import PostgresStore

        store: Store = PostgresStore(
            url,
            vector_dim=dimension,
            pool_size=settings.storage.db_pool_size,
            max_overflow=settings.storage.db_max_overflow,
            ef_search=settings.postgres.ef_search,
            iterative_scan=settings.postgres.iterative_scan,
            hnsw_m=settings.postgres.hnsw_m,
            hnsw_ef_construction=settings.postgres.hnsw_ef_construction,
            keyword_term_max_docs=settings.storage.keyword_term_max_docs,
        )
        return store
    from memlane.store.sqlite.store import SqliteStore

    return SqliteStore(
        url,
        vector_dim=dimension,
        approx_min_rows=settings.storage.vector_approx_min_rows,
        keyword_term_max_docs=settings.storage.keyword_term_max_docs,
        synchronous=settings.storage.sqlite_synchronous,
        vector_cache_bytes=settings.storage.vector_cache_mb * 1024 * 1024,
    )


def build_read_router(settings: Settings, store: Store) -> ReadRouting | None:
    """On PostgreSQL, the read replicas (``MEMLANE_DATABASE_READ_URLS``, none by default) and
    the primary's write positions; on SQLite nothing: every read is the one database's."""
    if settings.storage.backend != "postgres":
        return None
    from memlane.store.postgres.replicas import ReadRouter, replica_name
    from memlane.store.postgres.store import PostgresStore, create_pg_engine

    if not isinstance(store, PostgresStore):  # a wrapper in a test: reads stay where it sends them
        return None
    storage = settings.storage
    replicas = [
        (
            replica_name(url),
            create_pg_engine(
                url,
                pool_size=storage.db_pool_size,
                max_overflow=storage.db_max_overflow,
                pool_timeout=store.pool_timeout,
            ),
        )
        for url in storage.read_urls
    ]
    return ReadRouter(
        store.engine,
        replicas,
        read_after_wait_ms=storage.read_after_wait_ms,
        check_interval_ms=storage.replica_check_interval_ms,
        max_lag_ms=storage.replica_max_lag_ms,
    )


def build_llm(settings: Settings) -> ChatClient | None:
    """The process's one LLM client (``MEMLANE_LLM_BASE_URL``), or None for the offline paths."""
    if not settings.llm.base_url:
        return None
    gate = CallGate(
        max_concurrency=settings.llm.max_concurrency,
        rate=settings.llm.rate_limit_rps,
        burst=settings.llm.rate_limit_burst,
    )
    return ChatClient(
        settings.llm.base_url,
        model=settings.llm.model,
        api_key=settings.llm.api_key,
        timeout_sec=settings.llm.timeout_sec,
        gate=gate,
    )


def build_classifier(settings: Settings, llm: ChatClient | None) -> LayerClassifier:
    """The LLM router when an LLM is configured and ``MEMLANE_LAYERS_LLM_ROUTING`` is on; the
    offline rules otherwise."""
    if llm is None or not settings.layers.llm_routing:
        return RuleClassifier()
    return LLMClassifier(llm)


@dataclass
class Services:
    """One field per feature; routers take it through ``api/common/deps.py``'s ``ServicesDep``."""

    settings: Settings
    clock: Clock
    store: Store
    embedder: Embedder
    embedding: EmbeddingService
    reader: MemoryReader
    writes: WriteService
    recall: RecallService
    #: the graph surface's recall: the recall with its rules block (services/recall/graph_recall.py)
    graph_recall: GraphRecallService
    worker: Worker
    backlog: BacklogGate
    quotas: QuotaGuard
    llm: ChatClient | None
    rules: RulesService
    lifecycle: Lifecycle
    conversation: ConversationServices
    layers: LayeredMemoryService
    knowledge: KnowledgeService
    sync: SyncService
    sweeper: ExpirySweeper
    tools: ToolService
    erasure: ErasureService
    retention: RetentionService
    exporter: Exporter
    importer: Importer
    #: PostgreSQL: where reads go and the primary's write positions (store/read_routing.py)
    reads: ReadRouting | None = None

    def handlers(self) -> dict[str, Handler]:
        return {
            EMBED_NODES: self.embedding.run_embed_job,
            LAYERS_SWEEP: self.sweeper.run_job,
            RETENTION_SWEEP: self.retention.run_job,
            KNOWLEDGE_SYNC: self.sync.run_job,
            **self.conversation.handlers(),
            **self.lifecycle.handlers(),
        }

    async def start_periodic(self) -> None:
        """Make sure this period's periodic jobs are queued: decay (docs/lifecycle.md) and
        retention (services/retention.py). Each is a database row that chains its successor
        when it runs, so any worker process runs it, whether or not this process runs one, and
        there is nothing to stop but the worker (``close``). A database hiccup must not stop
        start-up: the job is then left for the next start (or another process) to queue."""
        for name, schedule in (
            ("decay", self.lifecycle.decay.ensure_scheduled),
            ("retention", self.retention.ensure_scheduled),
        ):
            try:
                if await schedule() is not None:
                    self.worker.notify()
            except Exception:
                log.warning("could not schedule the periodic %s job", name, exc_info=True)

    async def close(self) -> None:
        await self.worker.stop()
        await self.recall.drain_audit()
        await self.embedder.aclose()
        if self.recall.reranker is not None:
            await self.recall.reranker.aclose()
        await self.quotas.aclose()
        if self.reads is not None:
            await self.reads.close()
        await self.store.close()


async def open_services(
    settings: Settings, *, clock: Clock | None = None, embedder: Embedder | None = None, auto_migrate: bool = True
) -> Services:
    """Open the store (migrating it first when asked), load the embedder, build the services."""
    clock = clock or Clock()
    if auto_migrate:
        await asyncio.to_thread(migrate.upgrade, settings.storage.resolved_database_url)
    if embedder is None:
        embedder = await asyncio.to_thread(build_embedder, settings)
    store = build_store(settings, dimension=embedder.dimension)
    await store.open()
    return build_services(settings, store, embedder, clock=clock)


def build_services(settings: Settings, store: Store, embedder: Embedder, *, clock: Clock) -> Services:
    """Every feature on one core (``_Core``); the worker then runs the jobs they handle."""
    core = _core(settings, store, embedder, clock)
    writes = core.writes
    kstore = KnowledgeStore(store)
    sweeper = _sweeper(core, kstore)
    knowledge = _knowledge(core, kstore)
    sync = _sync(core, kstore, knowledge)
    recall = RecallService(
        store,
        core.reader,
        clock=clock,
        dimension=embedder.dimension,
        ranking=from_settings(RankingConfig, settings.recall),
        relevance=from_settings(RelevanceScale, settings.recall, prefix="relevance_"),
        reranker=build_reranker(settings),
        rerank_top_k=settings.rerank.top_k,
    )
    rules = RulesService(store, writes, clock=clock)
    conversation = _conversation(core)
    services = Services(
        settings=settings,
        clock=clock,
        store=store,
        embedder=embedder,
        embedding=core.embedding,
        reader=core.reader,
        writes=writes,
        recall=recall,
        graph_recall=GraphRecallService(recall, rules, core.embedding),
        worker=core.worker,
        backlog=_backlog(core),
        quotas=core.quotas,
        llm=core.llm,
        rules=rules,
        lifecycle=build_lifecycle(
            store,
            writes,
            clock=clock,
            decay=from_settings(DecayPolicy, settings.decay),
            job_max_attempts=settings.worker.job_max_attempts,
        ),
        conversation=conversation,
        layers=_layers(core, sweeper),
        knowledge=knowledge,
        sync=sync,
        sweeper=sweeper,
        exporter=_exporter(core, knowledge, conversation),
        importer=_importer(core, knowledge, conversation),
        tools=_tools(core, sweeper, knowledge, sync),
        erasure=_erasure(core, recall, rules),
        retention=_retention(core),
        reads=build_read_router(settings, store),
    )
    core.worker.handlers.update(services.handlers())
    return services


@dataclass(frozen=True, slots=True)
class _Core:
    """What the features are built on: one store, embedder and clock, the embedding service,
    the worker, the reader and the writer, one quota guard and one LLM client."""

    settings: Settings
    store: Store
    embedder: Embedder
    clock: Clock
    embedding: EmbeddingService
    worker: Worker
    reader: MemoryReader
    writes: WriteService
    quotas: QuotaGuard
    llm: ChatClient | None


def _core(settings: Settings, store: Store, embedder: Embedder, clock: Clock) -> _Core:
    # a whole job per embedder call: the embedder batches and length-sorts internally, and one
    # write transaction per job instead of per 32 nodes (measured 138 -> 261 texts/s)
    embedding = EmbeddingService(
        store,
        embedder,
        clock=clock,
        batch_size=512,
        context=ContextConfig(window=settings.embedding.context_window, speaker=settings.embedding.context_speaker),
        relevance=from_settings(RelevanceScale, settings.recall, prefix="relevance_"),
        query_cache_size=settings.embedding.query_cache,
    )
    worker = Worker(
        store,
        {},
        clock=clock,
        poll_interval=settings.worker.poll_interval_sec,
        lease_sec=settings.worker.job_lease_sec,
        batch_handlers={EMBED_NODES: embedding.run_embed_jobs},
        batch_limit=settings.worker.embed_job_batch,
        batch_budgets={EMBED_NODES: FairBudget(settings.worker.embed_round_nodes, embed_job_size)},
        concurrency=settings.worker.concurrency,
        gather_sec=settings.worker.gather_ms / 1000,
    )
    writes = WriteService(
        store,
        clock=clock,
        dimension=embedder.dimension,
        default_auto_embed=settings.writes.auto_embed,
        job_max_attempts=settings.worker.job_max_attempts,
        on_jobs=worker.notify_batched,
        concurrency=settings.writes.concurrency,
    )
    return _Core(
        settings=settings,
        store=store,
        embedder=embedder,
        clock=clock,
        embedding=embedding,
        worker=worker,
        reader=MemoryReader(store, clock),
        writes=writes,
        quotas=QuotaGuard(from_settings(QuotaPolicy, settings.quotas)),
        llm=build_llm(settings),
    )


def _sweeper(core: _Core, kstore: KnowledgeStore) -> ExpirySweeper:
    return ExpirySweeper(
        core.store,
        kstore,
        writes=core.writes,
        clock=core.clock,
        ttl_hours=core.settings.layers.workspace_ttl_hours,
        interval_sec=core.settings.layers.sweep_interval_sec,
        job_max_attempts=core.settings.worker.job_max_attempts,
        notify=core.worker.notify,
    )


def _knowledge(core: _Core, kstore: KnowledgeStore) -> KnowledgeService:
    return KnowledgeService(
        kstore,
        core.embedding,
        clock=core.clock,
        folder=core.settings.layers.knowledge_dir,
        json_limits=core.settings.server.json_limits,
    )


def _sync(core: _Core, kstore: KnowledgeStore, knowledge: KnowledgeService) -> SyncService:
    return SyncService(
        writes=core.writes,
        kstore=kstore,
        knowledge=knowledge,
        embedding=core.embedding,
        clock=core.clock,
        scope=core.settings.defaults.scope,
    )


def _conversation(core: _Core) -> ConversationServices:
    return build_conversation(
        store=core.store,
        reader=core.reader,
        embedding=core.embedding,
        writes=core.writes,
        config=from_settings(
            ConversationConfig,
            core.settings.conversation,
            job_max_attempts=core.settings.worker.job_max_attempts,
        ),
        clock=core.clock,
        llm=core.llm,
        notify=core.worker.notify,
    )


def _backlog(core: _Core) -> BacklogGate:
    settings = core.settings
    return BacklogGate(
        core.store,
        clock=core.clock,
        limit=settings.writes.backlog_max,
        retry_after_sec=settings.writes.backlog_retry_after_sec,
        slow_at=settings.writes.backlog_slow,
        wait_sec=settings.writes.backlog_wait_sec,
    )


def _layers(core: _Core, sweeper: ExpirySweeper) -> LayeredMemoryService:
    return LayeredMemoryService(
        reader=core.reader,
        writes=core.writes,
        embedding=core.embedding,
        clock=core.clock,
        classifier=build_classifier(core.settings, core.llm),
        on_write=sweeper.ensure_scheduled,
    )


def _exporter(core: _Core, knowledge: KnowledgeService, conversation: ConversationServices) -> Exporter:
    return Exporter(
        core.store,
        core.reader,
        knowledge,
        conversation.batcher,
        clock=core.clock,
        model_id=core.embedder.model_id,
        dimension=core.embedder.dimension,
    )


def _importer(core: _Core, knowledge: KnowledgeService, conversation: ConversationServices) -> Importer:
    return Importer(
        core.reader,
        core.writes,
        knowledge,
        conversation.batcher,
        model_id=core.embedder.model_id,
        dimension=core.embedder.dimension,
        json_limits=core.settings.server.json_limits,
    )


def _tools(core: _Core, sweeper: ExpirySweeper, knowledge: KnowledgeService, sync: SyncService) -> ToolService:
    """The tool surface: memory tools (add, search ...) beside the knowledge tools."""
    settings = core.settings
    memory_tools = MemoryTools(
        reader=core.reader,
        writes=core.writes,
        embedding=core.embedding,
        clock=core.clock,
        scope=settings.defaults.scope,
        on_write=sweeper.ensure_scheduled,
        json_limits=settings.server.json_limits,
    )
    return ToolService(
        core.store,
        memory_tools,
        knowledge,
        sync,
        clock=core.clock,
        quotas=core.quotas,
        sync_timeout_sec=settings.layers.sync_timeout_sec,
        job_max_attempts=settings.worker.job_max_attempts,
        notify=core.worker.notify,
    )


def _erasure(core: _Core, recall: RecallService, rules: RulesService) -> ErasureService:
    return ErasureService(
        core.store,
        recall=recall,
        rules=rules,
        clock=core.clock,
        knowledge_scope=core.settings.defaults.scope,
        hash_key=core.settings.security.erasure_hash_key,
    )


def _retention(core: _Core) -> RetentionService:
    return RetentionService(
        core.store,
        clock=core.clock,
        policy=from_settings(RetentionPolicy, core.settings.retention),
        job_max_attempts=core.settings.worker.job_max_attempts,
    )
