"""Whether the tokenizer counting LongBench-Cite's ``citation_length`` can be had, before a run.

``citation_length`` counts tokens with ``-T tokenizer`` (LongCite's GLM-4 tokenizer,
``THUDM/glm-4-9b-chat``, by default). It is loaded when the first sample is scored, after every
answer was generated; a tokenizer that cannot be had there would leave the key nan in a run
that could have been refused at once. Checked here without loading anything
(:mod:`inspect_cite.checks.tokenizers`, shared with HELMET's rows).

Whether the tokenizer runs code from its repository (``-T trust_remote_code``) is not checked
here: without it the key is nan with that reason, as documented (docs/longcite.md).
"""

from inspect_cite.checks.errors import PreflightError
from inspect_cite.checks.tokenizers import checked_tokenizer_problem


def check_tokenizer(name: str | None, *, flag: str = "-T tokenizer") -> None:
    """Refuse, in one line, a ``citation_length`` tokenizer that cannot be had.

    Args:
        name: The tokenizer (None: citation length is not counted; nothing to check).
        flag: How the user gave it.

    Raises:
        PreflightError: Naming the flag, the value, why, and the fixes.

    """
    if name is None:
        return
    problem = checked_tokenizer_problem(name)
    if problem is None:
        return
    raise PreflightError(
        f"{flag}={name}: {problem}; the tokenizer counts citation_length. Fix: pass a local "
        f"tokenizer folder ({flag}=<folder>), or {flag}=null to leave citation_length nan"
    )
