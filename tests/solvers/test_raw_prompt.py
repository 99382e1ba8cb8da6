"""Raw-prompt generation (``-T chat=false``): ALCE's prompt reaches the model as run.py sent it.

On ``hf/`` (a tiny local model) and on ``vllm-completions/`` (a local stand-in for a vLLM
server's ``/v1/completions``, ``/tokenize`` and ``/v1/models``): no chat template and no system
message, a newline stop, and run.py's ``min(max_new_tokens, max_length - prompt_tokens)``.
"""

import json
import math

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessageUser, get_model

from alce_tasks import asqa
from inspect_cite.generation.raw_prompt import RAW_CHAT_TEMPLATE
from tests.conftest import FIXTURES, sample_prompt
from tests.helpers.http_servers import RecordingServer, Reply, Seen

NLI = "python:tests.helpers.nli_fns:word_entail"


def raw_task(**options):
    return asqa(
        dataset_path=str(FIXTURES / "alce_asqa.json"),
        nli=NLI,
        chat=False,
        prompt="light_inst",
        shot=1,
        ndoc=2,
        **options,
    )


@pytest.fixture(scope="module")
def tiny_hf(tiny_qwen3):
    return get_model("hf/tiny", model_path=str(tiny_qwen3), device="cpu", do_sample=False)


def test_hf_gets_the_prompt_alone_with_run_py_s_budget_and_newline_stop(
    tiny_hf, own_prompts, tmp_path
):
    task = raw_task()
    prompt = sample_prompt(task.dataset[0])
    [log] = inspect_eval(
        task, model=tiny_hf, limit=1, max_tokens=12, log_dir=str(tmp_path), display="none"
    )
    assert log.status == "success", log.error
    sample = log.samples[0]
    assert [(m.role, m.text) for m in sample.messages[:1]] == [("user", prompt)]
    # What the hf provider renders and tokenizes (adding the tokenizer's own special tokens,
    # as run.py's tokenizer([prompt]) did): the prompt, not a chat transcript.
    api = tiny_hf.api
    assert api.chat_template == RAW_CHAT_TEMPLATE
    assert api.hf_chat([ChatMessageUser(content=prompt)], []) == prompt
    record = sample.metadata["raw_prompt"]
    n_prompt = len(api.tokenizer.tokenize(prompt))
    # The tiny model's context length (max_position_embeddings) is the default max_length.
    assert record["max_length"] == 16384
    assert record["calls"] == [{"prompt_tokens": n_prompt, "max_tokens": 12}]
    assert "\n" not in sample.output.completion.rstrip("\n")
    assert log.eval.metadata["parameters"]["chat"] is False


def test_hf_max_length_caps_the_answer_and_a_prompt_over_it_is_not_scored(
    tiny_hf, own_prompts, tmp_path
):
    prompt = sample_prompt(raw_task().dataset[0])
    n_prompt = len(tiny_hf.api.tokenizer.tokenize(prompt))
    [log] = inspect_eval(
        raw_task(max_length=n_prompt + 3),
        model=tiny_hf,
        limit=1,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    sample = log.samples[0]
    assert sample.metadata["raw_prompt"]["calls"] == [{"prompt_tokens": n_prompt, "max_tokens": 3}]
    assert sample.output.usage.output_tokens <= 3
    # run.py answers "" when the prompt leaves no room; here that is no answer, not a zero.
    [log] = inspect_eval(
        raw_task(max_length=n_prompt),
        model=tiny_hf,
        limit=1,
        log_dir=str(tmp_path),
        display="none",
    )
    sample = log.samples[0]
    assert sample.output.completion == ""
    score = sample.scores["alce_correctness"]
    assert all(math.isnan(v) for v in score.value.values())
    assert score.metadata["reason"].startswith(f"no answer: the prompt ({n_prompt} tokens)")


def test_a_chat_task_after_a_raw_one_gets_the_model_s_own_template_back(
    tiny_hf, own_prompts, tmp_path
):
    inspect_eval(raw_task(), model=tiny_hf, limit=1, log_dir=str(tmp_path), display="none")
    assert tiny_hf.api.chat_template == RAW_CHAT_TEMPLATE
    chat = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI, shot=1, ndoc=2)
    [log] = inspect_eval(
        chat, model=tiny_hf, limit=1, max_tokens=4, log_dir=str(tmp_path), display="none"
    )
    assert log.status == "success", log.error
    assert tiny_hf.api.chat_template is None
    assert log.samples[0].messages[0].role == "system"


class CompletionsServer:
    """A vLLM stand-in: /v1/models (max_model_len), /tokenize (one token per word) and
    /v1/completions (a fixed completion); ``completions`` holds the completion requests."""

    def __init__(self, max_model_len: int) -> None:
        self.max_model_len = max_model_len
        self.completions: list[dict] = []

    def reply(self, seen: Seen) -> Reply:
        body = json.loads(seen.body) if seen.body else {}
        if seen.path.endswith("/v1/models"):
            data = {
                "data": [{"id": "tiny", "object": "model", "max_model_len": self.max_model_len}]
            }
            return self.json(data)
        if seen.path.endswith("/tokenize"):
            tokens = list(range(len(body["prompt"].split())))
            return self.json({"tokens": tokens, "count": len(tokens)})
        self.completions.append(body)
        choice = {"index": 0, "text": " Eccleston [1].", "finish_reason": "stop", "logprobs": None}
        usage = {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}
        return self.json(
            {
                "id": "c",
                "object": "text_completion",
                "created": 0,
                "model": body["model"],
                "choices": [choice],
                "usage": usage,
            }
        )

    @staticmethod
    def json(data: dict) -> Reply:
        return Reply(200, json.dumps(data).encode(), {"Content-Type": "application/json"})


def test_vllm_completions_gets_the_prompt_with_run_py_s_budget(own_prompts, tmp_path):
    task = raw_task()
    prompt = sample_prompt(task.dataset[0])
    words = len(prompt.split())
    server = CompletionsServer(max_model_len=words + 7)
    with RecordingServer(server.reply) as recording:
        model = get_model(
            "vllm-completions/tiny", base_url=recording.url + "/v1", api_key="x", memoize=False
        )
        [log] = inspect_eval(task, model=model, limit=1, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    [request] = server.completions
    assert request["prompt"] == prompt
    assert request["stop"] == ["\n"]
    # min(300, max_model_len - prompt tokens) = 7; the config's decoding otherwise.
    assert request["max_tokens"] == 7
    assert request["temperature"] == 0.5
    assert log.samples[0].output.completion == " Eccleston [1]."


def test_a_chat_prompt_is_kept_inside_the_model_s_context(
    tiny_hf, own_prompts, tmp_path, monkeypatch
):
    # Issue 35, item 16: a chat prompt longer than the context was a torch IndexError (GPT-2's
    # 1,024 positions); it is capped, and nan with the reason when it leaves no room, as raw.
    from inspect_cite.generation.raw_prompt import chat_prompt_tokens

    chat = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI, shot=1, ndoc=2)
    [log] = inspect_eval(
        chat, model=tiny_hf, limit=1, max_tokens=1, log_dir=str(tmp_path), display="none"
    )
    n_prompt = chat_prompt_tokens(tiny_hf, log.samples[0].messages[:2])
    config = tiny_hf.api.model.config
    monkeypatch.setattr(config, "max_position_embeddings", n_prompt + 2)
    [log] = inspect_eval(
        chat, model=tiny_hf, limit=1, max_tokens=10, log_dir=str(tmp_path), display="none"
    )
    assert log.status == "success", log.error
    assert log.samples[0].output.usage.output_tokens <= 2
    monkeypatch.setattr(config, "max_position_embeddings", n_prompt)
    [log] = inspect_eval(
        chat, model=tiny_hf, limit=1, max_tokens=10, log_dir=str(tmp_path), display="none"
    )
    assert log.status == "success", log.error
    sample = log.samples[0]
    assert sample.output.completion == ""
    score = sample.scores["alce_correctness"]
    assert all(math.isnan(v) for v in score.value.values())
    assert score.metadata["reason"] == (
        f"no answer: the prompt ({n_prompt} tokens) leaves no room in the model's context of "
        f"{n_prompt} tokens"
    )
