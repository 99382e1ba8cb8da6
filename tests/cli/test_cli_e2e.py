"""The installed plugin through Inspect's own CLI: registry names, offline runs, rescoring.

These run `inspect` in a subprocess from outside the repository so that the installed distribution
(`pip install .`) is what resolves `alce_tasks/asqa`, exactly as for a user. CI installs the project
first and sets INSPECT_CITE_REQUIRE_INSTALLED=1, which turns a missing or stale install into a
failure instead of a skip.
"""

import filecmp
import importlib.metadata
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, ROOT

pytestmark = pytest.mark.slow

PACKAGES = ("alce_tasks", "fullcite_tasks", "longcite_tasks", "solvers", "scorers")
# The plugin's packages and the core they run on: a stale copy of any of them is a stale install.
SOURCE_PACKAGES = (*PACKAGES, "inspect_cite")
INSPECT = str(Path(sys.executable).with_name("inspect"))
INSPECT_CITE = str(Path(INSPECT).with_name("inspect-cite"))
# A deterministic NLI function given by file path: the subprocess runs outside the repository.
NLI = f"python:{ROOT / 'tests' / 'helpers' / 'nli_fns.py'}:word_entail"


def installed_problem() -> str | None:
    try:
        dist = importlib.metadata.distribution("inspect-cite")
    except importlib.metadata.PackageNotFoundError:
        return "inspect-cite is not installed (run `pip install .`)"
    for package in SOURCE_PACKAGES:
        for src in (ROOT / package).rglob("*.py"):
            installed = Path(str(dist.locate_file(src.relative_to(ROOT))))
            if not installed.exists() or not filecmp.cmp(src, installed, shallow=False):
                return f"installed inspect-cite is stale ({src.relative_to(ROOT)}); run `pip install .`"
    return None


@pytest.fixture(scope="module", autouse=True)
def require_installed():
    problem = installed_problem()
    if problem:
        if os.environ.get("INSPECT_CITE_REQUIRE_INSTALLED") == "1":
            pytest.fail(problem)
        pytest.skip(problem)


def run(args: list[str], cwd: Path, cache: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "INSPECT_CITE_CACHE_DIR": str(cache),
        "PYTHONPATH": "",
    }
    proc = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def read_log(log_dir: Path):
    from inspect_ai.log import read_eval_log

    [path] = sorted(log_dir.glob("*.eval"))
    return read_eval_log(str(path))


def test_entry_points_one_per_package():
    eps = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="inspect_ai")}
    for package in PACKAGES:
        assert eps.get(package) == package


def test_lm_eval_path_prints_the_configs_folder_the_package_declares(tmp_path, cache_root):
    proc = run([INSPECT_CITE, "lm-eval-path"], cwd=tmp_path, cache=cache_root)
    code = "from alce_tasks.lm_eval import CONFIG_DIR; print(CONFIG_DIR)"
    installed = run([sys.executable, "-c", code], cwd=tmp_path, cache=cache_root)
    assert proc.stdout == installed.stdout
    assert (Path(proc.stdout.strip()) / "alce_asqa.yaml").is_file()


@pytest.mark.parametrize(
    ("task", "key"),
    [("asqa", "str_em"), ("qampari", "qampari_rec_top5"), ("eli5", "rougeLsum")],
)
def test_inspect_eval_by_registry_name(task, key, tiny_qwen3, own_prompts, cache_root, tmp_path):
    log_dir = tmp_path / "logs"
    run(
        [
            INSPECT, "eval", f"alce_tasks/{task}",
            "--model", "hf/tiny", "-M", f"model_path={tiny_qwen3}", "-M", "device=cpu",
            "-T", f"dataset_path={FIXTURES / f'alce_{task}.json'}", "-T", f"nli={NLI}",
            "--limit", "3", "--log-dir", str(log_dir), "--display", "plain",
        ],
        cwd=tmp_path,
        cache=cache_root,
    )  # fmt: skip
    log = read_log(log_dir)
    assert log.status == "success"
    assert log.eval.task == f"alce_tasks/{task}"
    assert len(log.samples) == 3
    assert key in {s.name for s in log.results.scores}
    # The headline Inspect shows (task list, progress line) is the first score's first metric.
    assert log.results.scores[0].name == "citation_rec"
    assert next(iter(log.results.scores[0].metrics)) == "mean"


def test_solver_and_scorer_by_registry_name(tiny_qwen3, own_prompts, cache_root, tmp_path):
    log_dir = tmp_path / "logs"
    run(
        [
            INSPECT, "eval", "alce_tasks/eli5", "--solver", "solvers/alce_vanilla",
            "--model", "hf/tiny", "-M", f"model_path={tiny_qwen3}", "-M", "device=cpu",
            "-T", f"dataset_path={FIXTURES / 'alce_eli5.json'}", "-T", f"nli={NLI}",
            "--max-tokens", "10",
            "--limit", "1", "--log-dir", str(log_dir), "--display", "plain",
        ],
        cwd=tmp_path,
        cache=cache_root,
    )  # fmt: skip
    log_path = next(log_dir.glob("*.eval"))
    out = tmp_path / "rescored.eval"
    run(
        [
            INSPECT, "score", str(log_path), "--scorer", "scorers/alce_correctness",
            "-S", "dataset=eli5", "--action", "overwrite", "--output-file", str(out),
            "--display", "plain",
        ],
        cwd=tmp_path,
        cache=cache_root,
    )  # fmt: skip
    from inspect_ai.log import read_eval_log

    rescored = read_eval_log(str(out))
    assert rescored.results is not None
    assert {"length", "rougeLsum"} <= {s.name for s in rescored.results.scores}
    assert rescored.samples[0].scores


def test_credentials_in_a_remote_url_never_reach_a_log_or_the_terminal(
    tiny_qwen3, own_prompts, cache_root, tmp_path
):
    token = "tok3n-cli-do-not-log-5150"
    log_dir = tmp_path / "logs"
    proc = subprocess.run(
        [
            INSPECT, "eval", "alce_tasks/asqa",
            "--model", "hf/tiny", "-M", f"model_path={tiny_qwen3}", "-M", "device=cpu",
            "-T", f"dataset_path={FIXTURES / 'alce_asqa.json'}",
            "-T", f"nli=remote:http://user:{token}@127.0.0.1:9#nli",
            "--limit", "1", "--log-dir", str(log_dir), "--display", "plain",
        ],
        cwd=tmp_path,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "INSPECT_CITE_CACHE_DIR": str(cache_root)},
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    printed = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "INSPECT_CITE_NLI_API_KEY" in printed
    assert token not in printed
    for log in log_dir.glob("*.eval") if log_dir.exists() else []:
        with zipfile.ZipFile(log) as z:
            assert all(token.encode() not in z.read(name) for name in z.namelist()), log
