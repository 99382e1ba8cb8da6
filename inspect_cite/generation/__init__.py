"""How a solver asks a model: system messages, thinking, raw prompts, constrained replies."""
