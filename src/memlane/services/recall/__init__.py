"""Recall: hybrid seeds, a bounded neighbourhood, blended graph activation, context.

The pipeline follows docs/api-graph.md ("Recall, in outline"), with hybrid ranking
(docs/api-graph.md, "Ranking signals"): dense and keyword candidates fused (relative score
or reciprocal rank fusion), boosted by the entities and the period the query names, then graph
activation added on top. Each signal is switched and weighed by ``RankingConfig``
(services/ranking/config.py) so its effect can be measured alone. Only ready nodes in the
requested tiers that the consumer may see, valid and not expired at the recall's instant
(seeds, neighbours and what is loaded whole alike), take part; draft topics never score but
may be shown for explainability.

One module per stage, each answering with a typed value:

* model.py: what a recall is asked (``RecallParams``) and what it answers (``RecallOutcome``,
  its ``Ranked`` list);
* seeds.py: the ``limit`` best candidates of the query (dense and keyword lists fused, then
  boosted);
* neighbourhood.py: the edges around the seeds, and the draft topics shown beside them;
* context.py: the prompt text and its citations, rendered from the best nodes;
* debug.py: the guarded view of embeddings (a preview and a hash, never a vector);
* service.py: ``RecallService``, which runs the stages in order and audits the recall.
* graph_recall.py: ``GraphRecallService``, the graph surface's use case: the query's vector
  (sent or embedded), the recall, and the ``rules`` block a recall with a rules context returns.
"""
