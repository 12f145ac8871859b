"""Lorebase inference: OpenAI-compatible chat with structured output (docs/inference.md)."""

__all__: list[str] = []
