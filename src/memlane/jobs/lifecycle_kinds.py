"""Job kinds of the memory lifecycle (decay, consolidation, compression rollups).

Stable names: they are stored in the jobs table.
"""

from typing import Final

#: periodic (self-rescheduling) or one-off sweep moving idle nodes down the tiers
LIFECYCLE_DECAY: Final = "lifecycle_decay"
#: duplicate detection and canonicalisation (alias_of / merged_from, edge redirection)
LIFECYCLE_CONSOLIDATE: Final = "lifecycle_consolidate"
#: compression rollups: concept summaries derived_from their events
LIFECYCLE_COMPRESS: Final = "lifecycle_compress"

#: tenant id on jobs that sweep every tenant (the periodic decay); no request can reach it
SYSTEM_TENANT: Final = "_memlane_system"
