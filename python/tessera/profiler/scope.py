"""Scopes: named regions of a program, under which its launches are
recorded. Outside a session they cost a check and record nothing.

    with proton.scope("attention", {"bytes": 4096}):
        kernel[grid](...)

    @proton.scope("step")
    def step(): ...

    proton.enter_scope("loss")
    ...
    proton.exit_scope()

Metrics given to a scope are added to its frame each time it is entered
(or, given to exit_scope, left) while a session is active.
"""

from __future__ import annotations

import functools

from . import _context
from . import session as _session


def _enter(name, metrics):
    if not _session.profiling():
        return None
    entry = _context.push(str(name))
    if metrics:
        _session._record_scope_metrics(metrics)
    _session.scope_changed()
    return entry


def _exit(entry):
    if entry is not None:
        _context.remove(entry)
        _session.scope_changed()


class scope:
    """A scope, as a context manager or a decorator; `metrics` (a dict of
    numbers) are added to it each time it is entered."""

    def __init__(self, name, metrics=None):
        self.name = name
        self.metrics = metrics
        self._entries = []  # the open uses of this object, innermost last

    def __enter__(self):
        self._entries.append(_enter(self.name, self.metrics))
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _exit(self._entries.pop())

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            entry = _enter(self.name, self.metrics)
            try:
                return func(*args, **kwargs)
            finally:
                _exit(entry)
        return wrapper


def enter_scope(name, metrics=None, *, triton_op=False):
    """Opens a scope until exit_scope; returns its id (-1 outside a
    session). `triton_op` is accepted for Proton's launch hooks and changes
    nothing."""
    entry = _enter(name, metrics)
    return -1 if entry is None else entry.id


def exit_scope(name=None, metrics=None, *, triton_op=False):
    """Closes the innermost scope opened (by enter_scope or a `scope`),
    which must be `name` where given, after adding `metrics` to it; returns
    its id (-1 outside a session)."""
    if not _session.profiling():
        return -1
    entry = _context.top()
    if entry is None:
        raise ValueError("exit_scope: no scope is open")
    if name is not None and str(name) != entry.name:
        raise ValueError(f"exit_scope: the innermost open scope is '{entry.name}', not "
                         f"'{name}'")
    if metrics:
        _session._record_scope_metrics(metrics)
    _exit(entry)
    return entry.id
