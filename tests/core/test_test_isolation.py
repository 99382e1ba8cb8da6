"""The suite's own isolation (tests/conftest.py): each test process has caches and logs of its own.

Tests run on several pytest-xdist workers at once, beside other runs on the same machine: a
cache, a log folder or a setting they share makes a result depend on what ran before or beside
them. What a test leaves in the checkout is checked at the end of every run
(``pytest_sessionfinish``).
"""

import os
import tempfile
from pathlib import Path

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample

from tests.conftest import KEPT_SETTINGS, PRIVATE, PRIVATE_ENV, ROOT
from tests.helpers.scripted_models import scripted_model


def test_each_test_process_has_its_own_caches_and_log_folder():
    from huggingface_hub import constants

    from inspect_cite.downloads.cache import cache_dir

    assert PRIVATE.is_relative_to(Path(tempfile.gettempdir()).resolve())
    assert not PRIVATE.resolve().is_relative_to(ROOT)
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is not None:
        assert PRIVATE.name.startswith(f"inspect-cite-tests-{worker}-")
    for name, path in PRIVATE_ENV.items():
        assert os.environ[name] == str(path), name
    assert cache_dir().is_relative_to(PRIVATE)
    # huggingface_hub reads its cache folder when imported: it was imported after the setting.
    assert Path(constants.HF_HUB_CACHE).is_relative_to(PRIVATE)
    settings = {n for n in os.environ if n.startswith("INSPECT_CITE_")}
    assert not settings - KEPT_SETTINGS - set(PRIVATE_ENV)


def test_an_eval_without_a_log_dir_writes_outside_the_checkout():
    model, _ = scripted_model(["Hi"])
    [log] = eval(Task(dataset=[Sample(input="Hi", target="Hi")]), model=model, display="none")
    assert log.status == "success", log.error
    location = Path(log.location).resolve()
    assert location.is_relative_to(PRIVATE / "logs") and not location.is_relative_to(ROOT)
