"""cp.async: copies from global to shared memory that run while the
program goes on, in groups a wait counts."""

from tessera.language.core import CompilationError, _unwrap
from tessera.language.standard import _call, _const_int, _t

__all__ = ["async_copy_global_to_shared", "commit_group", "wait_group"]


def async_copy_global_to_shared(smem, pointer, mask=None, cache_modifier="",
                                eviction_policy="", volatile=False):
    """Starts copying what `pointer` points to into `smem` (of its shape);
    where `mask` is false the element is zero."""
    if _unwrap(volatile):
        raise CompilationError("async_copy_global_to_shared: volatile copies are not supported")
    mask = _unwrap(mask)
    _call("async_copy_global_to_local", smem.handle, _t(pointer).handle,
          _t(mask).handle if mask is not None else None, _unwrap(cache_modifier) or "",
          _unwrap(eviction_policy) or "")


def commit_group():
    """Closes the group of copies started since the last commit."""
    _call("async_commit_group")


def wait_group(num_outstanding=0):
    """Waits until at most `num_outstanding` committed groups are in flight;
    their copies are then visible to the whole program."""
    _call("async_wait", _const_int(num_outstanding, "wait_group's num_outstanding"))
