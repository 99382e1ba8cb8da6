"""A scorer's (or solver's) judge: one constructor from its arguments, one score when it fails.

Every scorer that judges with NLI (``citation_nli``, ``claim_coverage``, ``claim_support``,
``source_support``, ``trust_score``) and every solver that does (``alce_rerank``) takes an
``nli`` spec, and the scorers an ``nli_cache`` and a ``calibration``; :func:`nli_judge` turns
those into an :class:`NLIJudge` (the spec checked through :mod:`inspect_cite.nli.checked`, the
shared backend, the calibration read and checked), and :func:`failed_score` is the score of a
sample whose judge failed: every key nan, with the reason, never 0.

Each scorer resolves its own spec: Inspect rebuilds scorers from the arguments it logs (as its
own ``model_graded_qa`` does with ``get_model``). A task builds its scorers inside its batch of
refusals, under :func:`inspect_cite.nli.checked.given_as` (``-T nli``), so a bad spec is
refused once, named by the flag the user gave.
"""

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from inspect_ai.scorer import Score

from inspect_cite.downloads.http_client import redact_text
from inspect_cite.nli.base import NLIError
from inspect_cite.nli.cached import CachedNLI
from inspect_cite.nli.checked import checked_nli
from inspect_cite.nli.diagnose import Diagnosis
from inspect_cite.statistics.calibration import JudgeCalibration, scorer_calibration
from inspect_cite.text.markdown import cell


@dataclass(frozen=True)
class NLIJudge:
    """A judge as a scorer holds it.

    Attributes:
        spec: The NLI spec as given (what the scorer's explanations name, redacted).
        backend: The process-wide backend (its batching queue and cache).
        calibration: What ``-S calibration`` measured of this judge (None without one).

    """

    spec: str
    backend: CachedNLI
    calibration: JudgeCalibration | None = None

    @property
    def shown(self) -> str:
        """The spec as explanations show it (a credential in a URL redacted)."""
        return redact_text(self.spec)


def nli_judge(
    nli: str, *, nli_cache: str | None = None, calibration: str | None = None
) -> NLIJudge:
    """The judge of a scorer's arguments, checked when the scorer is built.

    Args:
        nli: The NLI spec (``-S nli``; a task's ``-T nli`` under ``given_as``).
        nli_cache: A SQLite file caching decisions (default ``$INSPECT_CITE_NLI_CACHE``).
        calibration: ``FILE[#DATA[/SUBSET]]``, a ``calibration.json`` measuring this judge.

    Raises:
        PreflightError: A spec whose model, function, server or role cannot be used here.
        ArgumentError: A calibration that does not fit (naming ``-S calibration``).

    """
    backend = checked_nli(nli, cache_path=nli_cache)
    return NLIJudge(nli, backend, scorer_calibration(calibration, nli))


def failed_score(
    keys: Iterable[str],
    error: NLIError,
    *,
    answer: str = "",
    diagnose: bool = False,
    metadata: dict[str, Any] | None = None,
) -> Score:
    """The score of a sample whose judge failed: every key nan, the reason, never 0.

    Args:
        keys: The scorer's value keys (all present, each nan).
        error: Why the judge failed.
        answer: What the scorer read from the output.
        diagnose: The scorer classifies claims too (its diagnosis is nan with the reason).
        metadata: More score metadata.

    """
    reason = f"NLI failed: {error}"
    extra: dict[str, Any] = {**(metadata or {}), "reason": reason}
    if diagnose:
        extra |= Diagnosis.failed(reason)
    return Score(
        value=dict.fromkeys(keys, math.nan),
        answer=answer,
        explanation=f"**Not scored:** {cell(reason, None)}",
        metadata=extra,
    )
