"""ALCE prompt construction, checked against an independent assembly from the documented format.

Construction runs on the project's own ALCE-format prompt files and, with the reference files,
on ALCE's official ones.
"""

import hashlib
import json

import pytest

from inspect_cite.alce.prompts import (
    PROMPT_SHA256,
    AlcePromptBuilder,
    PromptFile,
    PromptFileError,
    demo_ids,
    official_prompt_path,
)
from tests.conftest import load_fixture, official_prompts_dir


@pytest.fixture(params=["own", "official"])
def prompts_dir(request, alce_prompt_dir):
    """A folder of ALCE-format prompt files: the project's own, then ALCE's official ones."""
    return alce_prompt_dir if request.param == "own" else official_prompts_dir()


def docs_block(docs, ndoc, key="text"):
    return "".join(
        f"Document [{i + 1}](Title: {d['title']}): {d[key]}\n" for i, d in enumerate(docs[:ndoc])
    )


def expected_block(inst, question, docs_text, answer=None):
    # The documented demo_prompt "{INST}\n\nQuestion: {Q}\n\n{D}\nAnswer: {A}", "{A}" removed and
    # right-stripped, the answer appended with no space.
    block = f"{inst}\n\nQuestion: {question}\n\n{docs_text}\nAnswer:"
    if answer is None:
        return block
    return block + ("\n" + "\n".join(answer) if isinstance(answer, list) else answer)


def test_official_checksums_match_reference_copies():
    for name, digest in PROMPT_SHA256.items():
        data = (official_prompts_dir() / f"{name}.json").read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest, name
    assert len(PROMPT_SHA256) == 18


def test_seed_42_shot_2_picks_demos_1_and_3():
    assert demo_ids(4, 2, 42) == [1, 3]
    assert demo_ids(4, 0, 42) == []


@pytest.mark.parametrize(
    ("dataset", "variant", "shot", "ndoc", "seed"),
    [
        ("asqa", "default", 2, 5, 42),
        ("asqa", "light_inst", 1, 3, 42),
        ("qampari", "default", 2, 5, 42),
        ("eli5", "light_inst", 2, 3, 7),
        ("eli5", "default", 0, 1, 42),
    ],
)
def test_prompt_equals_alce_construction(prompts_dir, dataset, variant, shot, ndoc, seed):
    pf = PromptFile.load(prompts_dir / f"{dataset}_{variant}.json")
    raw = json.loads((prompts_dir / f"{dataset}_{variant}.json").read_text())
    item = load_fixture(f"alce_{dataset}.json")[0]
    ids = demo_ids(len(raw["demos"]), shot, seed)
    expected = ""
    for i in ids:
        demo = raw["demos"][i]
        expected += expected_block(
            raw["instruction"], demo["question"], docs_block(demo["docs"], ndoc), demo["answer"]
        )
        expected += "\n\n\n"
    expected += expected_block(raw["instruction"], item["question"], docs_block(item["docs"], ndoc))
    builder = AlcePromptBuilder(pf, shot=shot, ndoc=ndoc, seed=seed)
    assert builder.build(item) == expected
    assert expected.endswith("Answer:")
    assert [d["title"] for d in builder.docs(item)] == [d["title"] for d in item["docs"][:ndoc]]


def test_demo_answer_has_no_space_after_colon(prompts_dir):
    pf = PromptFile.load(prompts_dir / "asqa_default.json")
    prompt = AlcePromptBuilder(pf, shot=2, ndoc=1).build(load_fixture("alce_asqa.json")[0])
    demo_answer = pf.demos[1]["answer"]
    assert not demo_answer.startswith(" ")
    assert f"Answer:{demo_answer}\n\n\n" in prompt


def test_qampari_list_answers_join_with_newlines(prompts_dir):
    raw = json.loads((prompts_dir / "qampari_interact_doc_id.json").read_text())
    assert isinstance(raw["demos"][0]["answer"], list)
    pf = PromptFile.load(prompts_dir / "qampari_interact_doc_id.json")
    prompt = AlcePromptBuilder(pf, shot=1, ndoc=2, seed=0).build(
        load_fixture("alce_qampari.json")[0]
    )
    demo = raw["demos"][demo_ids(4, 1, 0)[0]]
    assert "Answer:\n" + "\n".join(demo["answer"]) + "\n\n\n" in prompt


def test_closedbook_has_no_documents(prompts_dir):
    pf = PromptFile.load(prompts_dir / "asqa_closedbook.json")
    item = load_fixture("alce_asqa.json")[0]
    prompt = AlcePromptBuilder(pf, shot=2, ndoc=0).build(item)
    assert "Document [" not in prompt
    assert prompt.endswith(f"Question: {item['question']}\n\nAnswer:")


def test_default_prompt_with_ndoc_zero_deletes_doc_line(prompts_dir):
    pf = PromptFile.load(prompts_dir / "asqa_default.json")
    item = load_fixture("alce_asqa.json")[0]
    prompt = AlcePromptBuilder(pf, shot=0, ndoc=0).build(item)
    assert prompt == f"{pf.instruction}\n\nQuestion: {item['question']}\n\nAnswer:"


def test_summary_mode_skips_irrelevant_and_renumbers(prompts_dir):
    pf = PromptFile.load(prompts_dir / "asqa_sum_or_ext.json")
    item = load_fixture("alce_asqa.json")[0]
    builder = AlcePromptBuilder(pf, shot=0, ndoc=3, use_shorter="summary")
    prompt = builder.build(item)
    # Doc 2 ("Irrelevant") and doc 4 ("...irrelevant...") are skipped; numbering stays 1..3.
    kept = [item["docs"][i] for i in (0, 1, 3)]
    assert docs_block(kept, 3, "summary") in prompt
    assert [d["text"] for d in builder.docs(item)] == [d["text"] for d in kept]
    ext = AlcePromptBuilder(pf, shot=0, ndoc=3, use_shorter="extraction").docs(item)
    assert [d["title"] for d in ext] == [item["docs"][i]["title"] for i in (0, 1, 3)]


def test_summary_mode_doc_without_key_stops_walk(prompts_dir):
    pf = PromptFile.load(prompts_dir / "asqa_sum_or_ext.json")
    item = {
        "question": "Q?",
        "docs": [{"title": "A", "text": "full text"}, {"title": "B", "text": "b"}],
    }
    builder = AlcePromptBuilder(pf, shot=0, ndoc=3, use_shorter="summary")
    assert "Document [1](Title: A): full text\n" in builder.build(item)
    assert len(builder.docs(item)) == 1


def test_prompt_file_errors_name_file_and_field(tmp_path, alce_prompt_dir):
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps({"instruction": "x", "demo_sep": "", "demo_prompt": "", "demos": []}))
    with pytest.raises(PromptFileError, match=r'p\.json: missing field "doc_prompt"'):
        PromptFile.load(bad)
    bad.write_text("{not json")
    with pytest.raises(PromptFileError, match="not valid JSON"):
        PromptFile.load(bad)
    with pytest.raises(PromptFileError, match="does not exist"):
        PromptFile.load(tmp_path / "missing.json")
    with pytest.raises(PromptFileError, match="asqa_default.json: shot=5 needs 5 demos, it has 4"):
        AlcePromptBuilder(PromptFile.load(alce_prompt_dir / "asqa_default.json"), shot=5)


def test_official_prompt_from_cache_needs_no_network(prompt_cache):
    path = official_prompt_path("eli5_light_inst")
    assert path.is_relative_to(prompt_cache)


def test_official_prompt_offline_error_names_url_and_override(cache_root, monkeypatch):
    from inspect_cite.downloads import http_client

    def no_network(url, sha256, dest, **kwargs):
        raise ConnectionError("network unreachable")

    monkeypatch.setattr(http_client, "download", no_network)
    with pytest.raises(PromptFileError) as e:
        official_prompt_path("asqa_default")
    msg = str(e.value)
    assert "asqa_default.json" in msg
    assert (
        "raw.githubusercontent.com/princeton-nlp/ALCE/246c476a4edfc564266b7346b6e29ef4861ae937"
        in msg
    )
    assert "-T prompt_file=" in msg


def test_corrupted_cached_prompt_is_not_used(cache_root, monkeypatch):
    from inspect_cite.alce.prompts import ALCE_PROMPT_COMMIT

    dest = cache_root / "alce" / "prompts" / ALCE_PROMPT_COMMIT[:12]
    dest.mkdir(parents=True)
    (dest / "asqa_default.json").write_text('{"tampered": true}')
    calls = []

    def fake_download(url, sha256, path, **kwargs):
        calls.append(url)
        raise ValueError(f"Checksum mismatch for {url}")

    from inspect_cite.downloads import http_client

    monkeypatch.setattr(http_client, "download", fake_download)
    monkeypatch.setattr("inspect_cite.downloads.hub_files.ensure_reachable", lambda url: None)
    with pytest.raises(PromptFileError, match="Checksum mismatch"):
        official_prompt_path("asqa_default")
    assert calls


def test_prompt_dir_replaces_official_files(cache_root, alce_prompt_dir, monkeypatch, tmp_path):
    from inspect_cite.alce.prompts import PROMPT_DIR_ENV, alce_prompt_path

    def no_network(url, sha256, dest, **kwargs):
        raise ConnectionError("network unreachable")

    import inspect_ai.util

    monkeypatch.setattr(inspect_ai.util, "download", no_network)
    monkeypatch.setenv(PROMPT_DIR_ENV, str(alce_prompt_dir))
    assert alce_prompt_path("qampari_sum_or_ext") == alce_prompt_dir / "qampari_sum_or_ext.json"
    # A folder without the file is an error naming the file and the variable, never a fallback.
    monkeypatch.setenv(PROMPT_DIR_ENV, str(tmp_path))
    with pytest.raises(PromptFileError) as e:
        alce_prompt_path("asqa_default")
    assert str(tmp_path / "asqa_default.json") in str(e.value)
    assert PROMPT_DIR_ENV in str(e.value)
    monkeypatch.delenv(PROMPT_DIR_ENV)
    with pytest.raises(PromptFileError, match="could not be downloaded"):
        alce_prompt_path("asqa_default")
