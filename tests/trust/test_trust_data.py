"""Trust-Score data and prompt files: pins, local overrides, validation, record -> Sample."""

import json
from pathlib import Path

import pytest

from alce_tasks.trust_data import (
    TRUST_DATA_REVISION,
    TrustDataError,
    load_trust_items,
    pinned_data,
    trust_data_path,
    trust_record_to_sample,
)
from inspect_cite.alce.trust.prompts import (
    PROMPT_DIR_ENV,
    PROMPT_PINS,
    TrustPromptError,
    TrustPromptFile,
    pinned_prompt,
    prompt_name,
    trust_prompt_path,
)
from inspect_cite.downloads.download import sha256_file
from tests.trust.helpers import FIXTURES, items


def test_pinned_files_name_revision_and_path():
    pin = pinned_data("expertqa")
    assert pin.revision == TRUST_DATA_REVISION and len(pin.revision) == 40
    assert pin.filename == "Trust-Score/expertqa_eval_top100_calibrated.json"
    prompt = pinned_prompt(prompt_name("qampari"))
    assert prompt.path == "trust_eval/docs/prompts/qampari_rejection.json"
    assert prompt.url.startswith("https://raw.githubusercontent.com/declare-lab/trust-align/")
    assert all(len(blob) == 40 and len(sha) == 64 for blob, sha in PROMPT_PINS.values())


def test_local_dataset_path_is_read_with_its_provenance(tmp_path):
    path, info = trust_data_path("asqa", str(FIXTURES / "trust_asqa.json"))
    assert path == FIXTURES / "trust_asqa.json"
    assert info == {"path": str(path), "sha256": sha256_file(path)}


def test_missing_local_file_names_the_flag(tmp_path):
    with pytest.raises(TrustDataError, match=r"does not exist \(-T dataset_path\)"):
        trust_data_path("asqa", str(tmp_path / "nope.json"))


def test_unreachable_hub_names_the_url_and_the_flag(cache_root, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(TrustDataError) as e:
        trust_data_path("eli5")
    # One line: the file, where it is cached, why, its URL and the flag; not the hub client's
    # 600 characters of nested exceptions.
    folder = cache_root / "trust" / "data" / TRUST_DATA_REVISION[:12]
    assert str(e.value) == (
        f"TRUST-SCORE eli5 data is not cached in {folder} and could not be downloaded "
        f"(ConnectionError: HF_HUB_OFFLINE is set). Download {pinned_data('eli5').url} "
        "yourself and pass -T dataset_path=<path> (a copy put in that folder is not read: the "
        "cache holds only what it downloaded and verified)."
    )
    # What the message says of a copy holds: a copy of the file put there is still not read.
    (folder / "eli5_eval_top100_calibrated.json").write_text("[]")
    with pytest.raises(TrustDataError, match="is not cached in"):
        trust_data_path("eli5")


def test_unreachable_prompt_names_its_cache_and_the_task_flag(cache_root, monkeypatch):
    from inspect_cite.downloads import hub_files

    monkeypatch.delenv(PROMPT_DIR_ENV, raising=False)
    monkeypatch.setattr(hub_files, "GITHUB_RAW_URL", "http://127.0.0.1:9/{repo}/{commit}/{path}")
    with pytest.raises(TrustPromptError) as e:
        trust_prompt_path("asqa_rejection")
    [line] = str(e.value).splitlines()
    assert line.startswith(
        f"TRUST-SCORE prompt asqa_rejection is not cached in {cache_root / 'trust' / 'prompts'}"
    )
    assert line.endswith(
        "/asqa_rejection.json yourself and pass -T prompt_file=<path> (a copy put in that folder "
        "is not read: the cache holds only what it downloaded and verified)."
    )


def test_records_are_checked_naming_record_and_field(tmp_path):
    data = items("trust_eli5.json")
    assert len(load_trust_items(FIXTURES / "trust_eli5.json", "eli5")) == len(data)
    data[2]["docs"][0]["answers_found"] = [0, 1]
    path = tmp_path / "d.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TrustDataError) as e:
        load_trust_items(path, "eli5")
    assert str(e.value) == (
        f'dataset file {path} record 2: "docs"[0]["answers_found"] must hold 0 or 1 for each '
        "of the 3 answers (-T dataset_path)"
    )


def test_record_to_sample_keeps_the_shown_documents_with_answers_found():
    record = items("trust_qampari.json")[0]
    record["docs"][0]["rec_score"] = 33.3
    sample = trust_record_to_sample(record, 5, "qampari", "PROMPT", ndoc=2)
    assert sample.id == "5" and sample.input == "PROMPT"
    assert sample.target == ["Ness", "Oich", "Moriston", "Foyers", "Enrick", "Coiltie"]
    docs = sample.metadata["docs"]
    assert [d["id"] for d in docs] == ["1", "2"]
    assert set(docs[0]) == {"id", "title", "text", "answers_found", "rec_score"}
    assert docs[0]["answers_found"] == [1, 1, 0, 0, 0, 0] and docs[0]["rec_score"] == 33.3
    assert sample.metadata["answers"] == record["answers"]
    assert sample.metadata["dataset"] == "qampari" and "output" not in sample.metadata


def own_prompt() -> dict:
    """A refusal-instructed prompt file in this project's own words."""
    return {
        "instruction": "Answer from the documents and cite them; if they hold no answer, say so.",
        "demo_sep": "\n\n",
        "demo_prompt": "{INST}\n\nQ: {Q}\n\n{D}\nA: {A}",
        "doc_prompt": "Doc [{ID}] {T}: {P}\n",
        "positive_demos": [{"question": "Sky colour?", "answer": "Blue [1].", "docs": []}],
        "reject_demos": [{"question": "Moon cheese?", "answer": "No answer found.", "docs": []}],
    }


def test_prompt_dir_override_reads_own_files(tmp_path, monkeypatch):
    (tmp_path / "asqa_rejection.json").write_text(json.dumps(own_prompt()))
    monkeypatch.setenv(PROMPT_DIR_ENV, str(tmp_path))
    path, info = trust_prompt_path("asqa_rejection")
    prompt = TrustPromptFile.load(path)
    assert prompt.reject_demos[0]["question"] == "Moon cheese?"
    assert info == {"path": str(path), "sha256": sha256_file(path)}
    with pytest.raises(TrustPromptError, match="eli5_rejection.json does not exist"):
        trust_prompt_path("eli5_rejection")


def test_malformed_prompt_lists_every_problem(tmp_path):
    data = own_prompt()
    del data["reject_demos"]
    data["positive_demos"] = [{}]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TrustPromptError) as e:
        TrustPromptFile.load(path)
    assert '"reject_demos" must be a list' in str(e.value)
    assert '"positive_demos"[0] needs a string "question"' in str(e.value)


def test_prompt_names():
    assert prompt_name("eli5", closedbook=True) == "eli5_closedbook_rejection"
    with pytest.raises(TrustPromptError, match="no TRUST-SCORE prompt file expertqa_closedbook"):
        prompt_name("expertqa", closedbook=True)


def test_alces_prompt_message_copy_route_works(cache_root):
    # ALCE's offline prompt message says "or copy it to <path>": a copy there with the pinned
    # SHA-256 is read without a download (no manifest needed, unlike TRUST-SCORE's cache).
    import hashlib
    import re as regex

    from inspect_cite.alce.prompts import PROMPT_FILES, PromptFileError

    content = b'{"instruction": "x", "demos": []}'
    digest = hashlib.sha256(content).hexdigest()
    url = "http://127.0.0.1:9/{repo}/{commit}/{name}.json"
    with pytest.raises(PromptFileError) as e:
        PROMPT_FILES.fetch(url, "mine", digest)
    [dest] = regex.findall(r"or copy it to (\S+)\.$", str(e.value))
    Path(dest).write_bytes(content)
    assert PROMPT_FILES.fetch(url, "mine", digest) == Path(dest)
