"""Citation generation solvers, registered as ``solvers/<name>``."""

from solvers.agent import agent_citations
from solvers.alce import alce_vanilla
from solvers.alce_baselines import alce_closedbook, alce_snippet, alce_summ
from solvers.alce_interactive import alce_inlinesearch, alce_interact
from solvers.alce_postcite import alce_postcite
from solvers.alce_rerank import alce_rerank
from solvers.constrained import constrained_citations
from solvers.longcite_one_shot import longcite_one_shot
from solvers.native import native_citations
from solvers.posthoc import posthoc_citations
from solvers.prompted import prompted_citations
from solvers.raw_prompt import alce_raw_prompt
from solvers.span_annotation import span_annotator

__all__ = [
    "agent_citations",
    "alce_closedbook",
    "alce_inlinesearch",
    "alce_interact",
    "alce_postcite",
    "alce_raw_prompt",
    "alce_rerank",
    "alce_snippet",
    "alce_summ",
    "alce_vanilla",
    "constrained_citations",
    "longcite_one_shot",
    "native_citations",
    "posthoc_citations",
    "prompted_citations",
    "span_annotator",
]
