"""Tiny random models built at test time (no hub access), beside the package's own.

The package builds a Qwen3-style causal LM (:mod:`inspect_cite.testing.tiny_qwen3`) and a TRUE-format
T5 (:mod:`inspect_cite.testing.tiny_t5`); here are the variants only tests use: Qwen3's thinking
template, a sequence classifier and a model that always gives one answer.

All are saved with ``save_pretrained`` so the real loading code (``hf/`` provider,
``AutoModel*.from_pretrained``) is what the tests exercise.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from inspect_cite.testing.tiny_qwen3 import build_tokenizer, tiny_qwen3_config

# Behaves as Qwen3's template where thinking is concerned (this project's own wording): the
# generation prompt opens the assistant turn and, only when enable_thinking is false, adds an
# empty think block so that the model answers at once; earlier assistant turns lose their
# reasoning.
QWEN3_CHAT_TEMPLATE = (
    "{%- for m in messages %}"
    "{%- set content = m['content'] %}"
    "{%- if m['role'] == 'assistant' and '</think>' in content %}"
    "{%- set content = content.split('</think>')[-1].lstrip('\\n') %}"
    "{%- endif %}"
    "{{- '<|im_start|>' + m['role'] + '\\n' + content + '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}"
    "{{- '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined and enable_thinking is false %}"
    "{{- '<think>\\n\\n</think>\\n\\n' }}"
    "{%- endif %}"
    "{%- endif %}"
)


def build_tiny_qwen3_classifier(out_dir: Path, corpus: Iterable[str] = (), seed: int = 0) -> Path:
    """A 2-layer Qwen3 sequence classifier with NLI labels (servable by vLLM's pooling runner)."""
    import torch
    from transformers import Qwen3ForSequenceClassification

    out_dir.mkdir(parents=True, exist_ok=True)
    tok = build_tokenizer(out_dir, corpus)
    torch.manual_seed(seed)
    labels = ["entailment", "neutral", "contradiction"]
    config = tiny_qwen3_config(
        tok,
        max_position_embeddings=4096,
        num_labels=len(labels),
        id2label=dict(enumerate(labels)),
        label2id={label: i for i, label in enumerate(labels)},
    )
    Qwen3ForSequenceClassification(config).save_pretrained(out_dir)
    return out_dir


def build_tiny_answerer(src: Path, out_dir: Path, answer: str) -> Path:
    """A copy of a tiny Qwen3 (:func:`build_tiny_qwen3`) whose greedy reply to any chat is ``answer``.

    Attention and MLP outputs are zeroed, so the state at each position is its own token's
    normalized embedding; an untied output layer then maps the generation prompt's last token
    to the answer's first character, each character to the next and the last to the end of
    the turn. Every answer gives weight files of the same size.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(src)
    model = AutoModelForCausalLM.from_pretrained(src)
    prompt = tok.apply_chat_template(
        [{"role": "user", "content": "Does it?"}], tokenize=False, add_generation_prompt=True
    )
    chain = [tok(prompt)["input_ids"][-1], *tok.convert_tokens_to_ids(list(answer))]
    chain.append(model.config.eos_token_id)
    assert len(set(chain)) == len(chain), "each character of the answer must be distinct"
    with torch.no_grad():
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        states = model.model.norm(model.model.embed_tokens.weight)
        head = torch.zeros_like(states)
        for token, following in zip(chain, chain[1:], strict=False):
            head[following] = states[token]
        model.config.tie_word_embeddings = False
        model.lm_head.weight = torch.nn.Parameter(head)
    model.save_pretrained(out_dir)
    tok.save_pretrained(out_dir)
    return out_dir
