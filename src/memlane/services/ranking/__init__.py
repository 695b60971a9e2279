"""Ranking signals for recall: keyword fusion, entity match, time awareness, graph blending.

Each signal is a small pure module so it can be tested and switched off on its own
(``RankingConfig``, filled from ``MEMLANE_RECALL_*`` settings).
"""
