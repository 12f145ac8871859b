"""Lorebase inference: OpenAI-compatible chat with structured output, and embeddings
(docs/inference.md).

`endpoint_for(settings.inference.llm, task)` resolves one endpoint (a task's overrides, its
secrets); `ChatModel(endpoint).structured(messages, schema, name=...)` answers a JSON object
valid against the schema; `ModeMemory` (`mode_memory_for(settings)`) remembers in a file which
structured-output mode an endpoint takes. `embedder_for(settings.inference.embeddings)` turns texts into
vectors, offline with the bundled all-MiniLM-L6-v2 or through an endpoint.
`lorebase_inference.testing` holds the scripted model server of tests.
"""

from lorebase_inference.chat import ChatModel, Mode, StructuredAnswer, Usage
from lorebase_inference.embeddings import (
    Embedder,
    EmbedMode,
    EndpointEmbedder,
    LocalEmbedder,
    bundled_model_dir,
    embedder_for,
)
from lorebase_inference.endpoint import ChatEndpoint, endpoint_for
from lorebase_inference.mode_memory import ModeMemory, RequestShape, clear_modes, mode_memory_for

__all__ = [
    "ChatEndpoint",
    "ChatModel",
    "EmbedMode",
    "Embedder",
    "EndpointEmbedder",
    "LocalEmbedder",
    "Mode",
    "ModeMemory",
    "RequestShape",
    "StructuredAnswer",
    "Usage",
    "bundled_model_dir",
    "clear_modes",
    "embedder_for",
    "endpoint_for",
    "mode_memory_for",
]
