"""longcite_tasks/longbench_cite end to end, offline: fixture data, fixed answers, scripted grader."""

import json
import math

import pytest
from inspect_ai import eval as inspect_eval

from inspect_cite.checks.errors import PreflightError
from inspect_cite.downloads.download import sha256_file
from longcite_tasks import longbench_cite
from longcite_tasks.data import read_items
from tests.conftest import ROOT
from tests.longcite.conftest import RecordingGrader, answering_model
from tests.longcite.fixtures import DATA, expected, items

EXPECTED = expected()["items"]


def run(tmp_path, **task_args):
    grader = RecordingGrader()
    [log] = inspect_eval(
        longbench_cite,
        task_args={"dataset_path": str(DATA), **task_args},
        model=answering_model(),
        model_roles={"grader": grader.model},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def test_the_task_runs_end_to_end_and_scores_as_longcite(longcite_files, tmp_path, word_tokenizer):
    log = run(tmp_path, tokenizer=str(word_tokenizer))
    assert len(log.samples) == len(items())
    meta = log.eval.metadata
    assert meta["benchmark"] == "longbench_cite"
    assert meta["data"] == {"path": str(DATA), "sha256": sha256_file(DATA)}
    assert meta["counts"]["hotpotqa"] == 2 and sum(meta["counts"].values()) == len(items())
    assert set(meta["prompts"]) == {"one_shot", "citation_grader", "correctness_grader"}
    assert meta["parameters"]["tokenizer"] == str(word_tokenizer)
    for sample in log.samples:
        want = EXPECTED[str(sample.id)]
        # The model saw LongCite's numbered passage, and the docs are its chunks.
        [message] = [m for m in sample.messages if m.role == "user"]
        assert want["passage"] in message.text
        assert sample.metadata["docs"][0]["id"] == "0"
        assert "context" not in sample.metadata
        citation = sample.scores["longcite_citation"].value
        if want["citation"] is None:
            assert math.isnan(citation["citation_f1"])
        else:
            assert citation["citation_f1"] == pytest.approx(100 * want["citation"]["citation_f1"])
        correctness = sample.scores["longcite_correctness"].value["correctness"]
        assert correctness == pytest.approx(100 * want["correctness"])


def test_datasets_keeps_only_those(longcite_files, tmp_path):
    log = run(tmp_path, datasets="hotpotqa,dureader", correctness=False, tokenizer=None)
    assert sorted(s.metadata["dataset"] for s in log.samples) == ["dureader"] * 2 + ["hotpotqa"] * 2
    assert "longcite_correctness" not in log.samples[0].scores
    assert log.eval.metadata["parameters"]["datasets"] == ["hotpotqa", "dureader"]


def test_an_unknown_dataset_is_refused_naming_the_choices(longcite_files):
    with pytest.raises(PreflightError, match="-T datasets=hotpot: unknown dataset hotpot; use"):
        longbench_cite(dataset_path=str(DATA), datasets="hotpot")


def test_an_unknown_dataset_hides_no_other_problem(longcite_files, tmp_path):
    """Issue 52: ``-T datasets=foo`` was raised alone, before the tokenizer and the grader."""
    with pytest.raises(PreflightError) as e:
        inspect_eval(
            longbench_cite,
            task_args={"dataset_path": str(DATA), "datasets": "foo", "tokenizer": "./no-tok"},
            model=answering_model(),
            log_dir=str(tmp_path),
            display="none",
        )
    message = str(e.value)
    assert message.startswith("3 problems stop this run:\n1. -T datasets=foo: unknown dataset foo")
    assert "-T tokenizer=./no-tok: folder no-tok does not exist" in message
    assert "needs a model bound to the role 'grader'" in message


def test_the_grader_role_is_needed_before_generation(longcite_files, tmp_path):
    with pytest.raises(PreflightError) as e:
        inspect_eval(
            longbench_cite,
            task_args={"dataset_path": str(DATA)},
            model=answering_model(),
            log_dir=str(tmp_path),
            display="none",
        )
    assert "needs a model bound to the role 'grader'" in str(e.value)
    assert "--model-role grader=<model>" in str(e.value)


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"idx": 0}', "expected a JSON list of LongBench-Cite items"),
        (
            '[{"idx": 0, "dataset": "hotpotqa", "query": "q", "answer": []}]',
            'item 0 has no "context" field',
        ),
        (
            '[{"idx": 0, "dataset": "hotpotqa", "query": "q", "context": "c", "answer": 3}]',
            'item 0 field "answer" must be a string or a list of strings',
        ),
        ("[1, 2", "LongBench-Cite data file"),
    ],
)
def test_a_bad_data_file_is_refused_in_one_line(tmp_path, content, message):
    path = tmp_path / "data.json"
    path.write_text(content)
    with pytest.raises(PreflightError, match=message) as e:
        read_items(path)
    assert "\n" not in str(e.value) and str(path) in str(e.value)


def test_a_missing_data_file_names_the_flag(longcite_files, tmp_path):
    with pytest.raises(PreflightError, match="does not exist \\(-T dataset_path\\)"):
        longbench_cite(dataset_path=str(tmp_path / "absent.json"))


def test_no_data_offline_says_how_to_get_it(longcite_files, monkeypatch):
    def unreachable(url):
        raise ConnectionError("no network in tests")

    monkeypatch.setattr("inspect_cite.checks.network.ensure_reachable", unreachable)
    monkeypatch.setattr("inspect_cite.downloads.hub_files.ensure_reachable", unreachable)
    with pytest.raises(PreflightError) as e:
        longbench_cite()
    assert "LongBench-Cite.json" in str(e.value) and "-T dataset_path=<path>" in str(e.value)


def test_a_sample_keeps_the_items_fields(tmp_path):
    from longcite_tasks.data import item_sample

    item = {**items()[5], "extra": 1}
    sample = item_sample(item)
    assert sample.input == item["query"] and sample.target == item["answer"]
    assert sample.metadata["few_shot_scores"] == item["few_shot_scores"]
    assert sample.metadata["extra"] == 1 and sample.metadata["idx"] == 5
    assert json.dumps(sample.metadata)  # JSON-serialisable for the log


@pytest.fixture
def empty_hub_cache(tmp_path, monkeypatch):
    """No Hugging Face cache entry, and (as every test) HF_HUB_OFFLINE."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    from inspect_cite.checks.once import reset_preflight

    reset_preflight()
    yield
    reset_preflight()


def test_the_default_tokenizer_offline_and_not_cached_is_refused_before_the_run(
    longcite_files, tmp_path, empty_hub_cache
):
    grader = RecordingGrader()
    with pytest.raises(PreflightError) as e:
        inspect_eval(
            longbench_cite,
            task_args={"dataset_path": str(DATA)},
            model=answering_model(),
            model_roles={"grader": grader.model},
            log_dir=str(tmp_path),
            display="none",
        )
    message = str(e.value)
    assert message.startswith(
        "-T tokenizer=THUDM/glm-4-9b-chat: not in the Hugging Face cache, and HF_HUB_OFFLINE is set"
    )
    assert "\n" not in message
    assert 'hf download THUDM/glm-4-9b-chat --include "*token*"' in message
    assert "-T tokenizer=null" in message
    assert not grader.calls  # nothing was generated or graded


def test_the_tokenizer_is_one_of_the_problems_of_one_message(
    longcite_files, tmp_path, empty_hub_cache
):
    with pytest.raises(PreflightError) as e:
        longbench_cite(
            dataset_path=str(tmp_path / "absent.json"), tokenizer=str(tmp_path / "no-tokenizer")
        )
    message = str(e.value)
    assert message.startswith("2 problems stop this run:")
    assert "does not exist (-T dataset_path)" in message
    assert f"-T tokenizer={tmp_path / 'no-tokenizer'}: folder" in message
    assert "does not exist" in message


def test_a_folder_without_tokenizer_files_is_refused(longcite_files, tmp_path, empty_hub_cache):
    (tmp_path / "empty").mkdir()
    with pytest.raises(PreflightError, match="no tokenizer files in"):
        longbench_cite(dataset_path=str(DATA), tokenizer=str(tmp_path / "empty"))


def test_a_cached_or_local_tokenizer_or_none_passes(
    longcite_files, tmp_path, word_tokenizer, empty_hub_cache
):
    from huggingface_hub import constants

    from inspect_cite.checks.tokenizers import tokenizer_problem

    assert tokenizer_problem(str(word_tokenizer)) is None
    longbench_cite(dataset_path=str(DATA), tokenizer=str(word_tokenizer))
    longbench_cite(dataset_path=str(DATA), tokenizer=None)
    # A hub id whose tokenizer files are in the cache passes offline.
    snapshot = tmp_path / "hub" / "models--THUDM--glm-4-9b-chat" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    (snapshot / "tokenizer_config.json").write_text("{}")
    refs = snapshot.parents[1] / "refs"
    refs.mkdir()
    (refs / "main").write_text("abc")
    assert constants.HF_HUB_CACHE == str(tmp_path / "hub")
    assert tokenizer_problem("THUDM/glm-4-9b-chat") is None


def test_inspect_cite_check_names_the_tokenizer(longcite_files, empty_hub_cache):
    """`inspect-cite check` builds the task as `inspect eval` does (here from its file)."""
    from inspect_cite.app.cli import check_task

    task = f"{ROOT / 'longcite_tasks' / 'longbench_cite.py'}@longbench_cite"
    with pytest.raises(PreflightError, match=r"-T tokenizer=THUDM/glm-4-9b-chat: not in the"):
        check_task(task, {"dataset_path": str(DATA)}, ["grader=mockllm/model"])
    assert check_task(
        task, {"dataset_path": str(DATA), "tokenizer": None}, ["grader=mockllm/model"]
    ).endswith(": 11 samples")


def test_a_hub_tokenizer_the_hub_does_not_serve_is_refused(empty_hub_cache, monkeypatch):
    import huggingface_hub
    from huggingface_hub import constants

    from inspect_cite.checks.tokenizers import tokenizer_problem

    def unreachable(*args, **kwargs):
        raise ConnectionError("no network in tests")

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub, "get_hf_file_metadata", unreachable)
    assert tokenizer_problem("THUDM/glm-4-9b-chat") == (
        "not in the Hugging Face cache, and the hub did not answer "
        "(ConnectionError: no network in tests)"
    )
    assert tokenizer_problem("not a hub id!") == (
        "neither an existing folder nor a Hugging Face hub id (org/name)"
    )
