"""The instrumentation backend's modes, with the names of Proton's
(`triton.profiler.mode`):

    proton.start("name", backend="instrumentation", mode=proton.mode.Default())

Each warp's first lane records the time it enters and leaves each scope into
a circular buffer of its own in global memory; `buffer_size` is that
buffer's bytes (16 a record, a power of two of records; 0 for 256 records).
The other fields take the values Tessera implements.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import _instrumentation

RECORD_BYTES = 16


@dataclass(frozen=True)
class Default:
    metric_type: str = "cycle"
    sampling_strategy: str = "none"
    sampling_options: str = ""
    granularity: str = "warp"
    buffer_strategy: str = "circular"
    buffer_type: str = "global"
    buffer_size: int = 0
    optimizations: list = field(default_factory=list)

    def __post_init__(self):
        for name, allowed in (("metric_type", ("cycle",)), ("sampling_strategy", ("none",)),
                              ("granularity", ("warp",)), ("buffer_strategy", ("circular",)),
                              ("buffer_type", ("global", "shared"))):
            if getattr(self, name) not in allowed:
                raise ValueError(f"mode {type(self).__name__}: {name} must be "
                                 f"{' or '.join(map(repr, allowed))}, got {getattr(self, name)!r}")
        records = self.buffer_size // RECORD_BYTES
        if self.buffer_size < 0 or (self.buffer_size and (
                self.buffer_size % RECORD_BYTES or records & (records - 1))):
            raise ValueError(f"mode {type(self).__name__}: buffer_size must be 0 or a power of "
                             f"two of {RECORD_BYTES}-byte records, got {self.buffer_size}")

    @property
    def slots(self):
        """The records each warp keeps."""
        return self.buffer_size // RECORD_BYTES or _instrumentation.DEFAULT_SLOTS
