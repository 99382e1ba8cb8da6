"""The lm-eval ALCE tasks: their n-shot, and the prompts lm-eval's model cuts.

Issue 40, item 12: lm-eval's n-shot column showed 0 for a prompt holding 2 demonstrations; a
prompt longer than the model's context was cut by lm-eval and scored (usually 0) where the
Inspect tasks give nan with the reason. Counts are compared with lm-eval's own ``hf`` model
(``HFLM``) on the tiny Qwen3 built at test time.
"""

import json
import logging
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from alce_tasks.lm_eval import CONFIG_DIR
from alce_tasks.lm_eval.context import context_limit, cut_reason
from tests.alce.test_lm_eval import NLI
from tests.alce.test_lm_eval_route import evaluate
from tests.conftest import FIXTURES, ROOT

ASQA = str(FIXTURES / "alce_asqa.json")


@pytest.fixture(scope="module")
def hflm(tiny_qwen3):
    """lm-eval's own hf model on the tiny Qwen3."""
    from lm_eval.models.huggingface import HFLM

    return HFLM(pretrained=str(tiny_qwen3), device="cpu", batch_size=1)


def _prompts(**options) -> dict[str, str]:
    from alce_tasks.lm_eval.utils import load_asqa

    docs = load_asqa(dataset_path=ASQA, nli=NLI, **options)["test"]
    return dict(zip(docs["question"], docs["prompt"], strict=True))


def test_n_shot_is_the_demonstrations_in_the_prompt(own_prompts):
    lm, results = evaluate(["alce_asqa"], {"dataset_path": ASQA, "shot": 1}, num_fewshot=5)
    assert sorted(lm.prompts) == sorted(_prompts(shot=1).values())
    assert results["n-shot"]["alce_asqa"] == 1
    assert results["configs"]["alce_asqa"]["num_fewshot"] == 1


def test_prompt_tokens_and_context_length_are_lm_evals(own_prompts, tiny_qwen3, hflm):
    limit = context_limit({"pretrained": str(tiny_qwen3)})
    assert limit is not None and limit.max_length == hflm.max_length
    for prompt in _prompts().values():
        ids, _ = hflm.tok_batch_encode([prompt])
        assert limit.count(prompt) == ids.shape[1]
    given = context_limit({"pretrained": str(tiny_qwen3), "max_length": "900"})
    assert given is not None and given.max_length == 900


def test_no_pretrained_model_is_not_checked(caplog):
    caplog.set_level(logging.INFO)
    assert context_limit({"model": "gpt-4o-mini", "base_url": "http://x"}) is None
    [api] = caplog.records
    assert api.levelname == "WARNING" and "prompt lengths are not checked" in api.message
    caplog.clear()
    # No model arguments at all (lm-eval-check, a model object): a note, not a warning.
    assert context_limit({"nli": NLI}) is None
    assert [r.levelname for r in caplog.records] == ["INFO"]


def test_the_cut_rule_is_lm_evals_left_truncation():
    # HFLM keeps the last max_length - max_gen_toks tokens of the prompt.
    assert cut_reason(98, 100, 2) is None
    assert cut_reason(99, 100, 2) == (
        "lm-eval cut the prompt (99 tokens) to its last 98 (max_length 100 - max_gen_toks 2); "
        "run.py keeps a prompt whole, so this answer is to another prompt"
    )
    assert cut_reason(99, None, 2) is None and cut_reason(None, 100, 2) is None


def test_a_cut_prompt_is_nan_with_the_reason(own_prompts, tiny_qwen3, hflm, caplog):
    counts = {q: hflm.tok_batch_encode([p])[0].shape[1] for q, p in _prompts().items()}
    longest = max(counts, key=counts.__getitem__)
    max_length = counts[longest] + 2 - 1  # the longest loses one token to max_gen_toks=2
    assert sorted(counts.values())[-2] <= max_length - 2  # the others fit
    metadata = {"dataset_path": ASQA, "pretrained": str(tiny_qwen3), "max_length": max_length}
    _, results = evaluate(["alce_asqa"], metadata, gen_kwargs={"max_gen_toks": 2}, log_samples=True)
    for sample in results["samples"]["alce_asqa"]:
        values = [sample[k] for k in ("length", "str_em", "citation_rec")]
        if sample["doc"]["question"] == longest:
            assert all(math.isnan(v) for v in values)
        else:
            assert not any(math.isnan(v) for v in values[:2])
    assert (
        f"not scored: lm-eval cut the prompt ({counts[longest]} tokens) to its last "
        f"{max_length - 2} (max_length {max_length} - max_gen_toks 2)"
    ) in caplog.text


@pytest.mark.slow
def test_a_prompt_too_long_is_nan_in_both_routes(own_prompts, tiny_qwen3, hflm, tmp_path):
    """lm_eval run on the tiny model, and the Inspect task with -T chat=false: the same prompts,
    the same greedy answers, and the prompt longer than the context nan in both."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from alce_tasks import asqa

    prompts = _prompts()
    counts = {q: hflm.tok_batch_encode([p])[0].shape[1] for q, p in prompts.items()}
    longest = max(counts, key=counts.__getitem__)
    max_length = counts[longest] - 1  # over the context in both routes
    assert sorted(counts.values())[-2] <= max_length - 2  # the others fit with room
    env = {
        **os.environ,
        "INSPECT_CITE_CACHE_DIR": os.environ["INSPECT_CITE_CACHE_DIR"],
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(ROOT),
    }
    proc = subprocess.run(
        [
            str(Path(sys.executable).with_name("lm_eval")), "run", "--model", "hf",
            "--model_args", f"pretrained={tiny_qwen3},dtype=float32,max_length={max_length}",
            "--device", "cpu", "--include_path", str(CONFIG_DIR), "--tasks", "alce_asqa",
            "--metadata", json.dumps({"dataset_path": ASQA, "nli": NLI}),
            "--gen_kwargs", "max_gen_toks=2", "--output_path", str(tmp_path / "lm"),
            "--log_samples",
        ],
        env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr.count("Left truncation applied") == 1
    [samples_file] = (tmp_path / "lm").rglob("samples_alce_asqa_*.jsonl")
    lm = {
        s["doc"]["question"]: s
        for s in map(json.loads, samples_file.read_text().splitlines())
    }  # fmt: skip
    model = get_model("hf/tiny", model_path=str(tiny_qwen3), device="cpu", do_sample=False)
    task = asqa(dataset_path=ASQA, nli=NLI, chat=False, max_length=max_length)
    [log] = inspect_eval(
        task, model=model, max_tokens=2, log_dir=str(tmp_path / "inspect"), display="none"
    )
    assert log.status == "success", log.error
    for sample in log.samples:
        question = sample.metadata["question"]
        assert sample.messages[0].text == prompts[question]
        ours = sample.scores["alce_correctness"].value
        theirs = lm[question]
        nan = [math.isnan(ours["length"]), math.isnan(theirs["length"])]
        assert nan == [question == longest] * 2, question
        if question != longest:
            assert theirs["resps"][0][0] == sample.output.completion
            assert theirs["length"] == ours["length"]
