"""SQuAD's answer normalisation, exact match and token F1 (as ALCE's ``utils.py`` and ``eval.py``).

The one home of these rules: ALCE's correctness metrics and QA accuracy and FullCite's
snippet F1 all read them here.
"""

import collections
import re
import string

_PUNCT = set(string.punctuation)


def normalize_answer(s: str) -> str:
    """SQuAD-style normalisation as ALCE's ``utils.normalize_answer``.

    Lower-case, drop ASCII punctuation, replace the articles a/an/the by a space, collapse
    whitespace.
    """
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def compute_f1(a_gold: str, a_pred: str) -> float:
    """SQuAD token F1 after ``normalize_answer`` (1 if both are empty, 0 if only one is)."""
    gold_toks = normalize_answer(a_gold).split() if a_gold else []
    pred_toks = normalize_answer(a_pred).split() if a_pred else []
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    num_same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return float(gold_toks == pred_toks)
    if num_same == 0:
        return 0.0
    precision = num_same / len(pred_toks)
    recall = num_same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


def compute_exact(a_gold: str, a_pred: str) -> int:
    """1 when the strings are equal after ``normalize_answer``."""
    return int(normalize_answer(a_gold) == normalize_answer(a_pred))
