"""Lorebase inference: OpenAI-compatible chat with structured output (docs/inference.md).

`endpoint_for(settings.inference.llm, task)` resolves one endpoint (a task's overrides, its
secrets); `ChatModel(endpoint).structured(messages, schema, name=...)` answers a JSON object
valid against the schema. `lorebase_inference.testing` holds the scripted model server of tests.
"""

from lorebase_inference.chat import ChatModel, Mode, StructuredAnswer, Usage
from lorebase_inference.endpoint import ChatEndpoint, endpoint_for

__all__ = ["ChatEndpoint", "ChatModel", "Mode", "StructuredAnswer", "Usage", "endpoint_for"]
