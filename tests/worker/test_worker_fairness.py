"""One tenant's backlog does not hold up another tenant's jobs, on both backends: leases take
tenants in turns, and a round of the embedding lane is a bounded amount of work that tenants
share (jobs/fair_share.py). Observed through what each lease and round takes, never timed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from itertools import zip_longest
from typing import Any

from memlane.domain.clock import Clock, new_id
from memlane.domain.model import Job
from memlane.jobs.fair_share import FairBudget
from memlane.jobs.kinds import EMBED_NODES
from memlane.jobs.worker import Worker
from memlane.services.embedding import embed_job_size
from memlane.store.contracts import Store

T0 = datetime(2026, 5, 1, tzinfo=UTC)
INGEST = "conversation.ingest"


def job(tenant: str, *, nodes: int = 1, scope: str = "s", kind: str = EMBED_NODES) -> Job:
    return Job(
        tenant_id=tenant, id=new_id(), kind=kind, scope=scope, payload={"node_ids": [new_id() for _ in range(nodes)]}
    )


async def queue(store: Store, jobs: Sequence[Job], *, at: datetime) -> list[Job]:
    out: list[Job] = []
    for i, j in enumerate(jobs):
        out += await store.enqueue([j], now=at + timedelta(milliseconds=i))
    return out


async def test_a_tenants_one_job_is_leased_before_another_tenants_older_backlog(store: Store) -> None:
    backlog = await queue(store, [job("noisy") for _ in range(20)], at=T0)
    [quiet] = await queue(store, [job("quiet")], at=T0 + timedelta(seconds=5))
    leased = await store.lease_jobs("w", [EMBED_NODES], limit=2, lease_sec=60, now=T0 + timedelta(seconds=10))
    assert [j.id for j in leased] == [backlog[0].id, quiet.id]


async def test_tenants_take_turns_oldest_first_within_a_turn(store: Store) -> None:
    a = await queue(store, [job("a") for _ in range(3)], at=T0)
    b = await queue(store, [job("b") for _ in range(3)], at=T0 + timedelta(seconds=1))
    leased = await store.lease_jobs("w", [EMBED_NODES], limit=6, lease_sec=60, now=T0 + timedelta(seconds=10))
    assert [j.id for j in leased] == [a[0].id, b[0].id, a[1].id, b[1].id, a[2].id, b[2].id]


async def test_apps_of_a_quiet_tenant_are_not_queued_behind_a_busy_tenants_apps(store: Store) -> None:
    """The conversation lane (one job per app at a time) takes tenants in turns too."""
    busy = await queue(store, [job("busy", kind=INGEST, scope=f"app-{i}") for i in range(10)], at=T0)
    [quiet] = await queue(store, [job("quiet", kind=INGEST, scope="app-0")], at=T0 + timedelta(seconds=5))
    leased = await store.lease_jobs("w", [INGEST], limit=2, lease_sec=60, now=T0 + timedelta(seconds=10), per_key=True)
    assert [j.id for j in leased] == [busy[0].id, quiet.id]


async def test_a_round_takes_no_more_nodes_than_its_budget_and_the_passed_over_jobs_stay_queued(store: Store) -> None:
    await queue(store, [job("a", nodes=300) for _ in range(4)], at=T0)
    leased = await store.lease_jobs(
        "w",
        [EMBED_NODES],
        limit=64,
        lease_sec=60,
        now=T0 + timedelta(seconds=1),
        budget=FairBudget(512, embed_job_size),
    )
    assert [len(j.payload["node_ids"]) for j in leased] == [300]
    assert await store.count_jobs("running") == 1 and await store.count_jobs("queued") == 3


async def test_a_single_write_is_embedded_within_two_rounds_of_another_tenants_import(store: Store) -> None:
    """80 jobs of 500 nodes (a 40,000-node import) and then one tenant's one-node write: the
    write's job runs in the first or second round, and no round takes more than the budget
    beyond its first job."""
    rounds: list[list[Job]] = []

    async def embed(batch: list[Job]) -> list[dict[str, Any] | None]:
        rounds.append(batch)
        return [{} for _ in batch]

    async def embed_one(one: Job) -> dict[str, Any] | None:
        return (await embed([one]))[0]

    await queue(store, [job("importer", nodes=500) for _ in range(80)], at=T0)
    [write] = await queue(store, [job("writer")], at=T0 + timedelta(seconds=1))
    worker = Worker(
        store,
        {EMBED_NODES: embed_one},
        clock=Clock(),
        batch_handlers={EMBED_NODES: embed},
        batch_budgets={EMBED_NODES: FairBudget(512, embed_job_size)},
    )
    for _ in range(2):
        await worker.run_once()
    assert write.id in {j.id for r in rounds for j in r}, "the write waited behind the import"
    for r in rounds:
        assert sum(embed_job_size(j) for j in r[1:]) <= 512
    stored = await store.get_job("writer", write.id)
    assert stored is not None and stored.status == "done"


def test_neither_tenant_starves_when_one_floods_small_jobs() -> None:
    """A tenant sending a stream of one-node jobs and one with 500-node jobs both make
    progress every couple of rounds; the small one is served until it has had its share."""
    big = [job("big", nodes=500) for _ in range(40)]
    small = [job("small") for _ in range(40)]
    budget = FairBudget(512, embed_job_size)
    taken: dict[str, list[int]] = {"big": [], "small": []}
    for _ in range(12):
        candidates = [j for pair in zip(big[:32], small[:32], strict=False) for j in pair]
        chosen = budget.pick(candidates)
        assert sum(embed_job_size(j) for j in chosen[1:]) <= 512
        for name in taken:
            taken[name].append(sum(embed_job_size(j) for j in chosen if j.tenant_id == name))
        ids = {j.id for j in chosen}
        big = [j for j in big if j.id not in ids]
        small = [j for j in small if j.id not in ids] + [job("small") for _ in range(100)]  # the flood goes on
    for name, per_round in taken.items():
        assert all(sum(per_round[i : i + 2]) > 0 for i in range(0, 12, 2)), f"{name} went two rounds without work"


def test_a_tenant_that_asked_for_little_holds_no_credit_for_later() -> None:
    """While the big tenant's jobs run beside a trickle of small ones, the small tenant saves
    nothing up: when it then sends many, the big one's next job still comes within two rounds."""
    budget = FairBudget(512, embed_job_size)
    for _ in range(10):  # the big tenant's 500 and one small job fit together, round after round
        assert len(budget.pick([job("big", nodes=500), job("small")])) == 2
    big = job("big", nodes=500)
    small = [job("small") for _ in range(200)]
    first = budget.pick([big, *small[:32]])
    taken = {j.id for j in first}
    second = budget.pick([big, *[j for j in small if j.id not in taken][:32]]) if big.id not in taken else []
    assert big in first or big in second


def test_a_trickle_of_small_jobs_does_not_keep_a_big_one_waiting() -> None:
    """A tenant with a few one-node jobs every round, and one whose 500-node jobs do not fit a
    128-node round beside them: the big one's jobs still run every other round."""
    budget = FairBudget(128, embed_job_size)
    big = [job("big", nodes=500) for _ in range(20)]
    small: list[Job] = []
    big_rounds = []
    for r in range(20):
        small += [job("small") for _ in range(2)]
        candidates = [j for pair in zip_longest(big[:32], small[:32]) for j in pair if j is not None]
        chosen = budget.pick(candidates)
        ids = {j.id for j in chosen}
        if any(j.tenant_id == "big" for j in chosen):
            big_rounds.append(r)
        big = [j for j in big if j.id not in ids]
        small = [j for j in small if j.id not in ids]
    assert len(big_rounds) >= 9, f"the big tenant ran in rounds {big_rounds} only"
