"""The shared batching queue with non-NLI items: texts to feature rows, as MAUVE and the encoder use it.

The NLI-specific cases (batching concurrent callers, deduplication, a failing model, a
cancelled leader) are in tests/nli/test_nli_backends.py.
"""

import time

import anyio
import numpy as np
import pytest

from inspect_cite.models.batching import BatchQueue


def featurize(calls: list[list[str]]):
    def fn(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        time.sleep(0.01)
        return np.array([[len(t), t.count("a")] for t in texts], dtype=float)

    return fn


async def test_large_submissions_are_split_and_array_rows_come_back_in_order():
    calls: list[list[str]] = []
    queue = BatchQueue(featurize(calls), max_batch=4)
    texts = [f"text {'a' * i}" for i in range(10)]
    rows = await queue.submit(texts)
    assert [len(c) for c in calls] == [4, 4, 2]
    assert [r.tolist() for r in rows] == [[len(t), t.count("a")] for t in texts]


async def test_concurrent_callers_share_batches():
    calls: list[list[str]] = []
    queue = BatchQueue(featurize(calls), max_batch=8)
    async with anyio.create_task_group() as tg:
        for i in range(12):
            tg.start_soon(queue.submit, [f"p{i}", f"q{i}"])
    assert sum(len(c) for c in calls) == 24 and len(calls) < 12
    assert max(len(c) for c in calls) <= 8


def test_a_cancelled_caller_with_several_chunks_does_not_strand_others():
    calls: list[list[str]] = []
    queue = BatchQueue(featurize(calls), max_batch=2, max_wait=0.02)
    got: list = []

    async def main() -> None:
        async def impatient() -> None:
            with anyio.move_on_after(0.005):
                await queue.submit(["a1", "a2", "a3", "a4", "a5"])  # three chunks

        async def patient() -> None:
            await anyio.sleep(0.001)
            got.extend(await queue.submit(["b"]))

        with anyio.fail_after(5):  # a stranded caller would wait forever
            async with anyio.create_task_group() as tg:
                tg.start_soon(impatient)
                tg.start_soon(patient)

    anyio.run(main)
    assert [r.tolist() for r in got] == [[1.0, 0.0]]
    # The cancelled caller's chunks were withdrawn, not computed for nobody.
    assert not any(t.startswith("a") for c in calls for t in c)


def test_bad_batch_size_is_refused():
    with pytest.raises(ValueError, match="max_batch must be >= 1"):
        BatchQueue(lambda items: items, max_batch=0)
