"""webhooks: registered receivers and how Scribe delivers to them (docs/feed.md)."""

from __future__ import annotations

from pydantic import Field

from lorebase_platform.settings.base import Section, count, flag, seconds, secret_reference


class WebhookSettings(Section):
    """webhooks: registered receivers and how Scribe delivers to them (docs/feed.md)."""

    encryption_key: str | None = secret_reference(
        "Key that seals the stored digests of webhook secrets (AES-256-GCM), as "
        "secret://env/NAME or secret://file//path, at least 32 characters, the same for Keeper "
        "and Scribe. Without it creating a webhook answers 409 encryption_key_required."
    )
    previous_encryption_keys: list[str] = Field(
        default_factory=list,
        description="Earlier values of encryption_key (secret:// references): keys sealed "
        "under them still sign, and each delivery pass re-seals up to `batch` of them.",
    )
    allow_unsealed_keys: bool = flag(
        False,
        "Store secret digests unsealed when no encryption_key is set (local development only).",
    )
    allowed_schemes: list[str] = Field(
        default_factory=lambda: ["https"], description="URL schemes a target may use."
    )
    allow_private_targets: bool = flag(
        False,
        "Allow targets that resolve to private, loopback or link-local addresses "
        "(local development and tests only).",
    )
    headers: dict[str, str] = Field(
        default_factory=dict,
        description="Extra headers sent with every delivery (values may be secret:// refs); "
        "they never replace the Lorebase-* headers.",
    )
    timeout_s: float = seconds(10.0, "One attempt, host lookup included, is cut off after this.")
    connect_timeout_s: float = seconds(5.0, "A connection to one address is given up after this.")
    max_attempts: int = count(8, "Attempts of one delivery before it is marked dead.")
    backoff_initial_s: float = seconds(10.0, "Wait before the second attempt.")
    backoff_multiplier: float = Field(
        default=2.0, ge=1, description="Each further wait is the last one times this."
    )
    backoff_max_s: float = seconds(3600.0, "Longest wait between attempts.")
    concurrency: int = count(8, "Deliveries a pass sends at the same time.", le=256)
    pass_timeout_s: float = seconds(
        60.0,
        "A pass starts no delivery after this long; the rest wait for the next pass "
        "without counting an attempt.",
    )
    batch: int = count(100, "Deliveries one pass takes, and keys one pass seals or re-seals.")
    retention_days: int = count(14, "Delivered and dead deliveries older than this are pruned.")
