"""Run ALCE's own eval.py on a local TRUE-format model, on a CPU, offline.

eval.py loads ``google/t5_xxl_true_nli_mixture`` from the hub in bf16 with a ``max_memory``
map that needs a CUDA GPU. This runner changes only that: the model is the local directory
given first, loaded in float32 (as ``seq2seq:<dir>`` loads it on a CPU). Everything else,
the scoring loop included, is eval.py's own code, imported from a checkout of
princeton-nlp/ALCE (``eval.py`` and ``utils.py``; the benchmark used commit 246c476).

Usage::

    python bench/eval_py_runner.py ALCE_DIR MODEL_DIR [eval.py's arguments...]

With ``$EVAL_PY_PAIRS`` set, every (premise, hypothesis) pair eval.py judges is written
there as a JSON list when it ends (so the benchmark can count the pairs).
It imports nothing from this project: its start-up is eval.py's own.
"""

import json
import os
import sys


def main() -> None:
    alce_dir, model_dir = sys.argv[1], sys.argv[2]
    sys.argv = ["eval.py", *sys.argv[3:]]
    sys.path.insert(0, alce_dir)
    import eval as alce_eval  # type: ignore[import-not-found]  # eval.py of the checkout
    import torch

    alce_eval.AUTOAIS_MODEL = model_dir
    alce_eval.get_max_memory = lambda: None
    load = alce_eval.AutoModelForSeq2SeqLM.from_pretrained

    class Loader:
        @staticmethod
        def from_pretrained(name: str, **kwargs: object) -> object:
            # eval.py asks for bf16 spread over GPUs; a CPU run loads float32 as alce-eval does.
            return load(name, dtype=torch.float32)

    alce_eval.AutoModelForSeq2SeqLM = Loader
    pairs: list[tuple[str, str]] = []
    judge = alce_eval._run_nli_autoais

    def counted(passage: str, claim: str) -> int:
        pairs.append((passage, claim))
        return judge(passage, claim)

    alce_eval._run_nli_autoais = counted
    alce_eval.main()
    if out := os.environ.get("EVAL_PY_PAIRS"):
        with open(out, "w") as f:
            json.dump(pairs, f)


if __name__ == "__main__":
    main()
