"""Sealed signing keys: the SHA-256 digest of a webhook's secret, encrypted at rest.

The digest alone signs deliveries, so it is stored sealed with AES-256-GCM (a random 96-bit nonce,
the webhook id as associated data) under a key derived from webhooks.encryption_key. The stored
form names the key that sealed it by a short fingerprint, so a value moved to
webhooks.previous_encryption_keys still opens it, and `reseal` moves it to the current key:

    sealed:v1:<fingerprint>:<base64url(nonce + ciphertext)>
    unsealed:<hex digest>          (only with webhooks.allow_unsealed_keys)
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from lorebase_core.errors import EncryptionKeyRequired
from lorebase_platform.secrets import resolve_secret
from lorebase_platform.settings import WebhookSettings

MIN_KEY_CHARS = 32
SEALED = "sealed:v1:"
UNSEALED = "unsealed:"
_DERIVATION = b"lorebase webhook signing keys v1\x00"


class KeyUnavailable(Exception):
    """A signing key sealed under a value that is no longer configured: it cannot sign."""


class EncryptionKeyInvalid(ValueError):
    """webhooks.encryption_key or previous_encryption_keys names a value that cannot be used."""


def _derive(value: str) -> bytes:
    return hashlib.sha256(_DERIVATION + value.encode()).digest()


def _fingerprint(key: bytes) -> str:
    return hashlib.sha256(b"fingerprint\x00" + key).hexdigest()[:12]


def _resolved(reference: str, setting: str) -> bytes:
    value = resolve_secret(reference)
    if len(value) < MIN_KEY_CHARS:
        raise EncryptionKeyInvalid(
            f"{setting} names a value of {len(value)} characters; it needs at least "
            f"{MIN_KEY_CHARS} (for example `openssl rand -hex 32`)"
        )
    return _derive(value)


@dataclass(frozen=True)
class Keyring:
    """The current sealing key (if any), the previous ones by fingerprint, and the policy."""

    current: bytes | None = None
    previous: dict[str, bytes] = field(default_factory=dict)
    allow_unsealed: bool = False

    @classmethod
    def from_settings(cls, settings: WebhookSettings) -> Keyring:
        """The keys the settings name (secret:// references resolved); a short one is refused."""
        current = (
            _resolved(settings.encryption_key, "webhooks.encryption_key")
            if settings.encryption_key
            else None
        )
        previous: dict[str, bytes] = {}
        for index, reference in enumerate(settings.previous_encryption_keys):
            key = _resolved(reference, f"webhooks.previous_encryption_keys[{index}]")
            previous[_fingerprint(key)] = key
        return cls(current, previous, settings.allow_unsealed_keys)

    @property
    def fingerprint(self) -> str | None:
        """The fingerprint of the current key."""
        return _fingerprint(self.current) if self.current else None

    def seal(self, webhook_id: str, digest: bytes) -> str:
        """The stored form of a digest: sealed under the current key, else unsealed if allowed."""
        if self.current is None:
            if not self.allow_unsealed:
                raise EncryptionKeyRequired(
                    "Webhooks need webhooks.encryption_key (a secret:// reference to at least "
                    f"{MIN_KEY_CHARS} characters) to keep their signing keys encrypted; set it, "
                    "or webhooks.allow_unsealed_keys: true for local development only"
                )
            return UNSEALED + digest.hex()
        nonce = os.urandom(12)
        sealed = AESGCM(self.current).encrypt(nonce, digest, webhook_id.encode())
        encoded = base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("=")
        return f"{SEALED}{self.fingerprint}:{encoded}"

    def open(self, webhook_id: str, stored: str) -> bytes:
        """The digest a stored form holds; KeyUnavailable when its key is not configured."""
        if stored.startswith(UNSEALED):
            return bytes.fromhex(stored[len(UNSEALED) :])
        fingerprint, _, encoded = stored[len(SEALED) :].partition(":")
        key = self._key(fingerprint)
        if key is None:
            raise KeyUnavailable(
                f"the signing key was sealed under a value (fingerprint {fingerprint}) that is "
                "neither webhooks.encryption_key nor in webhooks.previous_encryption_keys; "
                "configure that value again"
            )
        data = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
        return AESGCM(key).decrypt(data[:12], data[12:], webhook_id.encode())

    def needs_reseal(self, stored: str) -> bool:
        """Whether `stored` is usable now but not sealed under the current key."""
        if self.current is None:
            return False
        if stored.startswith(UNSEALED):
            return True
        fingerprint = stored[len(SEALED) :].partition(":")[0]
        return fingerprint != self.fingerprint and fingerprint in self.previous

    def _key(self, fingerprint: str) -> bytes | None:
        if self.current is not None and fingerprint == self.fingerprint:
            return self.current
        return self.previous.get(fingerprint)
