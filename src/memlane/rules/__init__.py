"""Pure rule logic: the condition language, PolicyPatch, visibility, evaluation, tool selection.

No HTTP and no store here: services load rule nodes and call these functions, so the
semantics can be tested exhaustively and reused by every surface.
"""

from memlane.rules.conditions import MatchResult, matches, specificity, validate_condition
from memlane.rules.evaluate import Evaluation, RuleMatch, RuleRecord, evaluate, rule_state
from memlane.rules.policy import PolicyPatch, evidence_score, parse_policy_patch, parse_rule_meta, rank_score
from memlane.rules.promotion import PromotionThresholds, check_promotion, suggest_promotions
from memlane.rules.tool_select import Selection, select_tools, tool_conflicts_summary
from memlane.rules.visibility import Identity

__all__ = [
    "Evaluation",
    "Identity",
    "MatchResult",
    "PolicyPatch",
    "PromotionThresholds",
    "RuleMatch",
    "RuleRecord",
    "Selection",
    "check_promotion",
    "evaluate",
    "evidence_score",
    "matches",
    "parse_policy_patch",
    "parse_rule_meta",
    "rank_score",
    "rule_state",
    "select_tools",
    "specificity",
    "suggest_promotions",
    "tool_conflicts_summary",
    "validate_condition",
]
