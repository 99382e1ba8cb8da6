"""What an offline user is told to run (issue 52, item 13): the download command of the
installed huggingface_hub (2.x ships ``hf``, no ``huggingface-cli``), and a missing LongCite
file named as the file, with what it holds and how to get it."""

import importlib.metadata

import pytest

from inspect_cite.app.cli import main
from inspect_cite.checks.models import model_problem
from inspect_cite.checks.network import hub_download_command
from inspect_cite.downloads import hub_files
from inspect_cite.longcite.files import LongciteFileError, longcite_file
from tests.robustness.test_preflight import empty_hub  # noqa: F401 (fixture)


def test_the_download_command_is_the_installed_huggingface_hub_s(monkeypatch):
    installed = importlib.metadata.version("huggingface_hub")
    expected = "hf download" if tuple(map(int, installed.split(".")[:2])) >= (0, 34) else None
    if expected is not None:
        assert hub_download_command("org/m") == "hf download org/m"
    real = importlib.metadata.version

    def version(name):
        return "0.30.2" if name == "huggingface_hub" else real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    assert hub_download_command("org/d", dataset=True) == (
        "huggingface-cli download org/d --repo-type dataset"
    )


def test_an_uncached_hub_model_offline_says_how_to_download_it(empty_hub):  # noqa: F811
    assert model_problem("org/not-cached", "seq2seq") == (
        "not in the Hugging Face cache, and HF_HUB_OFFLINE is set (download it while online: "
        f"{hub_download_command('org/not-cached')})"
    )


def test_llm_aggrefact_s_hint_uses_the_installed_command(tmp_path, capsys):
    args = ["calibrate", "--nli", "python:tests.helpers.nli_fns:claim_overlap"]
    assert main([*args, "--data", "llm-aggrefact", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    command = hub_download_command("lytang/LLM-AggreFact", dataset=True)
    assert f"download it ({command} --local-dir llm-aggrefact)" in err
    if command.startswith("hf "):
        assert "huggingface-cli" not in err


@pytest.mark.parametrize(
    ("name", "holds"),
    [
        ("one_shot_prompt.txt", "the one-shot prompt of LongBench-Cite's answers"),
        ("auto_scorer.py", "the citation grader's prompts"),
        ("eval_correct.py", "the correctness grader's prompts"),
    ],
)
def test_a_missing_longcite_file_is_named_with_what_it_holds(name, holds, cache_root, monkeypatch):
    monkeypatch.delenv("INSPECT_CITE_LONGCITE_DIR", raising=False)

    def unreachable(url):
        raise ConnectionError("cannot connect to raw.githubusercontent.com:443")

    monkeypatch.setattr(hub_files, "ensure_reachable", unreachable)
    with pytest.raises(LongciteFileError) as refused:
        longcite_file(name)
    first, fix = str(refused.value).split("\n")
    assert first.startswith(f"LongCite file {name} ({holds}) is not cached and could not be ")
    assert fix.startswith("Download https://raw.githubusercontent.com/THUDM/LongCite/")
    assert f"copy it to {cache_root}" in fix and "INSPECT_CITE_LONGCITE_DIR" in fix
