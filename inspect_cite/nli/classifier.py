"""Sequence-classification NLI models (MNLI/ANLI-style: entailment / neutral / contradiction)."""

from typing import Any

from inspect_cite.checks import models as labels
from inspect_cite.nli.base import NLIConfigError, NLIResult, Pair
from inspect_cite.nli.hf import LazyModel, cuda_available, load_pretrained


def entailment_label(config: Any, where: str) -> int:
    """The index of the entailment label (:func:`inspect_cite.checks.models.entailment_label`).

    Raises:
        NLIConfigError: When no label name starts with "entail".

    """
    try:
        return labels.entailment_label(config, where)
    except ValueError as e:
        raise NLIConfigError(str(e)) from e


class ClassifierNLI(LazyModel):
    """``AutoModelForSequenceClassification`` over (premise, hypothesis) pairs.

    Decision: the entailment label has the highest logit; ``prob`` is its softmax probability.
    Inputs longer than the model's maximum are truncated (premise first).

    Args:
        model: Hub id or local directory.
        batch_size: Most pairs per forward pass (None: by device).
        max_batch_tokens: Most padded tokens per forward pass (None: by device).

    """

    def __init__(
        self, model: str, *, batch_size: int | None = None, max_batch_tokens: int | None = None
    ) -> None:
        super().__init__(model, batch_size=batch_size, max_batch_tokens=max_batch_tokens)
        self.identity = f"classifier:{self.model_name}"
        self._label = -1

    def _load(self) -> tuple[Any, Any]:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        tokenizer = load_pretrained(AutoTokenizer, self.model_name)
        kwargs: dict[str, Any] = {"device_map": "auto"} if cuda_available() else {}
        model = load_pretrained(AutoModelForSequenceClassification, self.model_name, **kwargs)
        self._label = entailment_label(model.config, self.model_name)
        return tokenizer, model

    def preload(self, *, tokenizer: Any, model: Any) -> None:
        """Use an already built tokenizer and model (benchmarks); reads its entailment label."""
        self._label = entailment_label(model.config, self.model_name)
        super().preload(tokenizer=tokenizer, model=model)

    def __call__(self, pairs: list[Pair]) -> list[NLIResult | Exception]:
        """Decide a batch of pairs (blocking; runs in the batching thread)."""
        import torch

        tok, model = self.load()
        premises = [p for p, _ in pairs]
        hypotheses = [h for _, h in pairs]
        max_len = getattr(tok, "model_max_length", None)
        truncation = "only_first" if max_len and max_len < 1_000_000 else False
        # Tokenized once; batches only pad the rows they take.
        encoded = tok(premises, hypotheses, truncation=truncation)
        ids = encoded["input_ids"]
        results: list[NLIResult | Exception] = [NLIResult(False)] * len(pairs)

        def forward(batch: list[int]) -> None:
            rows = {key: [values[i] for i in batch] for key, values in encoded.items()}
            enc = tok.pad(rows, padding=True, return_tensors="pt").to(model.device)
            with torch.inference_mode():
                logits = model(**enc).logits.float()
            # Two device-to-host copies per batch, not two per row.
            best = logits.argmax(dim=-1).tolist()
            probs = torch.softmax(logits, dim=-1)[:, self._label].tolist()
            for row, i in enumerate(batch):
                results[i] = NLIResult(best[row] == self._label, probs[row])

        self.run_batched([len(x) for x in ids], forward)
        return results
