"""Preflight through the installed plugin's own CLI: what a user sees from ``inspect``.

Each run uses the tiny local generator (``hf//<dir> -M device=cpu``), an empty Hugging Face
cache with ``HF_HUB_OFFLINE=1``, no visible GPU and an 80-column terminal. A refused run
must end before its first generation (no log with a sample), print its message in at most
5 lines, and print no traceback.
"""

import os
import subprocess
from pathlib import Path

import pytest

# Skips (fails in CI) unless the installed plugin matches the working tree.
from tests.cli.test_cli_e2e import INSPECT, require_installed  # noqa: F401
from tests.conftest import FIXTURES, ROOT
from tests.robustness.test_preflight import own_prompt_file

pytestmark = pytest.mark.slow

NLI = f"python:{ROOT / 'tests' / 'helpers' / 'nli_fns.py'}:word_entail"


def user_env(cwd: Path, **extra: str) -> dict[str, str]:
    """A user's environment here: offline, empty caches, no GPU, 80 columns; then ``extra``."""
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HOME": str(cwd / "hf-home"),
        "INSPECT_CITE_CACHE_DIR": str(cwd / "cache"),
        "CUDA_VISIBLE_DEVICES": "",
        "COLUMNS": "80",
        "PYTHONPATH": "",
    }
    for name in ("INSPECT_CITE_NLI_ALLOW_CPU", "HF_HUB_CACHE", "INSPECT_CITE_ALCE_PROMPT_DIR"):
        env.pop(name, None)
    return {**env, **extra}


def run_cli(args: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        args, cwd=cwd, env=user_env(cwd, **extra), capture_output=True, text=True, timeout=600
    )


def inspect_cli(args: list[str], cwd: Path) -> tuple[int, list[str]]:
    """Run ``inspect`` as a user would here; its exit code and the lines it printed."""
    proc = run_cli([INSPECT, *args], cwd)
    # The hf provider's progress bar for loading the generator is not part of the message.
    lines = [
        line
        for line in (proc.stdout + proc.stderr).splitlines()
        if line.strip() and "Loading weights" not in line
    ]
    return proc.returncode, lines


def eval_refused(task: str, task_args: list[str], tmp_path: Path, tiny_qwen3: Path) -> list[str]:
    log_dir = tmp_path / "logs"
    code, lines = inspect_cli(
        [
            "eval", task, "--model", f"hf/{tiny_qwen3}", "-M", "device=cpu",
            *[arg for value in task_args for arg in ("-T", value)],
            "--limit", "2", "--max-tokens", "8", "--log-dir", str(log_dir), "--display", "plain",
        ],
        tmp_path,
    )  # fmt: skip
    assert code != 0
    assert not any("Traceback" in line for line in lines), "\n".join(lines)
    assert len(lines) <= 5, "\n".join(lines)
    if log_dir.exists():
        from inspect_ai.log import read_eval_log

        for log in log_dir.glob("*.eval"):
            assert not read_eval_log(str(log)).samples, "a sample was generated"
    return lines


def test_nli_true_on_a_cpu_stops_before_generation_as_the_default_does(tiny_qwen3, tmp_path):
    args = [
        f"dataset_path={FIXTURES / 'alce_asqa.json'}",
        f"prompt_file={own_prompt_file(tmp_path)}",
    ]
    typed = eval_refused("alce_tasks/asqa", [*args, "nli=true"], tmp_path, tiny_qwen3)
    default = eval_refused("alce_tasks/asqa", args, tmp_path, tiny_qwen3)
    assert typed == default
    message = "\n".join(typed)
    assert typed[0].startswith("-T nli=true: ALCE's T5-11B NLI needs a ~23 GB GPU;")
    assert (
        "-T nli=minicheck:lytang/MiniCheck-Flan-T5-Large" in message
        and "INSPECT_CITE_NLI_ALLOW_CPU=1" in message
    )


@pytest.mark.parametrize(
    ("task", "task_args", "flag"),
    [
        (
            "fullcite_tasks/expertqa",
            [
                f"dataset_path={FIXTURES / 'fullcite_expertqa.jsonl'}",
                f"spans_path={FIXTURES / 'fullcite_expertqa_spans.jsonl'}",
            ],
            "-T similarity_model=sentence-transformers/all-MiniLM-L6-v2",
        ),
        (
            "alce_tasks/asqa",
            [f"dataset_path={FIXTURES / 'alce_asqa.json'}", f"nli={NLI}", "strategy=posthoc"],
            "-T retrieval_model=sentence-transformers/gtr-t5-large",
        ),
    ],
)
def test_unreachable_default_model_stops_before_generation(
    task, task_args, flag, tiny_qwen3, tmp_path
):
    prompt = [f"prompt_file={own_prompt_file(tmp_path)}"] if task.startswith("alce") else []
    lines = eval_refused(task, [*task_args, *prompt], tmp_path, tiny_qwen3)
    message = " ".join(" ".join(lines).split())  # rejoin lines wrapped at 80 columns
    assert message.startswith(f"{flag}: not in the Hugging Face")
    assert "HF_HUB_OFFLINE" in message and "_model=DIR" in message


def test_score_with_typed_nli_true_is_the_default_spec(tmp_path):
    from inspect_ai import eval as inspect_eval

    from alce_tasks import eli5
    from tests.robustness.test_preflight import CountingModel

    [log] = inspect_eval(
        eli5(
            dataset_path=str(FIXTURES / "alce_eli5.json"),
            prompt_file=str(own_prompt_file(tmp_path)),
            nli="python:tests.helpers.nli_fns:word_entail",
        ),
        model=CountingModel().model,
        limit=1,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    score = ["score", log.location, "--scorer", "scorers/citation_nli", "--display", "plain"]
    score += ["--action", "append", "--output-file", str(tmp_path / "rescored.eval")]
    code, typed = inspect_cli([*score, "-S", "nli=true"], tmp_path)
    assert code != 0
    code, default = inspect_cli(score, tmp_path)
    assert code != 0
    assert typed == default and len(typed) <= 5, "\n".join(typed)
    assert typed[0].startswith("-S nli=true: ALCE's T5-11B NLI needs a ~23 GB GPU;")
    assert not (tmp_path / "rescored.eval").exists()


def test_an_nli_cache_that_is_a_directory_is_one_message_from_inspect_score(tmp_path):
    from inspect_ai import eval as inspect_eval

    from alce_tasks import eli5
    from tests.robustness.test_preflight import CountingModel

    [log] = inspect_eval(
        eli5(
            dataset_path=str(FIXTURES / "alce_eli5.json"),
            prompt_file=str(own_prompt_file(tmp_path)),
            nli=NLI,
        ),
        model=CountingModel().model,
        limit=1,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    folder = tmp_path / "nli-cache"
    folder.mkdir()
    code, lines = inspect_cli(
        ["score", log.location, "--scorer", "scorers/citation_nli", "-S", f"nli={NLI}",
         "-S", f"nli_cache={folder}", "--display", "plain",
         "--output-file", str(tmp_path / "rescored.eval")],
        tmp_path,
    )  # fmt: skip
    message = " ".join(" ".join(lines).split())  # rejoin lines wrapped at 80 columns
    assert code != 0 and not any("Traceback" in line for line in lines), "\n".join(lines)
    assert message.startswith(f"NLI cache {folder} is a directory, not a SQLite file.")
    assert "INSPECT_CITE_NLI_CACHE" in message
    assert not (tmp_path / "rescored.eval").exists()


def test_a_bad_scorer_argument_is_one_line_from_inspect_score(tmp_path):
    from inspect_ai import eval as inspect_eval

    from fullcite_tasks.asqa import asqa
    from tests.conftest import ASQA_ARGS
    from tests.helpers.scripted_models import cite_first_document, scripted_model

    model, _ = scripted_model(cite_first_document)
    [log] = inspect_eval(
        asqa(**ASQA_ARGS, similarity_model=None),
        model=model,
        limit=1,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    scorer_file = ROOT / "scorers" / "citation_bias.py"
    code, lines = inspect_cli(
        ["score", log.location, "--scorer", str(scorer_file), "-S", "max_positions=0",
         "--display", "plain", "--output-file", str(tmp_path / "rescored.eval")],
        tmp_path,
    )  # fmt: skip
    assert not any("Traceback" in line for line in lines), "\n".join(lines)
    assert lines == ["max_positions must be at least 1, got 0"]
    assert not (tmp_path / "rescored.eval").exists()
    # A misspelt option or a value of the wrong type is a TypeError, which Inspect's loader
    # passes on even for a scorer given by registry name.
    for option, message in [
        ("max_position=3", "-S max_position=3: unexpected keyword argument 'max_position'"),
        ("max_positions=abc", "-S max_positions must be an integer, got 'abc'"),
    ]:
        code, lines = inspect_cli(
            ["score", log.location, "--scorer", "scorers/citation_bias", "-S", option,
             "--display", "plain", "--output-file", str(tmp_path / "rescored.eval")],
            tmp_path,
        )  # fmt: skip
        assert code != 0 and len(lines) <= 2, "\n".join(lines)
        assert lines[0].startswith(message), "\n".join(lines)
    assert not (tmp_path / "rescored.eval").exists()


# --- issue 24, items 17, 18, 20, 21: what a new user hits ------------------------------------

CHECK = str(Path(INSPECT).with_name("inspect-cite"))
DISPLAYS = ("full", "rich", "plain", "log", "none", "conversation")


@pytest.mark.parametrize("display", DISPLAYS)
def test_a_refusal_reaches_stderr_once_under_every_display(display, tmp_path):
    missing = tmp_path / "nowhere.json"
    proc = run_cli(
        [
            INSPECT, "eval", "alce_tasks/asqa", "--model", "mockllm/model",
            "-T", f"dataset_path={missing}", "-T", f"prompt_file={own_prompt_file(tmp_path)}",
            "-T", f"nli={NLI}", "--log-dir", str(tmp_path / "logs"), "--display", display,
        ],
        tmp_path,
    )  # fmt: skip
    message = f"dataset file {missing} does not exist (-T dataset_path)"
    assert proc.returncode != 0
    assert proc.stderr.count(message) == 1, proc.stderr
    assert message not in proc.stdout and "Traceback" not in proc.stdout + proc.stderr


def test_check_builds_a_task_without_a_model(tmp_path):
    args = [
        "-T", f"dataset_path={FIXTURES / 'alce_asqa.json'}",
        "-T", f"prompt_file={own_prompt_file(tmp_path)}", "-T", f"nli={NLI}",
    ]  # fmt: skip
    proc = run_cli([CHECK, "check", "alce_tasks/asqa", *args], tmp_path)
    assert (proc.returncode, proc.stdout.strip()) == (0, "ok: alce_tasks/asqa: 3 samples")
    # A wrong -T value is refused exactly as `inspect eval` refuses it, before any model.
    proc = run_cli([CHECK, "check", "alce_tasks/asqa", *args, "-T", "ndoc=abc"], tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.strip() == "-T ndoc must be an integer, got 'abc'"
    # A run's missing files: every one in the one message.
    proc = run_cli(
        [CHECK, "check", "fullcite_tasks/expertqa", "-T", f"dataset_path={tmp_path / 'x.jsonl'}"],
        tmp_path,
    )
    assert proc.returncode == 1 and str(tmp_path / "x.jsonl") in proc.stderr
    # A task file by absolute path, which Inspect's loader cannot take: one line, no traceback.
    (tmp_path / "my_task.py").write_text(
        "from inspect_ai import Task, task\nfrom inspect_ai.dataset import Sample\n\n\n"
        "@task\ndef my_task():\n    return Task(dataset=[Sample(input='hi', target='x')])\n"
    )
    assert run_cli([CHECK, "check", "my_task.py"], tmp_path).stdout.strip() == (
        "ok: my_task: 1 sample"
    )
    proc = run_cli([CHECK, "check", str(tmp_path / "my_task.py")], tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "Inspect takes a task file by a path relative to the current folder" in proc.stderr


def test_temperature_zero_on_hf_is_refused_before_the_first_sample(tiny_qwen3, tmp_path):
    base = [
        INSPECT, "eval", "alce_tasks/asqa", "--model", f"hf/{tiny_qwen3}", "-M", "device=cpu",
        "-T", f"dataset_path={FIXTURES / 'alce_asqa.json'}",
        "-T", f"prompt_file={own_prompt_file(tmp_path)}", "-T", f"nli={NLI}",
        "--limit", "1", "--max-tokens", "8", "--log-dir", str(tmp_path / "logs"),
        "--display", "plain", "--temperature", "0",
    ]  # fmt: skip
    proc = run_cli(base, tmp_path)
    assert proc.returncode != 0
    # The hf provider's progress bar for loading the generator is not part of the message.
    lines = [line for line in proc.stderr.splitlines() if line and "Loading weights" not in line]
    assert lines == [
        "--temperature 0: the hf/ provider samples, and cannot sample at a temperature of 0.",
        "Pass -M do_sample=false to decode greedily (or a temperature above 0).",
    ], proc.stderr
    assert not list(tmp_path.glob("logs/*.eval")), "a log was started"
    # The fix the message names runs.
    proc = run_cli([*base, "-M", "do_sample=false"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_a_thinking_switch_that_contradicts_the_task_is_refused_before_generation(
    tiny_qwen3, tmp_path
):
    """``-M enable_thinking=true`` against ``-T thinking=false``: one message, even under none."""
    proc = run_cli(
        [
            INSPECT, "eval", "alce_tasks/asqa", "--model", f"hf/{tiny_qwen3}", "-M", "device=cpu",
            "-M", "enable_thinking=true", "-T", f"dataset_path={FIXTURES / 'alce_asqa.json'}",
            "-T", f"prompt_file={own_prompt_file(tmp_path)}", "-T", f"nli={NLI}",
            "--limit", "1", "--max-tokens", "8", "--log-dir", str(tmp_path / "logs"),
            "--display", "none",
        ],
        tmp_path,
    )  # fmt: skip
    assert proc.returncode != 0
    message = "-M enable_thinking=true contradicts -T thinking=false"
    assert proc.stderr.count(message) == 1, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert not list(tmp_path.glob("logs/*.eval")), "a log was started"


MY_TASK = """\
from inspect_ai import Task, task
from inspect_ai.dataset import Sample

DOCS = [
    {"id": "eiffel", "title": "Eiffel Tower", "text": "The Eiffel Tower stands in Paris."},
    {"id": "louvre", "title": "Louvre", "text": "The Louvre is a museum in Paris."},
]


@task
def my_task():
    sample = Sample(input="Where is the Eiffel Tower?", target="In Paris.", metadata={"docs": DOCS})
    return Task(dataset=[sample])
"""


def test_readme_own_data_commands_show_the_documents_and_score(
    tiny_qwen3, alce_prompt_dir, tmp_path
):
    from inspect_ai.log import read_eval_log

    (tmp_path / "my_task.py").write_text(MY_TASK)
    prompts = {"INSPECT_CITE_ALCE_PROMPT_DIR": str(alce_prompt_dir)}
    proc = run_cli(
        [
            INSPECT, "eval", "my_task.py", "--solver", "solvers/alce_vanilla",
            "--model", f"hf/{tiny_qwen3}", "-M", "device=cpu", "--max-tokens", "8",
            "--log-dir", "logs", "--display", "none",
        ],
        tmp_path,
        **prompts,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    [log_path] = (tmp_path / "logs").glob("*.eval")
    [sample] = read_eval_log(str(log_path)).samples
    prompt = sample.messages[1].text
    assert "Document [1](Title: Eiffel Tower): The Eiffel Tower stands in Paris." in prompt
    assert "Document [2](Title: Louvre): The Louvre is a museum in Paris." in prompt
    proc = run_cli(
        [
            INSPECT, "score", str(log_path), "--scorer", "scorers/alce_correctness",
            "-S", "dataset=asqa", "--display", "none", "--output-file", "scored.eval",
        ],
        tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    [scored] = read_eval_log(str(tmp_path / "scored.eval")).samples
    score = scored.scores["alce_correctness"]
    assert 'str_em, str_hit: missing field "qa_pairs"' in score.metadata["reason"]
