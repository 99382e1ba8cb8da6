"""HELMET-format data and demonstration files written in this project's own words, for the tests.

HELMET's demonstrations and its top-2000 data files are third-party: the tasks download the
demonstrations pinned and read the data from a local copy. The tests build both from this
module instead: the same fields and layout (a demonstration file with ``instruction``,
``demo_sep``, ``demo_prompt`` with ``{instruction}``/``{question}``/``{context}``/``{answer}``,
``doc_prompt`` with ``{ID}``/``{title}``/``{text}`` and four demonstrations of five documents;
data items as ALCE's with many retrieved passages each), about an invented archipelago.

The files are generated from a seeded ``random.Random``: the same call writes the same bytes on
every machine, which is what lets tests/fixtures/helmet/ hold the prompt hashes HELMET's own
loader produced from them (see its README).
"""

import json
import random
from pathlib import Path
from typing import Any

# HELMET's layout (placeholders its loader fills with str.format, not prose).
ASQA_DEMO_PROMPT = "{instruction}\n\nQuestion: {question}\n\n{context}\n\nAnswer: {answer}"
QAMPARI_DEMO_PROMPT = "{instruction}\n\nQuestion: {question}\n\n{context}\nAnswer: {answer}"
DOC_PROMPT = "Document [{ID}](Title: {title}): {text}"

INSTRUCTIONS = {
    ("asqa", False): "Instruction: Answer in a few neutral sentences from the search results "
    "only, and after each claim cite the results that support it as [x] or [x][y].",
    ("asqa", True): "Instruction: Answer in a few neutral sentences from the search results only.",
    ("qampari", False): "Instruction: List every answer you find in the search results, "
    "separated by commas, citing exactly one result per answer as [x].",
    ("qampari", True): "Instruction: List every answer you find in the search results, "
    "separated by commas.",
}

_WORDS = (
    "harbour lighthouse ferry island reef lagoon market festival bridge tower museum orchard "
    "glacier volcano canal library theatre river valley meadow summit harbourmaster lantern "
    "schooner cartographer tide monsoon pepper saffron granite basalt coral archive charter "
    "council regatta mill foundry quay chapel beacon observatory"
).split()
_NAMES = (
    "Aldemar Briseis Corvina Daltrey Esmeray Faraday Galloway Hesper Ilvermoor Jessamy Korin "
    "Lisette Marisol Nerezza Oriel Pellam Quenby Rosamund Sorrel Tamsin Ulrica Verity Wystan "
    "Xanthe Yseult Zephyrine"
).split()


def _sentence(rng: random.Random, n: int = 12) -> str:
    words = [rng.choice(_WORDS) for _ in range(n)]
    return " ".join([words[0].capitalize(), *words[1:]]) + "."


def _doc(rng: random.Random, k: int) -> dict[str, Any]:
    title = f"{rng.choice(_NAMES)} {rng.choice(_WORDS).capitalize()}"
    text = " ".join(_sentence(rng) for _ in range(2))
    if k % 37 == 5:
        text += " The charter of {1882} names the quay \u00e0 la fa\u00e7on de Nerezza."
    return {"id": str(100000 + k), "title": title, "text": text, "score": round(1 - k / 5000, 4)}


def demo_file(dataset: str, nocite: bool) -> dict[str, Any]:
    """A HELMET-format demonstration file: four demonstrations of five documents."""
    rng = random.Random(f"demo-{dataset}-{nocite}")
    demos = []
    for d in range(4):
        docs = [_doc(rng, 1000 * d + k) for k in range(5)]
        if dataset == "qampari":
            names = [f"{rng.choice(_NAMES)} {rng.choice(_WORDS)}" for _ in range(4)]
            answer = ", ".join(n if nocite else f"{n} [{i % 5 + 1}]" for i, n in enumerate(names))
            question = f"Which charters of the {rng.choice(_WORDS)} council are known?"
        else:
            answer = _sentence(rng) + ("" if nocite else " [1][2]") + " " + _sentence(rng)
            answer += "" if nocite else " [3]"
            question = f"When did the {rng.choice(_WORDS)} of {rng.choice(_NAMES)} open?"
        demos.append({"question": question, "answer": answer + ".", "docs": docs})
    return {
        "instruction": INSTRUCTIONS[(dataset, nocite)],
        "demo_sep": "\n\n\n",
        "demo_prompt": QAMPARI_DEMO_PROMPT if dataset == "qampari" else ASQA_DEMO_PROMPT,
        "doc_prompt": DOC_PROMPT,
        "demos": demos,
    }


def data_items(dataset: str, n_items: int, n_docs: int) -> list[dict[str, Any]]:
    """ALCE-format items with ``n_docs`` retrieved passages each (HELMET's top-2000 layout)."""
    rng = random.Random(f"data-{dataset}-{n_items}-{n_docs}")
    items = []
    for i in range(n_items):
        docs = [_doc(rng, i * n_docs + k) for k in range(n_docs)]
        place = f"{rng.choice(_NAMES)} {rng.choice(_WORDS)}"
        if dataset == "qampari":
            items.append(
                {
                    "id": f"q{i}",
                    "question": f"Which {rng.choice(_WORDS)}s stand on {place}?",
                    "answer": "",
                    "answers": [[rng.choice(_WORDS), rng.choice(_NAMES)] for _ in range(3)],
                    "docs": docs,
                }
            )
        else:
            short = [rng.choice(_WORDS) for _ in range(2)]
            items.append(
                {
                    "sample_id": f"a{i}",
                    "question": f"Who built the {rng.choice(_WORDS)} at {place}?",
                    "answer": _sentence(rng),
                    "qa_pairs": [
                        {"question": f"Who built it in {s}?", "short_answers": [s]} for s in short
                    ],
                    "annotations": [{"long_answer": _sentence(rng)} for _ in range(2)],
                    "docs": docs,
                }
            )
    return items


def long_data_items(dataset: str, n_items: int, n_docs: int, words: int) -> list[dict[str, Any]]:
    """:func:`data_items` whose passages hold about ``words`` words each (HELMET's rows cut
    such prompts to their token budget: 30 passages of 380 words are over 8k's)."""
    items = data_items(dataset, n_items, n_docs)
    rng = random.Random(f"long-{dataset}-{n_items}-{n_docs}-{words}")
    for item in items:
        for doc in item["docs"]:
            doc["text"] = " ".join(_sentence(rng) for _ in range(max(1, words // 12)))
    return items


# The fixture set the expected hashes were made from: items and passages per dataset.
N_ITEMS = 130
N_DOCS = 170


def write_helmet_files(folder: Path, n_items: int = N_ITEMS, n_docs: int = N_DOCS) -> Path:
    """Write ``<dataset>_eval_gtr_top2000.json`` and ``<dataset>_{revised,nocite}.json``.

    Returns the folder (both the data folder and the demonstration folder).
    """
    folder.mkdir(parents=True, exist_ok=True)
    for dataset in ("asqa", "qampari"):
        data = data_items(dataset, n_items, n_docs)
        (folder / f"{dataset}_eval_gtr_top2000.json").write_text(
            json.dumps(data, ensure_ascii=False), encoding="utf-8"
        )
        for nocite in (False, True):
            name = f"{dataset}_{'nocite' if nocite else 'revised'}.json"
            (folder / name).write_text(
                json.dumps(demo_file(dataset, nocite), ensure_ascii=False, indent=1),
                encoding="utf-8",
            )
    return folder


def _words_of(text: str, n: int) -> str:
    return " ".join(text.replace(".", "").replace(",", "").split()[:n])


def scoring_cases(dataset: str) -> list[dict[str, Any]]:
    """Items with a fixed model output each (``output``), for HELMET's scoring rules.

    The outputs exercise what eval_alce.py treats differently from eval.py: answers over
    several lines (newline runs become one space), leading and trailing whitespace, a trailing
    ``End.`` and ``<|im_end|>``, sentences under five characters ("1.", "Yes."), a citation
    placed after the period, ``[0]``, an out-of-range citation, repeated and redundant
    citations, an empty output and one of short sentences only.
    """
    items = data_items(dataset, 12, 6)
    outputs = []
    for i, item in enumerate(items):
        d = [doc["text"] for doc in item["docs"]]
        n = 16 if dataset == "qampari" else 6
        a, b, c = _words_of(d[0], n), _words_of(d[1], n), _words_of(d[2], n)
        if dataset == "qampari":
            gold = [group[i % 2] for group in item["answers"]]
            outputs.append(
                [
                    f"{gold[0]} [1], {a} [1], {b} [2][2], {gold[1]} [7]",
                    f"{a} [1][2]\n\n{b} [2],\n{gold[2]} [0].",
                    "",
                    f"  {gold[0]}, {gold[1]} [3], {c} [3]<|im_end|>",
                    f"{a} [1, 2], {b} [2]\nEnd.",
                    f"{gold[0]} [1]\n",
                ][i % 6]
            )
        else:
            short = item["qa_pairs"][0]["short_answers"][0]
            outputs.append(
                [
                    f"{a} [1]. {a} and {b} [1][2]. Unsupported {short} claim here [3].",
                    f"{a} [1].\n\n{b} [3].\n1. Yes. [2]",
                    "",
                    "Yes. [1] No. [2]",
                    f"  {a}. [1] {b} [2][2]\nEnd.",
                    f"{c} [0]. {a} [9]. {b} [1][2][3][4].<|im_end|>",
                ][i % 6]
            )
    return [{**item, "output": out} for item, out in zip(items, outputs, strict=True)]


# A chat template of this project's own (not any model's): user turns between markers.
WORD_CHAT_TEMPLATE = (
    "{%- for m in messages %}{{- '<|' + m['role'] + '|>\\n' + m['content'] + '<|end|>\\n' }}"
    "{%- endfor %}{%- if add_generation_prompt %}{{- '<|assistant|>\\n' }}{%- endif %}"
)


def build_word_tokenizer(out_dir: Path) -> Path:
    """A word-level fast tokenizer (fixed vocabulary, no training: identical everywhere).

    Words and punctuation are tokens; unknown words are ``[UNK]``; a ``<s>`` is added in front
    when special tokens are asked for, as most models' tokenizers do.
    """
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    specials = ["[UNK]", "<s>", "</s>", "<|user|>", "<|assistant|>", "<|end|>"]
    words = sorted({w.lower() for w in _WORDS + _NAMES} | {w.capitalize() for w in _WORDS})
    vocab = {tok: i for i, tok in enumerate([*specials, *words, *"[](){}:.,?"])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A $B", special_tokens=[("<s>", vocab["<s>"])]
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", bos_token="<s>", eos_token="</s>"
    )
    fast.chat_template = WORD_CHAT_TEMPLATE
    fast.save_pretrained(out_dir)
    return out_dir
