"""eval.py's NLI loop over a test model (its models: :mod:`inspect_cite.testing.tiny_t5`)."""

from collections.abc import Sequence
from pathlib import Path


def per_pair_generate(model_dir: Path, pairs: Sequence[tuple[str, str]]) -> list[str]:
    """eval.py's ``_run_nli_autoais``: one unpadded greedy generate per pair."""
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForSeq2SeqLM.from_pretrained(model_dir)
    texts = []
    for premise, hypothesis in pairs:
        ids = tok(f"premise: {premise} hypothesis: {hypothesis}", return_tensors="pt").input_ids
        with torch.inference_mode():
            out = model.generate(ids, max_new_tokens=10)
        texts.append(tok.decode(out[0], skip_special_tokens=True))
    return texts
