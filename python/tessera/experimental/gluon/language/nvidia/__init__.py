"""NVIDIA's instructions at the explicit level, by architecture."""

from . import ampere

__all__ = ["ampere"]
