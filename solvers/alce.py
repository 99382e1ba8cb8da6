"""ALCE generation: the paper's VANILLA baseline."""

from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.cli_values import accept_cli_values
from inspect_cite.prompts import ALCE_SYSTEM_MESSAGE, add_system_message
from solvers.thinking import thinking_generate


@solver
@accept_cli_values("-S")
def alce_vanilla(
    system_message: str | None = ALCE_SYSTEM_MESSAGE, thinking: bool = False
) -> Solver:
    """VANILLA: answer the ALCE prompt (demonstrations, documents, question) in one generation.

    The ALCE tasks put the full ALCE prompt in the sample input. As ALCE's run.py does for chat
    models, the prompt is sent as the user message after a fixed system message.

    Args:
        system_message: The system message; ``None`` sends the prompt alone.
        thinking: Generate with the chat template's thinking on (see
            ``inspect_cite.thinking``; off by default).

    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        generate = thinking_generate(state, generate, thinking)
        add_system_message(state.messages, system_message)
        return await generate(state)

    return solve
