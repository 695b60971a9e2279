"""Settings read from the environment, in one place, so every knob is documented once.

Names follow the specs where they name a variable (``MEMORY_TENANT_ID``, ``ADMIN_TOKEN``,
``NODE_ENV``); memlane's own knobs carry the ``MEMLANE_`` prefix.

The settings come in groups, one class per concern (``settings.storage``, ``settings.recall``,
...), so a reader sees which knobs belong together; services/container.py turns a group into
what each service takes (services never import this module).
The environment's names are flat and stay so: each group reads its own variables by their full
names (no prefix, no nesting delimiter), and ``Settings(**env)`` takes the same names, routing
each to its group. This module imports nothing of memlane but domain (pyproject.toml's import
contracts hold it).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, SettingsConfigDict

from memlane.domain.addresses import parse_allowed_hosts as parse_webhook_allowed_hosts
from memlane.domain.browser_policy import parse_allowed_hosts, parse_cors_origins
from memlane.domain.inputs import JsonLimits


def _env(*names: str) -> AliasChoices:
    return AliasChoices(*names)


class SettingsGroup(BaseSettings):
    """A group reads only its own variables, by their full names; a .env file is never read."""

    model_config = SettingsConfigDict(env_file=None, extra="ignore", populate_by_name=True)

    @classmethod
    def env_names(cls) -> Iterator[tuple[str, tuple[str, ...]]]:
        """Each field and the environment names it is read from, the first preferred."""
        for name, field in cls.model_fields.items():
            yield name, _names_of(name, field)


def _names_of(name: str, field: FieldInfo) -> tuple[str, ...]:
    alias = field.validation_alias
    return tuple(str(n) for n in alias.choices) if isinstance(alias, AliasChoices) else (name,)


class ServerSettings(SettingsGroup):
    """The HTTP server: where it listens, what it accepts, and the browser boundary."""

    host: str = Field("127.0.0.1", validation_alias=_env("MEMLANE_HOST"))
    port: int = Field(8000, validation_alias=_env("MEMLANE_PORT"))
    log_level: str = Field("info", validation_alias=_env("MEMLANE_LOG_LEVEL"))
    node_env: str | None = Field(None, validation_alias=_env("NODE_ENV"))
    memlane_env: str | None = Field(None, validation_alias=_env("MEMLANE_ENV"))
    max_request_bytes: int = Field(8 * 1024 * 1024, validation_alias=_env("MEMLANE_MAX_REQUEST_BYTES"))
    # the browser boundary (domain/browser_policy.py): Host names answered besides the loopback
    # names on the serving port, and web origins that may call memlane (CORS); both may be *
    allowed_hosts: str = Field("", validation_alias=_env("MEMLANE_ALLOWED_HOSTS"))
    cors_origins: str = Field("", validation_alias=_env("MEMLANE_CORS_ORIGINS"))
    # free-form JSON in requests and import records (a node's slots, metadata, planner contexts):
    # nesting, object keys and compact size of one value (docs/api-graph.md, "Input limits")
    json_max_depth: int = Field(32, ge=1, le=128, validation_alias=_env("MEMLANE_JSON_MAX_DEPTH"))
    json_max_keys: int = Field(1000, ge=1, le=1_000_000, validation_alias=_env("MEMLANE_JSON_MAX_KEYS"))
    json_max_bytes: int = Field(64 * 1024, ge=256, le=64 * 1024 * 1024, validation_alias=_env("MEMLANE_JSON_MAX_BYTES"))

    @field_validator("allowed_hosts", "cors_origins")
    @classmethod
    def _browser_policy_parses(cls, value: str, info: ValidationInfo) -> str:
        (parse_allowed_hosts if info.field_name == "allowed_hosts" else parse_cors_origins)(value)
        return value

    @property
    def is_production(self) -> bool:
        """Both the contract's NODE_ENV and memlane's own MEMLANE_ENV count."""
        return "production" in {(self.node_env or "").lower(), (self.memlane_env or "").lower()}

    @cached_property
    def json_limits(self) -> JsonLimits:
        """The bounds of one free-form JSON value of a request or an import record."""
        return JsonLimits(max_depth=self.json_max_depth, max_keys=self.json_max_keys, max_bytes=self.json_max_bytes)


class DefaultsSettings(SettingsGroup):
    """The tenant, scope and identity a request acts for when it names none."""

    tenant_id: str = Field("default", validation_alias=_env("MEMORY_TENANT_ID"))
    scope: str = Field("default", validation_alias=_env("MEMORY_SCOPE", "MEMLANE_DEFAULT_SCOPE"))
    # the identity the agent tools act for when a request names none (auth off only)
    user_id: str = Field("default", min_length=1, validation_alias=_env("MEMORY_DEFAULT_USER_ID"))
    agent_id: str = Field("default", min_length=1, validation_alias=_env("MEMORY_DEFAULT_AGENT_ID"))
    session_id: str = Field("default", min_length=1, validation_alias=_env("MEMORY_DEFAULT_SESSION_ID"))


class SecuritySettings(SettingsGroup):
    """Who may call (docs/security.md) and the keys memlane signs with."""

    auth_mode: Literal["off", "api_key", "jwt", "api_key_or_jwt"] = Field(
        "off", validation_alias=_env("MEMORY_AUTH_MODE")
    )
    api_keys_json: str | None = Field(None, validation_alias=_env("MEMORY_API_KEYS_JSON"))
    jwt_hs256_secret: str | None = Field(None, validation_alias=_env("MEMORY_JWT_HS256_SECRET"))
    jwt_clock_skew_sec: float = Field(30.0, validation_alias=_env("MEMORY_JWT_CLOCK_SKEW_SEC"))
    #: a token without ``exp`` is refused: a leaked token that never expires is a key
    jwt_require_exp: bool = Field(True, validation_alias=_env("MEMORY_JWT_REQUIRE_EXP"))
    admin_token: str | None = Field(None, validation_alias=_env("ADMIN_TOKEN"))
    #: key of the erasure receipt's subject HMAC; unset: generated once and kept in the database
    erasure_hash_key: str | None = Field(None, min_length=16, validation_alias=_env("MEMLANE_ERASURE_HASH_KEY"))


def split_read_urls(value: str) -> tuple[str, ...]:
    """Comma-separated URLs, where a URL's own host list (``postgresql://u@h1:5432,h2:5433/db``)
    also holds commas: a new URL starts only where a part begins with a scheme."""
    urls: list[str] = []
    for part in value.split(","):
        part = part.strip()
        if not part:
            continue
        if "://" in part or not urls:
            urls.append(part)
        else:
            urls[-1] += "," + part
    return tuple(urls)


class StorageSettings(SettingsGroup):
    """Where memories are kept, and the knobs both backends share."""

    data_dir: Path = Field(Path("data"), validation_alias=_env("MEMLANE_DATA_DIR"))
    database_url: str | None = Field(None, validation_alias=_env("MEMLANE_DATABASE_URL"))
    db_pool_size: int = Field(10, validation_alias=_env("MEMLANE_DB_POOL_SIZE"))
    db_max_overflow: int = Field(10, ge=0, validation_alias=_env("MEMLANE_DB_MAX_OVERFLOW"))
    vector_approx_min_rows: int = Field(20_000, ge=0, validation_alias=_env("MEMLANE_VECTOR_APPROX_MIN_ROWS"))
    #: SQLite: memory the per-scope search caches may take in all, least recently searched
    #: scopes dropped beyond it (store/sqlite/store.py)
    vector_cache_mb: int = Field(4096, ge=1, le=1_048_576, validation_alias=_env("MEMLANE_VECTOR_CACHE_MB"))
    keyword_term_max_docs: int = Field(2000, ge=0, validation_alias=_env("MEMLANE_KEYWORD_TERM_MAX_DOCS"))
    # SQLite durability (docs/operations.md "Durability"): NORMAL survives a crash of the process
    # with nothing lost; FULL also survives a power loss or OS crash without losing acknowledged writes
    sqlite_synchronous: Literal["NORMAL", "FULL", "EXTRA"] = Field(
        "NORMAL", validation_alias=_env("MEMLANE_SQLITE_SYNCHRONOUS")
    )
    # PostgreSQL read replicas (docs/operations.md "Read replicas"): hot standbys that serve reads
    database_read_urls: str = Field("", validation_alias=_env("MEMLANE_DATABASE_READ_URLS"))
    read_after_wait_ms: int = Field(250, ge=0, le=60_000, validation_alias=_env("MEMLANE_READ_AFTER_WAIT_MS"))
    replica_check_interval_ms: int = Field(
        1000, ge=50, le=3_600_000, validation_alias=_env("MEMLANE_REPLICA_CHECK_INTERVAL_MS")
    )
    replica_max_lag_ms: int = Field(5000, ge=0, validation_alias=_env("MEMLANE_REPLICA_MAX_LAG_MS"))

    @field_validator("database_read_urls")
    @classmethod
    def _read_urls_are_postgres(cls, value: str) -> str:
        for url in split_read_urls(value):
            if not url.startswith(("postgresql://", "postgres://")):
                raise ValueError(
                    "MEMLANE_DATABASE_READ_URLS: each read replica is a postgresql:// URL "
                    f"(got one starting {url.split(':', 1)[0]!r})"
                )
        return value

    @model_validator(mode="after")
    def _replicas_need_postgres(self) -> StorageSettings:
        if self.read_urls and self.backend != "postgres":
            raise ValueError(
                "MEMLANE_DATABASE_READ_URLS needs MEMLANE_DATABASE_URL to be PostgreSQL: "
                "SQLite has no read replicas (unset MEMLANE_DATABASE_READ_URLS)"
            )
        return self

    @property
    def read_urls(self) -> tuple[str, ...]:
        """The read replicas' URLs; a libpq host list stays one URL (its hosts are separated
        by commas before the path, the URLs by commas after a path or query)."""
        return split_read_urls(self.database_read_urls)

    @cached_property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'memlane.db').resolve()}"

    @property
    def backend(self) -> Literal["sqlite", "postgres"]:
        url = self.resolved_database_url
        return "postgres" if url.startswith(("postgresql", "postgres")) else "sqlite"


class PostgresSettings(SettingsGroup):
    """PostgreSQL store tuning: the pgvector HNSW index and its search."""

    ef_search: int = Field(100, ge=1, le=1000, validation_alias=_env("MEMLANE_PG_EF_SEARCH"))
    iterative_scan: Literal["relaxed_order", "strict_order", "off"] = Field(
        "relaxed_order", validation_alias=_env("MEMLANE_PG_ITERATIVE_SCAN")
    )
    hnsw_m: int = Field(16, ge=2, le=100, validation_alias=_env("MEMLANE_PG_HNSW_M"))
    #: at least twice hnsw_m (checked below)
    hnsw_ef_construction: int = Field(128, ge=4, le=1000, validation_alias=_env("MEMLANE_PG_HNSW_EF_CONSTRUCTION"))

    @field_validator("hnsw_ef_construction")
    @classmethod
    def _ef_construction_covers_m(cls, value: int, info: ValidationInfo) -> int:
        m = info.data.get("hnsw_m")
        if m is not None and value < 2 * m:
            raise ValueError(f"MEMLANE_PG_HNSW_EF_CONSTRUCTION must be at least 2 x MEMLANE_PG_HNSW_M ({2 * m})")
        return value


class EmbeddingSettings(SettingsGroup):
    """The embedder that turns text into vectors, and how texts are framed for it."""

    embedder: Literal["local", "openai", "hashing"] = Field("local", validation_alias=_env("MEMLANE_EMBEDDER"))
    base_url: str | None = Field(None, validation_alias=_env("MEMLANE_EMBEDDING_BASE_URL"))
    api_key: str | None = Field(None, validation_alias=_env("MEMLANE_EMBEDDING_API_KEY"))
    model: str = Field("text-embedding-3-small", validation_alias=_env("MEMLANE_EMBEDDING_MODEL"))
    dimension: int = Field(1536, validation_alias=_env("MEMLANE_EMBEDDING_DIMENSION"))
    timeout_sec: float = Field(10.0, validation_alias=_env("MEMLANE_EMBEDDING_TIMEOUT_SEC"))
    batch_size: int = Field(32, validation_alias=_env("MEMLANE_EMBEDDING_BATCH_SIZE"))
    #: onnxruntime intra-op threads of the local model's background session (embedding jobs);
    #: queries have their own one-thread session
    threads: int = Field(1, ge=1, le=64, validation_alias=_env("MEMLANE_EMBEDDING_THREADS"))
    #: nice steps below the server that the local model's background session runs at, so
    #: requests get the CPU first (embed/background_thread.py); 0 = same priority
    background_nice: int = Field(10, ge=0, le=19, validation_alias=_env("MEMLANE_EMBEDDING_BACKGROUND_NICE"))
    #: query texts whose vectors are kept (most recent first); 0 = embed every query
    query_cache: int = Field(1024, ge=0, le=1_000_000, validation_alias=_env("MEMLANE_QUERY_EMBEDDING_CACHE"))
    context_window: int = Field(1, ge=0, le=8, validation_alias=_env("MEMLANE_EMBEDDING_CONTEXT_WINDOW"))
    context_speaker: bool = Field(True, validation_alias=_env("MEMLANE_EMBEDDING_CONTEXT_SPEAKER"))
    hashing_dimension: int = Field(384, validation_alias=_env("MEMLANE_HASHING_DIMENSION"))


class WorkerSettings(SettingsGroup):
    """The job worker: where it runs, how it polls, how much it takes at once."""

    in_process: bool = Field(True, validation_alias=_env("MEMLANE_WORKER_IN_PROCESS"))
    poll_interval_sec: float = Field(0.5, validation_alias=_env("MEMLANE_WORKER_POLL_INTERVAL_SEC"))
    gather_ms: float = Field(20.0, ge=0, le=5000, validation_alias=_env("MEMLANE_WORKER_GATHER_MS"))
    #: ``memlane worker`` serves its own ``/metrics`` on this port (on ``MEMLANE_HOST``); unset:
    #: it listens on no port (jobs/metrics_endpoint.py)
    metrics_port: int | None = Field(None, ge=1, le=65535, validation_alias=_env("MEMLANE_WORKER_METRICS_PORT"))
    #: jobs other than embedding a worker runs at once, each of a different tenant and scope
    concurrency: int = Field(4, ge=1, le=64, validation_alias=_env("MEMLANE_WORKER_CONCURRENCY"))
    embed_job_batch: int = Field(64, ge=1, le=4096, validation_alias=_env("MEMLANE_EMBED_JOB_BATCH"))
    #: nodes one round of the worker's embedding lane takes at most, the first job whole (the
    #: jobs of every tenant, shared fairly: jobs/fair_share.py); another tenant's write waits
    #: about one job behind a backlog
    embed_round_nodes: int = Field(128, ge=1, le=100_000, validation_alias=_env("MEMLANE_EMBED_ROUND_NODES"))
    job_lease_sec: float = Field(60.0, validation_alias=_env("MEMLANE_JOB_LEASE_SEC"))
    job_max_attempts: int = Field(5, validation_alias=_env("MEMLANE_JOB_MAX_ATTEMPTS"))


class WriteSettings(SettingsGroup):
    """Writes: whether they queue embedding, and the backpressure that keeps the queue bounded."""

    auto_embed: bool = Field(True, validation_alias=_env("MEMLANE_AUTO_EMBED"))
    #: writes applied at once per process; more wait their turn (services/writing.py); 0 = no limit
    concurrency: int = Field(4, ge=0, le=1024, validation_alias=_env("MEMLANE_WRITE_CONCURRENCY"))
    #: due queued jobs at which writes that queue work answer 503 + Retry-After (0 = never), to
    #: a tenant holding at least its share: this bound / the tenants with due jobs (services/backlog.py)
    backlog_max: int = Field(2000, ge=0, validation_alias=_env("MEMLANE_WRITE_BACKLOG_MAX"))
    backlog_retry_after_sec: float = Field(1.0, gt=0, validation_alias=_env("MEMLANE_WRITE_BACKLOG_RETRY_AFTER_SEC"))
    #: due queued jobs from which writes that queue work wait for the worker (at most
    #: backlog_wait_sec) before they are admitted, shared by tenants like the limit
    #: (services/backlog.py); 0 = never wait
    backlog_slow: int = Field(500, ge=0, validation_alias=_env("MEMLANE_WRITE_BACKLOG_SLOW"))
    backlog_wait_sec: float = Field(5.0, ge=0, le=60, validation_alias=_env("MEMLANE_WRITE_BACKLOG_WAIT_SEC"))


class RecallSettings(SettingsGroup):
    """Recall ranking signals (docs/api-graph.md "Ranking signals"), each can be switched off
    alone, and the relevance scale (services/ranking/calibration.py)."""

    keyword: bool = Field(True, validation_alias=_env("MEMLANE_RECALL_KEYWORD"))
    graph: bool = Field(True, validation_alias=_env("MEMLANE_RECALL_GRAPH"))
    time: bool = Field(True, validation_alias=_env("MEMLANE_RECALL_TIME"))
    entity: bool = Field(True, validation_alias=_env("MEMLANE_RECALL_ENTITY"))
    fusion: Literal["relative", "rrf"] = Field("relative", validation_alias=_env("MEMLANE_RECALL_FUSION"))
    rrf_k: int = Field(10, ge=0, le=1000, validation_alias=_env("MEMLANE_RECALL_RRF_K"))
    dense_weight: float = Field(0.4, ge=0, validation_alias=_env("MEMLANE_RECALL_DENSE_WEIGHT"))
    keyword_weight: float = Field(0.6, ge=0, validation_alias=_env("MEMLANE_RECALL_KEYWORD_WEIGHT"))
    candidates: int = Field(100, ge=1, le=1000, validation_alias=_env("MEMLANE_RECALL_CANDIDATES"))
    graph_weight: float = Field(1.0, ge=0, validation_alias=_env("MEMLANE_RECALL_GRAPH_WEIGHT"))
    entity_boost: float = Field(1.0, ge=0, validation_alias=_env("MEMLANE_RECALL_ENTITY_BOOST"))
    time_boost: float = Field(0.5, ge=0, validation_alias=_env("MEMLANE_RECALL_TIME_BOOST"))
    time_scale_days: float = Field(3.0, ge=0, validation_alias=_env("MEMLANE_RECALL_TIME_SCALE_DAYS"))
    time_statement_boost: float = Field(0.5, ge=0, validation_alias=_env("MEMLANE_RECALL_TIME_STATEMENT_BOOST"))
    episode_weight: float = Field(0.3, ge=0, validation_alias=_env("MEMLANE_RECALL_EPISODE_WEIGHT"))
    entity_link_weight: float = Field(0.0, ge=0, validation_alias=_env("MEMLANE_RECALL_ENTITY_LINK_WEIGHT"))
    category_keyword_weight: float = Field(0.5, ge=0, validation_alias=_env("MEMLANE_RECALL_CATEGORY_KEYWORD_WEIGHT"))
    query_rewrite_weight: float = Field(0.0, ge=0, le=1, validation_alias=_env("MEMLANE_RECALL_QUERY_REWRITE_WEIGHT"))
    prf_seeds: int = Field(0, ge=0, le=50, validation_alias=_env("MEMLANE_RECALL_PRF_SEEDS"))
    prf_weight: float = Field(0.3, ge=0, le=1, validation_alias=_env("MEMLANE_RECALL_PRF_WEIGHT"))
    skip_speaker_names: bool = Field(True, validation_alias=_env("MEMLANE_RECALL_SKIP_SPEAKER_NAMES"))
    relevance_midpoint: float = Field(0.22, ge=-1, le=1, validation_alias=_env("MEMLANE_RELEVANCE_MIDPOINT"))
    relevance_scale: float = Field(0.123, gt=0, le=10, validation_alias=_env("MEMLANE_RELEVANCE_SCALE"))
    #: relevance against the query's background (services/ranking/calibration.py): the cosine's
    #: excess over the median of the other candidates, when the search saw all of them
    relevance_background: bool = Field(True, validation_alias=_env("MEMLANE_RELEVANCE_BACKGROUND"))
    relevance_excess_midpoint: float = Field(
        0.18, ge=-2, le=2, validation_alias=_env("MEMLANE_RELEVANCE_EXCESS_MIDPOINT")
    )
    relevance_excess_scale: float = Field(0.05, gt=0, le=10, validation_alias=_env("MEMLANE_RELEVANCE_EXCESS_SCALE"))


class RerankSettings(SettingsGroup):
    """The optional cross-encoder that reorders recall's top candidates (rerank/)."""

    reranker: Literal["off", "http"] = Field("off", validation_alias=_env("MEMLANE_RERANKER"))
    base_url: str | None = Field(None, validation_alias=_env("MEMLANE_RERANK_BASE_URL"))
    api_key: str | None = Field(None, validation_alias=_env("MEMLANE_RERANK_API_KEY"))
    model: str = Field("rerank", validation_alias=_env("MEMLANE_RERANK_MODEL"))
    top_k: int = Field(20, ge=1, le=100, validation_alias=_env("MEMLANE_RERANK_TOP_K"))
    timeout_sec: float = Field(2.0, gt=0, validation_alias=_env("MEMLANE_RERANK_TIMEOUT_SEC"))


class LLMSettings(SettingsGroup):
    """The optional OpenAI-compatible LLM of the conversation pipeline and layer routing."""

    base_url: str | None = Field(None, validation_alias=_env("MEMLANE_LLM_BASE_URL"))
    api_key: str | None = Field(None, validation_alias=_env("MEMLANE_LLM_API_KEY"))
    model: str = Field("gpt-4o-mini", validation_alias=_env("MEMLANE_LLM_MODEL"))
    timeout_sec: float = Field(60.0, gt=0, validation_alias=_env("MEMLANE_LLM_TIMEOUT_SEC"))
    max_concurrency: int = Field(4, ge=1, validation_alias=_env("MEMLANE_LLM_MAX_CONCURRENCY"))
    rate_limit_rps: float = Field(5.0, gt=0, validation_alias=_env("MEMLANE_LLM_RATE_LIMIT_RPS"))
    rate_limit_burst: int = Field(10, ge=1, validation_alias=_env("MEMLANE_LLM_RATE_LIMIT_BURST"))


class QuotaSettings(SettingsGroup):
    """Per-tenant rate limits (services/quotas.py)."""

    enabled: bool = Field(False, validation_alias=_env("TENANT_QUOTA_ENABLED"))
    recall_rps: float = Field(50.0, validation_alias=_env("TENANT_RECALL_RATE_LIMIT_RPS"))
    recall_burst: int = Field(100, validation_alias=_env("TENANT_RECALL_RATE_LIMIT_BURST"))
    write_rps: float = Field(20.0, validation_alias=_env("TENANT_WRITE_RATE_LIMIT_RPS"))
    write_burst: int = Field(40, validation_alias=_env("TENANT_WRITE_RATE_LIMIT_BURST"))
    debug_embed_rps: float = Field(1.0, validation_alias=_env("TENANT_DEBUG_EMBED_RATE_LIMIT_RPS"))
    debug_embed_burst: int = Field(5, validation_alias=_env("TENANT_DEBUG_EMBED_RATE_LIMIT_BURST"))
    rate_limit_storage: str = Field("memory://", validation_alias=_env("MEMLANE_RATE_LIMIT_STORAGE"))


class ConversationSettings(SettingsGroup):
    """The conversation surface (/api/v1): message bounds, its query, webhooks, the batcher."""

    max_messages: int = Field(
        30, ge=1, le=1000, validation_alias=_env("MEMLANE_MAX_MESSAGES", "OMNIMEMORY_DEFAULT_MAX_MESSAGES")
    )
    #: the conversation query's default ``similarity_threshold`` (the spec names none; see
    #: ranking/calibration.py CONVERSATION_CUT); 0 returns every note, as before issue #27
    similarity_threshold: float = Field(
        0.3, ge=0, le=1, validation_alias=_env("MEMLANE_CONVERSATION_SIMILARITY_THRESHOLD")
    )
    recency_half_life_days: float = Field(30.0, gt=0, validation_alias=_env("MEMLANE_RECENCY_HALF_LIFE_DAYS"))
    #: whether the offline conflict path closes an earlier note a newer one succeeds
    #: (services/conversation/succession.py); on since its topic test: stale facts suppressed
    #: 40 -> 70 % on the seen held-out sets, no additive fact lost, LoCoMo notes R@10 within
    #: 0.003 (BENCHMARKS.md, "Memory truth")
    close_by_succession: bool = Field(True, validation_alias=_env("MEMLANE_CLOSE_BY_SUCCESSION"))
    webhook_timeout_sec: float = Field(10.0, gt=0, validation_alias=_env("MEMLANE_WEBHOOK_TIMEOUT_SEC"))
    # comma-separated host names, IPs or CIDRs webhooks may reach besides public addresses
    webhook_allowed_hosts: str = Field("", validation_alias=_env("MEMLANE_WEBHOOK_ALLOWED_HOSTS"))
    # memory batcher (POST /api/v1/memory-batcher/messages): flush by size, or when idle
    batcher_batch_size: int = Field(10, ge=1, le=1000, validation_alias=_env("MEMLANE_BATCHER_BATCH_SIZE"))
    batcher_idle_timeout_sec: float = Field(300.0, gt=0, validation_alias=_env("MEMLANE_BATCHER_IDLE_TIMEOUT_SEC"))

    @field_validator("webhook_allowed_hosts")
    @classmethod
    def _allowed_hosts_parse(cls, value: str) -> str:
        parse_webhook_allowed_hosts(value)  # a bad entry stops start-up, naming it
        return value

    @model_validator(mode="after")
    def _batch_fits_ingestion(self) -> ConversationSettings:
        if self.batcher_batch_size > self.max_messages:
            raise ValueError(
                f"MEMLANE_BATCHER_BATCH_SIZE ({self.batcher_batch_size}) must not exceed MEMLANE_MAX_MESSAGES "
                f"({self.max_messages}): a flushed batch is one ingestion request"
            )
        return self


class LayersSettings(SettingsGroup):
    """Layered memory and the agent tools: workspace lifetime, the knowledge folder."""

    workspace_ttl_hours: float = Field(24.0, gt=0, validation_alias=_env("MEMLANE_WORKSPACE_TTL_HOURS"))
    sweep_interval_sec: float = Field(300.0, gt=0, validation_alias=_env("MEMLANE_LAYERS_SWEEP_INTERVAL_SEC"))
    knowledge_dir: Path | None = Field(None, validation_alias=_env("MEMLANE_KNOWLEDGE_DIR"))
    sync_timeout_sec: float = Field(60.0, gt=0, validation_alias=_env("MEMLANE_SYNC_TIMEOUT_SEC"))
    llm_routing: bool = Field(True, validation_alias=_env("MEMLANE_LAYERS_LLM_ROUTING"))


class DecaySettings(SettingsGroup):
    """Adaptive decay (docs/lifecycle.md): a periodic job moves idle nodes down a tier; 0 = off."""

    interval_sec: float = Field(3600.0, ge=0, validation_alias=_env("MEMLANE_DECAY_INTERVAL_SEC"))
    warm_after_days: float = Field(7.0, gt=0, validation_alias=_env("MEMLANE_DECAY_WARM_AFTER_DAYS"))
    cold_after_days: float = Field(30.0, gt=0, validation_alias=_env("MEMLANE_DECAY_COLD_AFTER_DAYS"))
    archive_after_days: float = Field(90.0, gt=0, validation_alias=_env("MEMLANE_DECAY_ARCHIVE_AFTER_DAYS"))

    @model_validator(mode="after")
    def _thresholds_grow(self) -> DecaySettings:
        if not self.warm_after_days < self.cold_after_days < self.archive_after_days:
            raise ValueError(
                "decay thresholds must grow: MEMLANE_DECAY_WARM_AFTER_DAYS < MEMLANE_DECAY_COLD_AFTER_DAYS "
                "< MEMLANE_DECAY_ARCHIVE_AFTER_DAYS"
            )
        return self


class RetentionSettings(SettingsGroup):
    """Retention (services/retention.py): a periodic job deletes old rows; 0 days = keep forever."""

    interval_sec: float = Field(3600.0, ge=0, validation_alias=_env("MEMLANE_RETENTION_INTERVAL_SEC"))
    recall_audit_days: float = Field(30.0, ge=0, validation_alias=_env("MEMLANE_RECALL_AUDIT_RETENTION_DAYS"))
    job_days: float = Field(7.0, ge=0, validation_alias=_env("MEMLANE_JOB_RETENTION_DAYS"))


class Settings(BaseModel):
    """Every setting has a safe default for the embedded quick start.

    ``Settings()`` reads the environment; ``Settings(MEMLANE_PORT=9000, ...)`` overrides
    variables by their environment names (tests and embedding programs do), each routed to its
    group. A name no group reads is refused rather than silently ignored.
    """

    model_config = ConfigDict(frozen=True)

    server: ServerSettings = Field(default_factory=ServerSettings)
    defaults: DefaultsSettings = Field(default_factory=DefaultsSettings)
    security: SecuritySettings = Field(default_factory=SecuritySettings)
    storage: StorageSettings = Field(default_factory=StorageSettings)
    postgres: PostgresSettings = Field(default_factory=PostgresSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    worker: WorkerSettings = Field(default_factory=WorkerSettings)
    writes: WriteSettings = Field(default_factory=WriteSettings)
    recall: RecallSettings = Field(default_factory=RecallSettings)
    rerank: RerankSettings = Field(default_factory=RerankSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    quotas: QuotaSettings = Field(default_factory=QuotaSettings)
    conversation: ConversationSettings = Field(default_factory=ConversationSettings)
    layers: LayersSettings = Field(default_factory=LayersSettings)
    decay: DecaySettings = Field(default_factory=DecaySettings)
    retention: RetentionSettings = Field(default_factory=RetentionSettings)

    def __init__(self, **env: Any) -> None:
        groups: dict[str, dict[str, Any]] = {name: {} for name in self.groups()}
        for key, value in env.items():
            group = _GROUP_OF_ENV_NAME.get(key)
            if group is None:
                raise TypeError(f"Settings: {key!r} is not a setting's environment name (see README.md)")
            groups[group][key] = value
        super().__init__(**{name: cls(**groups[name]) for name, cls in self.groups().items()})

    @classmethod
    def groups(cls) -> dict[str, type[SettingsGroup]]:
        """Each group's attribute name and class, in declaration order."""
        return {name: _group_class(field) for name, field in cls.model_fields.items()}

    @classmethod
    def env_names(cls) -> Iterator[tuple[str, str, tuple[str, ...]]]:
        """Every setting as (group, field, environment names): the README documents each."""
        for group, group_cls in cls.groups().items():
            for name, names in group_cls.env_names():
                yield group, name, names


def _group_class(field: FieldInfo) -> type[SettingsGroup]:
    annotation = field.annotation
    assert isinstance(annotation, type) and issubclass(annotation, SettingsGroup)
    return annotation


#: every environment name -> the group that reads it; a name read by two groups is a bug
_GROUP_OF_ENV_NAME: dict[str, str] = {}
for _group, _field, _names in Settings.env_names():
    for _name in _names:
        assert _name not in _GROUP_OF_ENV_NAME, f"{_name} is read by two settings"
        _GROUP_OF_ENV_NAME[_name] = _group
