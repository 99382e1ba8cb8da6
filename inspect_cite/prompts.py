"""Prompt text shared by solvers (kept here so tasks, solvers and scorers agree on it)."""

# ALCE's run.py sends this system message to chat models.
ALCE_SYSTEM_MESSAGE = (
    "You are a helpful assistant that answers the following questions with proper citations."
)
