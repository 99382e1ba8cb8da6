"""Security: ``python:`` NLI code runs only when asked for; API keys never reach logs or reports."""

import json
import sys
import zipfile
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from alce_tasks import asqa
from inspect_cite.cli import main
from inspect_cite.nli import get_nli, reset_nli
from inspect_cite.nli.registry import parse_nli_spec
from tests.conftest import FIXTURES
from tests.scripted_models import scripted_model
from tests.test_nli_remote import Classify, server  # noqa: F401 (fixture)

SENTINEL = "tests.nli_sentinel"
OPENAI_KEY = "sk-openai-do-not-log-4242"
NLI_KEY = "secret-key"  # what the remote server fixture puts in INSPECT_CITE_NLI_API_KEY


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.delenv("INSPECT_CITE_NLI_CACHE", raising=False)
    sys.modules.pop(SENTINEL, None)
    reset_nli()
    yield
    reset_nli()
    sys.modules.pop(SENTINEL, None)


@pytest.mark.parametrize(
    "spec",
    [
        f"seq2seq:{SENTINEL}:entail",
        f"classifier:{SENTINEL}",
        f"model:{SENTINEL}",
        f"remote:http://127.0.0.1:9#{SENTINEL}:entail",
    ],
)
def test_python_code_is_not_imported_for_other_specs(spec):
    get_nli(spec)
    parse_nli_spec(f"python:{SENTINEL}:entail")
    assert SENTINEL not in sys.modules


def test_python_code_is_imported_when_given_explicitly():
    get_nli(f"python:{SENTINEL}:entail")
    assert SENTINEL in sys.modules


def all_text(directory: Path) -> str:
    """Every file under ``directory``, with .eval archives unpacked."""
    parts = []
    for path in directory.rglob("*"):
        if not path.is_file():
            continue
        if path.suffix == ".eval":
            with zipfile.ZipFile(path) as z:
                parts += [z.read(n).decode("utf-8", "replace") for n in z.namelist()]
        else:
            parts.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


def test_api_keys_never_reach_logs_or_reports(server, own_prompts, tmp_path, monkeypatch, capsys):  # noqa: F811
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    items = json.loads((FIXTURES / "alce_asqa.json").read_text())[:2]
    outputs = [f"{item['docs'][0]['text'][:60]} [1]." for item in items]
    model, _ = scripted_model(outputs)
    log_dir = tmp_path / "logs"
    task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=f"remote:{server}#m")
    [log] = inspect_eval(
        task, model=model, display="none", log_dir=str(log_dir), limit=2, max_connections=1
    )
    assert log.status == "success", log.error
    assert Classify.requests and Classify.requests[0]["auth"] == f"Bearer {NLI_KEY}"
    assert main(["report", str(log_dir), "--out", str(tmp_path / "report")]) == 0
    printed = capsys.readouterr()
    text = all_text(log_dir) + all_text(tmp_path / "report") + printed.out + printed.err
    assert "citation_rec" in text  # the scan did read the log and the report
    assert OPENAI_KEY not in text and NLI_KEY not in text
