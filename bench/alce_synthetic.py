"""Synthetic ALCE result items whose outputs exercise every citation-scoring rule.

Statements are copied from the items' documents (the ALCE fixtures, :mod:`bench.fixtures`) so
that a word-overlap NLI (:func:`word_entail`) decides them predictably: supported by one
document, only by two together, or by none; cited correctly, redundantly, out of range, with
``[0]``, ``[1, 2]``, duplicates and more citations than ``at_most_citations``. The benchmarks
score them, and so do the tests that compare the scorers with eval.py.
"""

import copy
import random
import re
from typing import Any

from bench.fixtures import load_fixture


def word_entail(premise: str, hypothesis: str) -> bool:
    """Entailed iff every word of the hypothesis occurs in the premise.

    The tests' own copy (``tests/helpers/nli_fns.py``) is loaded by file path in processes
    that cannot import this folder.
    """
    return _words(hypothesis) <= _words(premise)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def phrase(doc: dict[str, Any], rng: random.Random, n: int = 6) -> str:
    words = [w.strip(".?!;:") for w in doc["text"].split()]
    words = [w for w in words if w]
    start = rng.randrange(max(1, len(words) - n))
    return " ".join(words[start : start + n])


def statement(docs: list[dict[str, Any]], rng: random.Random) -> str:
    n = len(docs)
    i, j = rng.sample(range(n), 2)
    a, b = phrase(docs[i], rng), phrase(docs[j], rng)
    c1, c2 = i + 1, j + 1
    kind = rng.randrange(14)
    return [
        f"{a} [{c1}]",  # supported, one citation
        f"{a} [{c1}][{c2}]",  # supported; the second citation is irrelevant
        f"{a} and {b} [{c1}][{c2}]",  # only the two together support it
        f"{a} [{c2}]",  # wrong citation
        f"{a} [0]",  # eval.py: the last document
        f"{a} [{c1}, {c2}]",  # eval.py reads only the first number
        f"{a} [{c1}][{c1}]",  # duplicate
        f"{a} and {b} [{c1}][{c1}][{c2}]",  # duplicate in a joint citation
        f"{a} [{n + 3}]",  # out of range
        f"{a} [1][2][3][{n + 1}]",  # out of range after the kept three
        f"{a} [1][2][3][{c1}]",  # the supporting citation is cut by at_most_citations
        f"{a}",  # no citation
        f"{a} and {b} [{c1}][{c2}][{c1}]",  # duplicate after a joint pair
        f"{a} [{c2}][{c1}]",  # supported; the first citation is irrelevant
    ][kind]


def synthetic_output(
    item: dict[str, Any], dataset: str, rng: random.Random, statements: tuple[int, int] = (1, 5)
) -> str:
    """An output of ``statements`` (inclusive range) statements written from the item's docs."""
    docs = item["docs"]
    k = rng.randint(*statements)
    parts = [statement(docs, rng) for _ in range(k)]
    if dataset == "qampari":
        out = ", ".join(parts) + "."
    else:
        out = " ".join(p + "." for p in parts)
        if dataset == "eli5" and rng.random() < 0.5:
            out += " " + rng.choice(item["claims"])
    special = rng.randrange(10)
    if special == 0:
        out = ""
    elif special == 1:
        out = "  " + out + "\nA second line [1] that eval.py drops."
    elif special == 2:
        out = out + "<|im_end|>"
    elif special == 3 and dataset != "qampari":
        out = out + " Trailing statement. [1]"  # citation after the period
    return out


def synthetic_items(dataset: str, n: int, seed: int = 0, ndoc: int = 5) -> list[dict[str, Any]]:
    """``n`` items cycling over the dataset's fixture items, each with a synthetic output."""
    rng = random.Random(seed)
    base = load_fixture(f"alce_{dataset}.json")
    items = []
    for k in range(n):
        item = copy.deepcopy(base[k % len(base)])
        item["docs"] = item["docs"][:ndoc]
        if dataset == "qampari":
            # QAMPARI hypotheses start with the question: let the word-overlap NLI find its
            # words in every document, so the entity decides.
            for doc in item["docs"]:
                doc["text"] = f"{item['question']} {doc['text']}"
        item["output"] = synthetic_output(item, dataset, rng)
        items.append(item)
    return items
