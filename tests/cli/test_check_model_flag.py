"""``inspect-cite check --model``: taken as ``inspect eval`` takes it, never as an abbreviation.

argparse read ``check --model X`` as an abbreviation of ``--model-role`` and refused it as
``--model-role X: expected NAME=VALUE`` (issue 52). ``check`` now takes ``--model``: the task's
checks of the model under test read it while the task is built with a stand-in model (nothing
is loaded), so a HELMET row refuses an API model without ``-T tokenizer`` as ``inspect eval``
does. No subcommand reads an abbreviation.
"""

from pathlib import Path

import pytest

import alce_tasks
from inspect_cite.alce.prompts import PROMPT_DIR_ENV
from inspect_cite.app.cli import main
from tests.helpers.helmet_files import write_helmet_files

NLI = "python:tests.helpers.nli_fns:claim_overlap"


@pytest.fixture
def helmet_args(tmp_path, monkeypatch, cache_root) -> list[str]:
    folder = write_helmet_files(tmp_path / "helmet")
    monkeypatch.setenv(PROMPT_DIR_ENV, str(folder))
    data = folder / "asqa_eval_gtr_top2000.json"
    # By file, as `inspect eval asqa.py` (the tests run without the package's entry points).
    monkeypatch.chdir(Path(alce_tasks.__file__).parent)
    return ["asqa.py", "-T", "context=8k", "-T", f"dataset_path={data}", "-T", f"nli={NLI}"]


def test_check_takes_the_model_under_test(helmet_args, capsys):
    assert main(["check", *helmet_args, "--model", "openai/gpt-4o"]) == 1
    out = capsys.readouterr()
    assert "--model-role" not in out.err and out.out == ""
    assert out.err.strip() == (
        "-T context=8k: HELMET cuts the passages to 8,192 - 300 tokens of the model's tokenizer, "
        "and openai/gpt-4o is served by openai/, whose tokenizer is not here: pass -T "
        "tokenizer=<the model's Hugging Face tokenizer: a hub id or a folder>"
    )


def test_check_with_an_hf_model_cuts_with_its_tokenizer(helmet_args, tiny_qwen3, capsys):
    assert main(["check", *helmet_args, "--model", f"hf/{tiny_qwen3}"]) == 0
    assert capsys.readouterr().out.strip().startswith("ok: asqa: ")


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "alce_tasks/asqa", "--model-rol", "grader=mockllm/model"],
        ["report", "logs", "--ou", "x"],
        ["calibrate", "--nli", "x", "--data", "y", "--out", "z", "--lim", "3"],
    ],
)
def test_no_subcommand_reads_an_abbreviation(argv, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    assert f"unrecognized arguments: {' '.join(argv[-2:])}" in capsys.readouterr().err
