"""Which due jobs a round of the worker takes: a bounded amount of work, shared by tenants.

Jobs differ in size: a one-node write queues an embedding job of one node, an import one of up
to 500. Leasing by job count, one tenant's import made each round tens of thousands of nodes,
and another tenant's write waited minutes for it (BENCHMARKS.md "Noisy neighbour"). Leasing
tenants in turns (store/sql/jobs.py ``in_turns``) with a round bounded to 512 nodes still
left that tenant 12 nodes a round beside the import's 500: fewer than it wrote.

``FairBudget`` is start-time fair queuing (Goyal, Vin and Cheng, 1996) over rounds, counting
work in nodes. Each job gets a start tag: for a tenant's first candidate, the later of the
tenant's finish tag (where its last leased job ended) and the virtual time (the start tag of
the last job leased, of any tenant); each next candidate of the tenant starts where the one
before it ends. Candidates are taken in order of start tag (the oldest first on a tie) while
they fit in ``limit``; one that does not fit is passed over, and the first is always taken.
The virtual time then moves to the first job passed over: its turn has come, so a trickle of
small jobs cannot keep ahead of it round after round (rounds of a few nodes while the big job
waits would also leave the model idle).

So a tenant with small jobs is served before a tenant whose big job started later in virtual
time, until it has had as much; the big one then comes first: neither starves, and each gets
about an equal share of the nodes embedded while both have work queued. A tenant that asked
for little, or nothing, starts at the virtual time: no credit is saved up while it was idle.
With a budget below an import job's size (the default, 128), the import's jobs run in rounds
of their own and another tenant's small jobs in short rounds between them, so its write waits
for at most about one of the import's jobs.

The tags live in the worker's memory: several workers each share their own rounds fairly,
which shares the whole fairly too, without any coordination.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memlane.domain.model import Job


class FairBudget:
    """A ``LeasePicker`` (store/base.py, taken by store/contracts/jobs.py) for one kind of job."""

    def __init__(self, limit: int, size_of: Callable[[Job], int]):
        self.limit = limit
        self.size_of = size_of
        #: per tenant, where its last leased job ends in virtual time, counted from the
        #: virtual time (so tenants at or behind it are left out)
        self.finish: dict[str, int] = {}

    def size(self, job: Job) -> int:
        return max(1, self.size_of(job))

    def pick(self, candidates: Sequence[Job]) -> list[Job]:
        tagged: list[tuple[int, int, Job]] = []
        ends: dict[str, int] = {}
        for place, job in enumerate(candidates):
            start = ends.get(job.tenant_id, self.finish.get(job.tenant_id, 0))
            tagged.append((start, place, job))
            ends[job.tenant_id] = start + self.size(job)
        tagged.sort(key=lambda entry: entry[:2])
        chosen: list[Job] = []
        used = 0
        virtual = 0
        passed_over: int | None = None
        for start, _, job in tagged:
            size = self.size(job)
            if chosen and used + size > self.limit:
                passed_over = start if passed_over is None else passed_over
                continue
            chosen.append(job)
            used += size
            virtual = max(virtual, start)
            self.finish[job.tenant_id] = max(self.finish.get(job.tenant_id, 0), start + size)
        if passed_over is not None:
            # the job passed over for want of room was next in virtual time: its turn has come,
            # so the next round starts there (it goes first, or on a tie by age), instead of
            # a trickle of small jobs keeping ahead of it round after round
            virtual = max(virtual, passed_over)
        self.finish = {t: end - virtual for t, end in self.finish.items() if end > virtual}
        return chosen
