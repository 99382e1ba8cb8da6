"""Greedy TRUE-format answers, decoded only as far as ALCE's decision needs.

ALCE's eval.py decides "entailed" when the greedy output (``max_new_tokens=10``, special
tokens skipped) is exactly ``"1"``. Its ``generate`` runs up to ten decoder steps for every
answer; the decision is known sooner: an answer whose text so far is neither ``""`` nor
``"1"`` can never become ``"1"``. Imported on first use (it needs torch and transformers).
"""

from typing import Any

import torch
from transformers import StoppingCriteria

ENTAILED = "1"
"""The answer that means "entailed"; any other answer means "not entailed"."""


def may_still_be_entailed(text: str) -> bool:
    """Whether an answer that begins with ``text`` (decoded) can still be exactly ``"1"``.

    Later tokens only append to the decoded text: SentencePiece pieces (T5) and bytes (ByT5)
    are concatenated, and transformers' clean-up only drops a space before punctuation.
    """
    return text in ("", ENTAILED)


class UntilDecided(StoppingCriteria):
    """A ``generate`` stopping criterion: a row ends once its answer cannot be ``"1"``.

    Rows that can still be ``"1"`` decode on exactly as without it (a stopping criterion
    changes no logits), so every decision equals plain ``generate``'s; a batch ends as soon as
    all its rows are decided, usually after one step ("0") or two ("1", then end of answer).

    Args:
        tokenizer: Decodes the answers as eval.py does (``skip_special_tokens=True``).

    """

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.steps = 0
        """Decoder steps taken so far (for benchmarks)."""

    def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs: Any) -> torch.BoolTensor:
        """Per row: True once its answer so far rules out ``"1"``."""
        self.steps += 1
        texts = self.tokenizer.batch_decode(input_ids.tolist(), skip_special_tokens=True)
        done = [not may_still_be_entailed(text) for text in texts]
        return torch.tensor(done, dtype=torch.bool, device=input_ids.device)  # type: ignore[return-value]
