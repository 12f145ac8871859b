"""Webhooks: registration, sealed signing keys, deliveries made from the event table.

`sending` holds the contract between a delivery pass and the sender that makes each attempt.
"""

from lorebase_store.webhooks.sending import OutgoingDelivery, Sender, SendResult

__all__ = ["OutgoingDelivery", "SendResult", "Sender"]
