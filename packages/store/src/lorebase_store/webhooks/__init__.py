"""Webhooks: registration, sealed signing keys, deliveries made from the event table.

`sending` holds the contract between a delivery pass and the sender that makes each attempt;
`deliver_pending` is one pass (Scribe runs it periodically with its HTTP sender).
"""

from lorebase_store.webhooks.deliveries import (
    DeliveryInfo,
    DeliveryPage,
    list_deliveries,
    prune_deliveries,
    retry_delivery,
)
from lorebase_store.webhooks.delivering import deliver_pending
from lorebase_store.webhooks.passes import DeliveryReport, fan_out, signature
from lorebase_store.webhooks.registry import (
    NewWebhook,
    WebhookInfo,
    create_webhook,
    delete_webhook,
    get_webhook,
    list_webhooks,
    update_webhook,
)
from lorebase_store.webhooks.sealing import EncryptionKeyInvalid, Keyring
from lorebase_store.webhooks.sending import OutgoingDelivery, Sender, SendResult

__all__ = [
    "DeliveryInfo",
    "DeliveryPage",
    "DeliveryReport",
    "EncryptionKeyInvalid",
    "Keyring",
    "NewWebhook",
    "OutgoingDelivery",
    "SendResult",
    "Sender",
    "WebhookInfo",
    "create_webhook",
    "delete_webhook",
    "deliver_pending",
    "fan_out",
    "get_webhook",
    "list_deliveries",
    "list_webhooks",
    "prune_deliveries",
    "retry_delivery",
    "signature",
    "update_webhook",
]
