"""Which due jobs a round of the worker takes: a bounded amount of work, shared by tenants.

Jobs differ in size: a one-node write queues an embedding job of one node, an import one of up
to 500. Leasing by job count, one tenant's import made each round tens of thousands of nodes,
and another tenant's write waited minutes for it (BENCHMARKS.md "Noisy neighbour"). Leasing
tenants in turns (store/sql/jobs.py ``in_turns``) with a round bounded to 512 nodes still
left that tenant 12 nodes a round beside the import's 500: fewer than it wrote.

``FairBudget`` is start-time fair queuing over rounds. Each tenant has a virtual clock: the
work of it this worker has leased, counted from the least-served tenant with due jobs. A
candidate's start is its tenant's clock plus the work of that tenant's candidates before it;
candidates are taken in order of start (the oldest first on a tie) while they fit in
``limit``, a candidate that does not fit is passed over, and the first is always taken. A
tenant with small jobs is served until it has had as much as the tenant with a big one, and
the big one's clock falls behind while it waits, so it comes first again: neither starves,
and each gets about an equal share of the nodes embedded while both have work queued. With a
budget below an import job's size (the default, 128), the import's jobs run in rounds of their
own and another tenant's small jobs in short rounds between them, so its write waits for at
most about one of the import's jobs. A
tenant that runs out of due jobs is forgotten; when it is back it starts level with the
least-served one, never with credit saved up while it was idle.

The clocks live in the worker's memory: several workers each share their own rounds fairly,
which shares the whole fairly too, without any coordination.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memlane.domain.model import Job


class FairBudget:
    """A ``LeasePicker`` (store/base.py) for one kind of job."""

    def __init__(self, limit: int, size_of: Callable[[Job], int]):
        self.limit = limit
        self.size_of = size_of
        #: per tenant with due jobs, the work leased for it, less that of the least-served one
        self.served: dict[str, int] = {}

    def size(self, job: Job) -> int:
        return max(1, self.size_of(job))

    def pick(self, candidates: Sequence[Job]) -> list[Job]:
        tenants = {job.tenant_id for job in candidates}
        self.served = {t: n for t, n in self.served.items() if t in tenants}
        ahead: dict[str, int] = {}
        order: list[tuple[int, int, Job]] = []
        for place, job in enumerate(candidates):
            before = ahead.get(job.tenant_id, 0)
            order.append((self.served.get(job.tenant_id, 0) + before, place, job))
            ahead[job.tenant_id] = before + self.size(job)
        order.sort(key=lambda entry: entry[:2])
        chosen: list[Job] = []
        used = 0
        for _, _, job in order:
            size = self.size(job)
            if chosen and used + size > self.limit:
                continue
            chosen.append(job)
            used += size
            self.served[job.tenant_id] = self.served.get(job.tenant_id, 0) + size
        taken = {id(job) for job in chosen}
        self._level(tenants, waiting={job.tenant_id for job in candidates if id(job) not in taken})
        return chosen

    def _level(self, tenants: set[str], waiting: set[str]) -> None:
        """Count every clock from the least-served tenant still ``waiting`` (with a candidate
        passed over), so the clocks stay small. A tenant that got all it asked for holds no
        credit (its clock is at least that floor): asking for little while another asked for
        much is no claim on later rounds. With nobody waiting, every clock starts again at 0."""
        floor = min((self.served.get(t, 0) for t in waiting), default=max(self.served.values(), default=0))
        self.served = {t: n - floor for t in tenants if (n := max(self.served.get(t, 0), floor)) > floor}
