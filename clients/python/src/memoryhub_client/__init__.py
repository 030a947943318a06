"""memoryhub's Python client: ``MemoryHub`` (sync) and ``AsyncMemoryHub`` (async).

Framework adapters are extras: ``memoryhub_client.langgraph`` (``[langgraph]``) and
``memoryhub_client.openai_agents`` (``[openai-agents]``).
"""

from memoryhub_client._calls import MAX_BATCH, Retry
from memoryhub_client.async_client import AsyncMemoryHub
from memoryhub_client.client import MemoryHub
from memoryhub_client.errors import (
    AuthenticationError,
    Conflict,
    InvalidRequest,
    MemoryHubError,
    NotFound,
    PayloadTooLarge,
    PermissionDenied,
    RateLimited,
    ServerError,
    TransportError,
)

__version__ = "0.1.0"

__all__ = [
    "MAX_BATCH",
    "AsyncMemoryHub",
    "AuthenticationError",
    "Conflict",
    "InvalidRequest",
    "MemoryHub",
    "MemoryHubError",
    "NotFound",
    "PayloadTooLarge",
    "PermissionDenied",
    "RateLimited",
    "Retry",
    "ServerError",
    "TransportError",
    "__version__",
]
