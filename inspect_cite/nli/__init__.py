"""Natural-language inference (entailment) backends behind one interface.

``get_nli(spec)`` returns a shared ``NLIBackend`` whose ``entail`` decides a batch of
(premise, hypothesis) pairs. The spec forms are listed once, in
:data:`inspect_cite.nli.registry.NLI_SPECS` (also printed by ``alce-eval --help`` and in
every unknown-spec error); other docs point there.

Decisions are cached in memory, and on disk when ``INSPECT_CITE_NLI_CACHE`` (or the
``cache_path`` argument) names a SQLite file.
"""

from inspect_cite.nli.base import (
    NLIBackend,
    NLIConfigError,
    NLIError,
    NLIResourceError,
    NLIResult,
    Pair,
)
from inspect_cite.nli.cache import NLI_CACHE_ENV, NLICacheError
from inspect_cite.nli.registry import NLI_SPECS, get_nli, parse_nli_spec, reset_nli
from inspect_cite.nli.seq2seq import LIGHTER_CHOICES, TRUE_MODEL, true_resource_problem

__all__ = [
    "LIGHTER_CHOICES",
    "NLIBackend",
    "NLICacheError",
    "NLIConfigError",
    "NLIError",
    "NLIResourceError",
    "NLIResult",
    "NLI_CACHE_ENV",
    "NLI_SPECS",
    "Pair",
    "TRUE_MODEL",
    "get_nli",
    "parse_nli_spec",
    "reset_nli",
    "true_resource_problem",
]
