"""A TaskState as a scorer sees it after one generation, for calling scorers directly."""

from typing import Any

from inspect_ai.model import ChatMessageUser, ModelName, ModelOutput
from inspect_ai.solver import TaskState


def state(completion: str, metadata: dict[str, Any]) -> TaskState:
    return TaskState(
        model=ModelName("mockllm/model"),
        sample_id="s1",
        epoch=1,
        input="q",
        messages=[ChatMessageUser(content="q")],
        output=ModelOutput.from_content(model="mockllm/model", content=completion),
        metadata=metadata,
    )
