"""The agent trace in Keeper (docs/trace.md): deciding, capturing and recording steps."""

from lorebase_keeper.trace.context import (
    CacheStatus,
    StepContext,
    begin_step,
    current_step,
    end_step,
)

__all__ = ["CacheStatus", "StepContext", "begin_step", "current_step", "end_step"]
