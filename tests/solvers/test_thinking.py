"""Thinking models: answers are generated with thinking off by default, and an output that
ends inside ``<think>`` is scored nan ("no answer"), never 0.

- ``hf/``: a tiny random Qwen3 whose tokenizer has a Qwen3-style chat template runs the ALCE
  task through ``inspect_ai.eval`` on CPU; the rendered prompts (what the provider sends to
  the model) are recorded from the tokenizer.
- ``vllm/``: Inspect's real provider talks to a local stand-in for the chat-completions
  endpoint that records every request body.
- Scorers and solvers: scripted outputs cut inside thinking.
"""

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.model import (
    ChatMessageAssistant,
    ContentReasoning,
    ContentText,
    GenerateConfig,
    ModelOutput,
    get_model,
)
from inspect_ai.scorer import Score, Target
from transformers import PreTrainedTokenizerBase

from alce_tasks import asqa
from fullcite_tasks import asqa as fullcite_asqa
from inspect_cite.citations.alce import alce_scoring_output, remove_citations
from inspect_cite.generation.thinking import (
    NO_ANSWER_THINKING,
    ThinkingConflictError,
    apply_thinking,
    ended_while_thinking,
    no_answer_reason,
    thinking_generate_config,
)
from inspect_cite.testing.tiny_qwen3 import build_tiny_qwen3
from scorers.alce_correctness import CORRECTNESS_KEYS, alce_correctness
from scorers.alce_qa import QA_KEYS, alce_qa
from scorers.citation_bias import citation_bias
from scorers.citation_judge import JUDGE_KEYS, citation_judge
from scorers.citation_nli import citation_nli
from scorers.citation_similarity import citation_similarity
from scorers.claim_coverage import claim_coverage
from scorers.claim_support import CLAIM_SUPPORT_KEYS, claim_support
from scorers.doc_snippet_f1 import SNIPPET_KEYS, doc_snippet_f1
from scorers.fullcite_answer import ANSWER_KEYS, fullcite_answer
from scorers.mauve import mauve
from solvers import alce_interact
from tests.conftest import FIXTURES, fixture_corpus, load_fixture
from tests.helpers.http_servers import ChatServer
from tests.helpers.scripted_models import scripted_model, scripted_output
from tests.helpers.task_states import FULLCITE_DOCS, fullcite_metadata, state
from tests.helpers.tiny_models import QWEN3_CHAT_TEMPLATE

NLI = "python:tests.helpers.nli_fns:word_entail"
ASQA_PATH = str(FIXTURES / "alce_asqa.json")
FULLCITE_ASQA = {
    "dataset_path": ASQA_PATH,
    "spans_path": str(FIXTURES / "fullcite_asqa_spans.jsonl"),
    "similarity_model": None,
}
EMPTY_THINK = "<|im_start|>assistant\n<think>\n\n</think>\n\n"
CUT = "<think>\nThe question asks who played the Doctor. Document [1] says"
ANSWER = "Christopher Eccleston played the Ninth Doctor [1]."

# An ALCE-format prompt file in this project's own words.
PROMPT_FILE = {
    "instruction": "Answer the question from the documents. Cite each fact as [n].",
    "demo_sep": "\n\n\n",
    "demo_prompt": "{INST}\n\nQuestion: {Q}\n\n{D}\nAnswer: {A}",
    "doc_prompt": "Document [{ID}](Title: {T}): {P}\n",
    "demos": [
        {
            "question": "Who painted the blue door?",
            "answer": "Mara painted the blue door [1].",
            "docs": [{"title": "Door", "text": "The blue door was painted by Mara."}],
        }
    ],
}


@pytest.fixture(scope="module")
def qwen3_thinking(tmp_path_factory) -> Path:
    """A tiny random Qwen3 whose chat template handles enable_thinking like Qwen3's."""
    return build_tiny_qwen3(
        tmp_path_factory.mktemp("tiny-qwen3-thinking"),
        fixture_corpus(),
        chat_template=QWEN3_CHAT_TEMPLATE,
    )


@pytest.fixture
def prompt_file(tmp_path) -> str:
    path = tmp_path / "prompt.json"
    path.write_text(json.dumps({**PROMPT_FILE, "demos": PROMPT_FILE["demos"] * 2}))
    return str(path)


@pytest.fixture
def rendered(monkeypatch) -> list[tuple[Any, str]]:
    """(enable_thinking, rendered prompt) of every chat template the hf provider applies."""
    calls: list[tuple[Any, str]] = []
    original = PreTrainedTokenizerBase.apply_chat_template

    def spy(self: Any, conversation: Any, *args: Any, **kwargs: Any) -> Any:
        out = original(self, conversation, *args, **kwargs)
        calls.append((kwargs.get("enable_thinking"), out))
        return out

    monkeypatch.setattr(PreTrainedTokenizerBase, "apply_chat_template", spy)
    return calls


def hf_model(path: Path, **model_args: Any):
    # Sampling with a fixed seed: greedy decoding of random weights repeats one token ("\n").
    return get_model(
        "hf/tiny-qwen3",
        model_path=str(path),
        device="cpu",
        config=GenerateConfig(seed=7),
        memoize=False,
        **model_args,
    )


def run(task: Any, model: Any, tmp_path: Path, **eval_args: Any):
    [log] = inspect_eval(
        task, model=model, limit=1, log_dir=str(tmp_path / "logs"), display="none", **eval_args
    )
    return log


def alce_task(prompt_file: str, strategy: str = "vanilla", thinking: bool = False) -> Task:
    """The ALCE ASQA task on the fixture and this project's prompt file.

    INTERACT's task would also build vanilla's prompt from the official file (a download), so
    its solver runs on the vanilla task's samples with the same prompt file.
    """
    from tests.helpers.tiny_eval_models import minilm_path

    base = asqa(
        dataset_path=ASQA_PATH,
        prompt_file=prompt_file,
        nli=NLI,
        strategy="vanilla" if strategy == "interact" else strategy,
        retrieval_model=minilm_path(),
        thinking=thinking,
    )
    if strategy != "interact":
        return base
    return Task(
        dataset=base.dataset,
        solver=alce_interact(prompt_file=prompt_file, thinking=thinking),
        scorer=base.scorer,
        config=base.config,
    )


def model_events(sample: Any) -> list[Any]:
    return [e for e in sample.events if e.event == "model"]


# --- hf/: the headline path -------------------------------------------------------------------


def test_hf_default_answers_without_thinking(qwen3_thinking, rendered, prompt_file, tmp_path):
    task = asqa(dataset_path=ASQA_PATH, prompt_file=prompt_file, nli=NLI)
    log = run(task, hf_model(qwen3_thinking), tmp_path)
    assert log.status == "success", log.error

    # What the provider sent: enable_thinking=false reached the template, so the generation
    # prompt ends in Qwen3's closed, empty think block and the model answers at once.
    assert rendered
    assert all(flag is False and text.endswith(EMPTY_THINK) for flag, text in rendered)

    sample = log.samples[0]
    assert sample.metadata["thinking"] == {
        "enabled": False,
        "control": "hf_enable_thinking",
        "template_reads_enable_thinking": True,
    }
    [event] = model_events(sample)
    assert event.config.max_tokens == 300
    assert log.eval.metadata["parameters"]["thinking"] is False
    assert log.eval.metadata["parameters"]["max_tokens"] == 300

    # The scored answer is the whole first line of the completion, not emptied.
    completion = sample.output.completion
    assert sample.output.usage.output_tokens > 0
    assert "<think>" not in completion
    score = sample.scores["alce_correctness"]
    assert score.answer == alce_scoring_output(completion) == completion.strip().split("\n")[0]
    assert score.answer.strip()
    assert score.value["length"] == len(remove_citations(score.answer).split()) > 0
    assert (sample.scores["citation_nli"].metadata or {}).get("reason") != NO_ANSWER_THINKING


def test_hf_thinking_on_lets_the_template_think_with_a_budget(
    qwen3_thinking, rendered, prompt_file, tmp_path
):
    task = asqa(
        dataset_path=ASQA_PATH, prompt_file=prompt_file, nli=NLI, thinking=True, thinking_tokens=5
    )
    log = run(task, hf_model(qwen3_thinking), tmp_path)
    assert log.status == "success", log.error
    assert rendered
    assert all(
        flag is True and text.endswith("<|im_start|>assistant\n") and "<think>" not in text
        for flag, text in rendered
    )
    sample = log.samples[0]
    assert sample.metadata["thinking"]["enabled"] is True
    [event] = model_events(sample)
    assert event.config.max_tokens == 305  # ALCE's 300 for the answer + the thinking budget
    assert log.eval.metadata["parameters"]["thinking_tokens"] == 5


def test_hf_model_arg_that_contradicts_the_task_stops_before_generation(
    qwen3_thinking, prompt_file, tmp_path
):
    task = asqa(dataset_path=ASQA_PATH, prompt_file=prompt_file, nli=NLI)
    log = run(task, hf_model(qwen3_thinking, enable_thinking=True), tmp_path)
    assert log.status == "error"
    assert log.error is not None
    assert "-M enable_thinking=true contradicts -T thinking=false" in log.error.message
    assert "use -T thinking=true instead of -M enable_thinking" in log.error.message
    assert not any(model_events(s) for s in log.samples or [])


def test_hf_model_arg_that_agrees_is_kept(qwen3_thinking):
    model = hf_model(qwen3_thinking, enable_thinking=False)
    assert apply_thinking(model, False)["control"] == "hf_enable_thinking"
    assert model.api.enable_thinking is False  # type: ignore[attr-defined]
    with pytest.raises(ThinkingConflictError, match="-M enable_thinking=false contradicts"):
        apply_thinking(model, True)


# --- vllm/: chat_template_kwargs on every request -----------------------------------------------


@pytest.fixture
def server():
    servers: list[ChatServer] = []

    def start(replies: list[str]) -> ChatServer:
        s = ChatServer(replies)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.httpd.shutdown()
        s.httpd.server_close()


def vllm_model(s: ChatServer):
    # Inspect keeps one vLLM server record per served name: one name per stand-in server.
    name = f"tiny-{s.httpd.server_address[1]}"
    return get_model(f"vllm/{name}", base_url=s.url, api_key="x", memoize=False)


@pytest.mark.parametrize(
    ("strategy", "replies", "requests"),
    [
        ("vanilla", [ANSWER], 1),
        ("rerank", [ANSWER], 4),
        ("interact", ["Check: Document [1]", "Output: " + ANSWER, "End."], 3),
        ("constrained", [ANSWER], 1),
    ],
)
def test_vllm_requests_switch_thinking_off(
    server, prompt_file, tmp_path, strategy, replies, requests
):
    s = server(replies)
    log = run(alce_task(prompt_file, strategy), vllm_model(s), tmp_path, extra_body={"top_k": 20})
    assert log.status == "success", log.error
    assert len(s.bodies) == requests
    for body in s.bodies:
        assert body["chat_template_kwargs"] == {"enable_thinking": False}
        assert body["top_k"] == 20  # the user's --extra-body is kept
    if strategy == "constrained":
        assert "grammar" in s.bodies[0]["structured_outputs"]
    assert log.samples[0].metadata["thinking"] == {
        "enabled": False,
        "control": "chat_template_kwargs",
        "template_reads_enable_thinking": None,
    }


def test_vllm_thinking_on_and_the_fullcite_tasks(server, tmp_path):
    s = server(["Eccleston played him {doc_id: a, snippet: Eccleston}."])
    task = fullcite_asqa(**FULLCITE_ASQA, thinking=True, thinking_tokens=100)
    log = run(task, vllm_model(s), tmp_path)
    assert log.status == "success", log.error
    [body] = s.bodies
    assert body["chat_template_kwargs"] == {"enable_thinking": True}
    assert body["max_tokens"] == 2048 + 100
    for strategy in ("constrained", "posthoc"):
        task = fullcite_asqa(**FULLCITE_ASQA, strategy=strategy)
        log = run(task, vllm_model(s), tmp_path)
        assert log.status == "success", log.error
        assert s.bodies[-1]["chat_template_kwargs"] == {"enable_thinking": False}


def test_vllm_extra_body_that_contradicts_the_task_stops_before_generation(
    server, prompt_file, tmp_path
):
    s = server([ANSWER])
    task = asqa(dataset_path=ASQA_PATH, prompt_file=prompt_file, nli=NLI)
    body = {"chat_template_kwargs": {"enable_thinking": True}}
    log = run(task, vllm_model(s), tmp_path, extra_body=body)
    assert log.status == "error"
    assert log.error is not None
    assert "chat_template_kwargs.enable_thinking=true contradicts" in log.error.message
    assert s.bodies == []


def test_providers_without_a_switch_get_nothing_extra(prompt_file, tmp_path):
    model, script = scripted_model([ANSWER])
    task = asqa(dataset_path=ASQA_PATH, prompt_file=prompt_file, nli=NLI)
    log = run(task, model, tmp_path)
    assert log.status == "success", log.error
    assert script is not None and script.configs[0].extra_body is None
    assert log.samples[0].metadata["thinking"] == {"enabled": False, "control": "none"}


# --- parameters ---------------------------------------------------------------------------------


def test_thinking_parameters_are_checked():
    config = GenerateConfig(max_tokens=300)
    assert thinking_generate_config(config, False, 4096).max_tokens == 300
    assert thinking_generate_config(config, True, 1000).max_tokens == 1300
    with pytest.raises(ValueError, match="-T thinking must be true or false"):
        thinking_generate_config(config, "yes", 10)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="-T thinking_tokens must be at least 1"):
        thinking_generate_config(config, True, 0)
    with pytest.raises(ValueError, match="-T thinking_tokens must be an integer"):
        asqa(dataset_path=ASQA_PATH, nli=NLI, thinking=True, thinking_tokens="many")  # type: ignore[arg-type]


# --- the rule: an output that ends inside thinking has no answer --------------------------------


def reasoning_output(text: str, stop_reason: str) -> ModelOutput:
    output = ModelOutput.from_content(model="m", content="")
    output.choices[0].message = ChatMessageAssistant(
        content=[ContentReasoning(reasoning="Let me weigh the documents"), ContentText(text=text)]
    )
    output.choices[0].stop_reason = stop_reason  # type: ignore[assignment]
    output.completion = text
    return output


@pytest.mark.parametrize(
    ("output", "cut"),
    [
        (scripted_output(CUT, "max_tokens"), True),
        (scripted_output("<think>a</think>\n\n<think>b", "stop"), True),
        (scripted_output("<think>plan</think>\n\n" + ANSWER, "stop"), False),
        (scripted_output(ANSWER, "max_tokens"), False),
        (scripted_output("", "stop"), False),  # empty, not thinking: scorers say "empty"
        (reasoning_output("", "max_tokens"), True),  # a reasoning parser split it off
        (reasoning_output(ANSWER, "max_tokens"), False),
        (reasoning_output("", "stop"), False),
        (None, False),
    ],
)
def test_ended_while_thinking(output, cut):
    assert ended_while_thinking(output) is cut
    assert no_answer_reason(output) == (NO_ANSWER_THINKING if cut else None)


DOCS = FULLCITE_DOCS
ASQA_ITEM = load_fixture("alce_asqa.json")[0]


def scorer_cases() -> list[tuple[str, Any, dict[str, Any], set[str]]]:
    """Every scorer that reads the answer, its metadata and its keys.

    The model-backed scorers name models that do not exist: a sample without an answer must
    be settled before any model is loaded or called.
    """
    alce = {k: v for k, v in ASQA_ITEM.items() if k != "docs"} | {
        "dataset": "asqa",
        "docs": [
            {"id": str(i + 1), "title": d["title"], "text": d["text"]} for i, d in enumerate(DOCS)
        ],
        "claims": ["Eccleston played the Ninth Doctor"],
    }
    fullcite = fullcite_metadata()
    missing = "/nonexistent/model"
    bias_keys = {f"pos_{k}" for k in range(1, 6)} | {
        "pos_rest",
        "invalid_share",
        "first_two_share",
        "first_two_rank_share",
        "n_citations",
        "omission_rate",
    }
    return [
        ("alce_correctness", alce_correctness("asqa"), alce, set(CORRECTNESS_KEYS["asqa"])),
        ("citation_nli", citation_nli(nli=NLI), alce, {"citation_rec", "citation_prec"}),
        ("claim_coverage", claim_coverage(nli=NLI), alce, {"claims_nli"}),
        ("alce_qa", alce_qa(qa_model=missing), alce, set(QA_KEYS)),
        ("mauve", mauve(mauve_model=missing), alce, {"mauve"}),
        ("doc_snippet_f1", doc_snippet_f1(), fullcite, set(SNIPPET_KEYS)),
        ("citation_bias", citation_bias(), fullcite, bias_keys),
        ("fullcite_answer", fullcite_answer("bioasq"), fullcite, set(ANSWER_KEYS["bioasq"])),
        (
            "fullcite_answer_any",
            fullcite_answer(),
            fullcite,
            {k for v in ANSWER_KEYS.values() for k in v},
        ),
        ("citation_similarity", citation_similarity(missing), fullcite, {"similarity", "n_scored"}),
        ("claim_support", claim_support(nli=NLI), fullcite, set(CLAIM_SUPPORT_KEYS)),
        (
            "citation_judge",
            citation_judge(model="mockllm/model", attempts=1),
            fullcite,
            set(JUDGE_KEYS),
        ),
    ]


def assert_no_answer(score: Score | None, keys: set[str]) -> None:
    assert score is not None and isinstance(score.value, dict)
    assert set(score.value) == keys
    assert all(isinstance(v, float) and math.isnan(v) for v in score.value.values())
    assert (score.metadata or {})["reason"] == NO_ANSWER_THINKING
    assert score.explanation is not None
    assert score.explanation.startswith(f"**Not scored:** {NO_ANSWER_THINKING}")


@pytest.mark.parametrize("case", scorer_cases(), ids=lambda c: c[0])
def test_every_scorer_gives_nan_with_the_reason_for_an_answer_cut_while_thinking(case):
    _, scorer_fn, metadata, keys = case
    cut = state(CUT + " the Ninth Doctor [1] {doc_id: a, snippet: Eccleston}", metadata)
    assert_no_answer(asyncio.run(scorer_fn(cut, Target("Christopher Eccleston"))), keys)


def test_a_finished_think_block_is_still_scored():
    alce = {k: v for k, v in ASQA_ITEM.items() if k != "docs"} | {"dataset": "asqa", "docs": DOCS}
    done = state("<think>plan</think>\n\n" + ANSWER, alce)
    score = asyncio.run(alce_correctness("asqa")(done, Target("")))
    assert score is not None and score.answer == ANSWER
    assert isinstance(score.value, dict) and score.value["length"] > 0


# --- solvers keep the cut output for the scorers ------------------------------------------------


@pytest.mark.parametrize(
    ("strategy", "replies", "check"),
    [
        ("vanilla", [(CUT, "max_tokens")], None),
        ("posthoc", [(CUT, "max_tokens")], None),
        ("rerank", [(CUT, "max_tokens")] * 4, "rerank"),
        ("constrained", [(CUT, "max_tokens")] * 4, "constrained"),
        ("interact", ["Check: Document [1]", (CUT, "max_tokens")], "interactive"),
    ],
)
def test_alce_strategies_score_a_cut_answer_as_no_answer(
    strategy, replies, check, prompt_file, tmp_path
):
    model, _ = scripted_model(replies)
    log = run(alce_task(prompt_file, strategy), model, tmp_path)
    assert log.status == "success", log.error
    sample = log.samples[0]
    assert ended_while_thinking(sample.output)
    for name in ("alce_correctness", "citation_nli"):
        score = sample.scores[name]
        assert all(math.isnan(v) for v in score.value.values()), (name, score.value)
        assert score.metadata["reason"] == NO_ANSWER_THINKING
    if check == "interactive":
        assert sample.metadata["interactive"]["stop"] == "thinking"


def test_interact_with_thinking_reads_the_line_after_the_think_block(prompt_file, tmp_path):
    model, script = scripted_model(
        ["<think>\nwhich one\n</think>\n\nOutput: " + ANSWER + "\nmore", "End."]
    )
    log = run(alce_task(prompt_file, "interact", thinking=True), model, tmp_path)
    assert log.status == "success", log.error
    assert script is not None
    assert all(c.stop_seqs is None for c in script.configs)  # a newline would end the thinking
    # run.py joins output lines with a leading space; eval.py strips it.
    assert log.samples[0].output.completion == " " + ANSWER


@pytest.mark.parametrize("strategy", ["prompt", "constrained", "posthoc"])
def test_fullcite_strategies_score_a_cut_answer_as_no_answer(strategy, tmp_path):
    model, _ = scripted_model([(CUT, "max_tokens")] * 4)
    log = run(fullcite_asqa(**FULLCITE_ASQA, strategy=strategy), model, tmp_path)
    assert log.status == "success", log.error
    sample = log.samples[0]
    assert ended_while_thinking(sample.output)
    for name in ("doc_snippet_f1", "citation_bias", "fullcite_answer"):
        score = sample.scores[name]
        assert all(math.isnan(v) for v in score.value.values()), (name, score.value)
        assert score.metadata["reason"] == NO_ANSWER_THINKING
    if strategy == "posthoc":
        assert sample.metadata["posthoc"]["skipped"] == NO_ANSWER_THINKING
