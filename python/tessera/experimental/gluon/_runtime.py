"""@gluon.jit: a JITFunction whose tensors carry the layouts it gives them."""

from __future__ import annotations

import functools

from ...runtime.jit import JITFunction


class GluonJITFunction(JITFunction):
    explicit_layouts = True


def jit(fn=None, *, version=None, repr=None, launch_metadata=None, do_not_specialize=(),
        do_not_specialize_on_alignment=(), interpret=None, debug=None, noinline=False):
    """Makes a Gluon kernel (or a helper, when called from one) of `fn`;
    the options are @tessera.jit's."""
    def decorator(fn):
        return GluonJITFunction(fn, do_not_specialize=(*do_not_specialize,
                                                       *do_not_specialize_on_alignment),
                                interpret=interpret, debug=debug, noinline=noinline,
                                repr=repr, launch_metadata=launch_metadata)
    return decorator if fn is None else decorator(fn)


def constexpr_function(fn):
    """A Python function a kernel calls at compile time on constexpr values
    (layouts, shapes), its result a compile-time value."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from ...language.core import _unwrap
        return fn(*[_unwrap(a) for a in args], **{k: _unwrap(v) for k, v in kwargs.items()})
    # The code generator runs the language's own functions as they are.
    wrapper.__module__ = "tessera.experimental.gluon"
    return wrapper
