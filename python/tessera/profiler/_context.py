"""Where a launch happens, as a profile names it: the scopes the program has
entered (the "shadow" context), and with the "python" context also the
Python functions on the call stack, each scope placed after the function
that entered it.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading

# Frames of Tessera's own code (the launch path, the profiler) name nothing.
_PACKAGE = os.path.dirname(os.path.dirname(__file__)) + os.sep

CONTEXTS = ("shadow", "python")

_ids = itertools.count()
_local = threading.local()


class Entry:
    """An open scope: its name, its id (enter_scope's result) and the
    innermost frame outside Tessera when it was entered."""

    __slots__ = ("name", "id", "frame")

    def __init__(self, name, frame):
        self.name, self.id, self.frame = name, next(_ids), frame


def _stack():
    """This thread's open scopes, outermost first."""
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _user_frame():
    """The innermost frame of code outside Tessera."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    return frame


def push(name):
    """Opens a scope on this thread; returns its Entry."""
    entry = Entry(name, _user_frame())
    _stack().append(entry)
    return entry


def top():
    """The innermost open scope of this thread, or None."""
    stack = _stack()
    return stack[-1] if stack else None


def remove(entry):
    """Closes `entry` (and nothing else, if an inner scope was left open)."""
    stack = _stack()
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is entry:
            del stack[i]
            return


def frame_name(frame):
    """The name of a Python frame: "file:function". Proton's also has the
    line ("file:line@function"), by which a function that enters a scope
    and launches in it would appear once per line."""
    code = frame.f_code
    return f"{code.co_filename}:{code.co_name}"


def path(context):
    """The names from the root to here in `context` ("shadow": the open
    scopes; "python": the functions outside Tessera on the call stack too,
    outermost first), as a tuple."""
    stack = _stack()
    if context == "shadow":
        return tuple(entry.name for entry in stack)
    frames = []
    frame = _user_frame()
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_PACKAGE):
            frames.append(frame)
        frame = frame.f_back
    frames.reverse()
    position = {id(f): i for i, f in enumerate(frames)}
    # Each scope goes after the frame it was entered in; one entered in a
    # frame no longer on the stack (left open by mistake) goes last.
    after = {}
    for entry in stack:
        after.setdefault(position.get(id(entry.frame), len(frames)), []).append(entry.name)
    names = []
    for i, f in enumerate(frames):
        names.append(frame_name(f))
        names += after.get(i, ())
    names += after.get(len(frames), ())
    return tuple(names)
