"""ALCE through lm-evaluation-harness scores the same outputs exactly as the Inspect tasks do."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from lm_eval.api.model import LM

from alce_tasks import eli5
from alce_tasks.lm_eval import CONFIG_DIR
from inspect_cite.checks.errors import PreflightError
from tests.conftest import FIXTURES, ROOT

NLI = "python:tests.helpers.nli_fns:word_entail"
ELI5_OUTPUTS = [
    "Rayleigh scattering is stronger for shorter wavelengths [1]. The sky appears blue [2].",
    "A vaccine trains the immune system to recognise a pathogen [1][3]. Memory cells help [2].",
    "Cats purr when content and also when ill or stressed [1]. Nobody knows why [9].",
]


class ScriptedLM(LM):
    """Answers each prompt with a fixed output (keyed by the question in the prompt)."""

    def __init__(self, by_question: dict[str, str]) -> None:
        super().__init__()
        self.by_question = by_question

    def generate_until(self, requests, disable_tqdm: bool = False) -> list[str]:
        # The test block is the prompt's last "Question: ..." (demonstrations come first).
        return [
            self.by_question[req.args[0].rsplit("Question: ", 1)[1].split("\n", 1)[0]]
            for req in requests
        ]

    def loglikelihood(self, requests):  # pragma: no cover - ALCE only generates
        raise NotImplementedError

    def loglikelihood_rolling(self, requests):  # pragma: no cover
        raise NotImplementedError


def inspect_scores(dataset_fixture: str, outputs: list[str], tmp_path) -> dict[str, list[float]]:
    scripted = []
    for text in outputs:
        out = ModelOutput.from_content("mockllm/model", text)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        scripted.append(out)
    task: Task = eli5(dataset_path=str(FIXTURES / dataset_fixture), nli=NLI)
    [log] = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=scripted),
        log_dir=str(tmp_path / "inspect"),
        display="none",
        max_connections=1,
    )
    values: dict[str, list[float]] = {}
    for sample in sorted(log.samples, key=lambda s: outputs.index(s.output.completion)):
        for score in sample.scores.values():
            for key, value in score.value.items():
                values.setdefault(key, []).append(value)
    return values


def lm_eval_eli5(outputs: list[str], nli: str) -> dict:
    """lm-eval's results for the ELI5 fixture answered with ``outputs`` (in fixture order)."""
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    items = json.loads((FIXTURES / "alce_eli5.json").read_text())
    by_question = {it["question"]: out for it, out in zip(items, outputs, strict=True)}
    return simple_evaluate(
        model=ScriptedLM(by_question),
        tasks=["alce_eli5"],
        # Task options reach the custom_dataset hook through the TaskManager's metadata,
        # as `lm_eval run --metadata` does.
        task_manager=TaskManager(
            include_path=str(CONFIG_DIR),
            metadata={"dataset_path": str(FIXTURES / "alce_eli5.json"), "nli": nli},
        ),
        bootstrap_iters=0,
        log_samples=True,
    )


def test_lm_eval_scores_equal_inspect_scores(own_prompts, tmp_path):
    lm = lm_eval_eli5(ELI5_OUTPUTS, NLI)["results"]["alce_eli5"]
    ours = inspect_scores("alce_eli5.json", ELI5_OUTPUTS, tmp_path)
    for key in ("citation_rec", "citation_prec", "claims_nli", "length", "rougeLsum"):
        expected = [v for v in ours[key] if not math.isnan(v)]
        assert lm[f"{key},none"] == pytest.approx(sum(expected) / len(expected)), key
    # The outputs were chosen so that citation scores are neither all 0 nor all 100.
    assert 0 < lm["citation_rec,none"] < 100


@pytest.mark.slow
def test_lm_eval_cli_with_tiny_model(tiny_qwen3, own_prompts, cache_root, tmp_path):
    out_dir = tmp_path / "lm"
    env = {
        **os.environ,
        "INSPECT_CITE_CACHE_DIR": str(cache_root),
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(ROOT),
    }
    metadata = {"dataset_path": str(FIXTURES / "alce_eli5.json"), "nli": NLI}
    proc = subprocess.run(
        [
            str(Path(sys.executable).with_name("lm_eval")), "run", "--model", "hf",
            "--model_args", f"pretrained={tiny_qwen3},dtype=float32", "--device", "cpu",
            "--include_path", str(CONFIG_DIR), "--tasks", "alce_eli5", "--limit", "2",
            "--metadata", json.dumps(metadata), "--output_path", str(out_dir), "--log_samples",
            "--gen_kwargs", "max_gen_toks=20",
        ],
        env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    [results_file] = out_dir.rglob("results_*.json")
    [samples_file] = out_dir.rglob("samples_alce_eli5_*.jsonl")
    lm = json.loads(results_file.read_text())["results"]["alce_eli5"]
    samples = [json.loads(line) for line in samples_file.read_text().splitlines()]
    outputs = [s["resps"][0][0] for s in sorted(samples, key=lambda s: s["doc_id"])]
    # Score lm-eval's own generations with the Inspect task's scorers.
    items = json.loads((FIXTURES / "alce_eli5.json").read_text())[: len(outputs)]
    subset = tmp_path / "subset.json"
    subset.write_text(json.dumps(items))
    ours = inspect_scores(str(subset), outputs, tmp_path)
    for key in ("citation_rec", "citation_prec", "claims_nli", "length"):
        expected = [v for v in ours[key] if not math.isnan(v)]
        got = lm[f"{key},none"]
        if expected:
            assert got == pytest.approx(sum(expected) / len(expected)), key
        else:
            assert got is None or math.isnan(float(got)), key


FAILING_NLI = "python:tests.helpers.nli_fns:failing_on_fail"
# The first answer's statements hold the word "fail": FAILING_NLI raises on them.
OUTPUTS_WITH_A_FAILURE = [
    "Rayleigh scattering does not fail for shorter wavelengths [1].",
    *ELI5_OUTPUTS[1:],
]


def test_lm_eval_nli_failure_is_nan_for_that_document_only(own_prompts, caplog):
    from alce_tasks.lm_eval.utils import load_eli5, process_eli5

    docs = load_eli5(dataset_path=str(FIXTURES / "alce_eli5.json"), nli=FAILING_NLI)["test"]
    failed = process_eli5(docs[0], [OUTPUTS_WITH_A_FAILURE[0]])
    assert math.isnan(failed["citation_rec"]) and math.isnan(failed["citation_prec"])
    assert failed["claims_nli"] == 0  # its claims were judged: none says "fail"
    assert "cannot judge this" in caplog.text
    scored = process_eli5(docs[1], [OUTPUTS_WITH_A_FAILURE[1]])
    assert not math.isnan(scored["citation_rec"]) and not math.isnan(scored["claims_nli"])


def test_lm_eval_run_survives_an_nli_failure(own_prompts):
    results = lm_eval_eli5(OUTPUTS_WITH_A_FAILURE, FAILING_NLI)
    samples = sorted(results["samples"]["alce_eli5"], key=lambda s: s["doc_id"])
    assert math.isnan(samples[0]["citation_rec"])
    assert all(not math.isnan(s["citation_rec"]) for s in samples[1:])
    lm = results["results"]["alce_eli5"]
    expected = [s["citation_rec"] for s in samples[1:]]
    assert lm["citation_rec,none"] == pytest.approx(sum(expected) / len(expected))


def test_lm_eval_refuses_a_bad_nli_when_the_data_loads(own_prompts):
    from alce_tasks.lm_eval.utils import load_eli5

    with pytest.raises(PreflightError, match=r"^--metadata nli=bogus:x: unknown NLI spec"):
        load_eli5(dataset_path=str(FIXTURES / "alce_eli5.json"), nli="bogus:x")
