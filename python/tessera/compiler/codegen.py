"""From the Python source of a @jit function to `tile` IR.

The generator walks the function's AST. Python values (ints, floats,
constexprs, dtypes, modules) are evaluated at compile time; tensors become IR
through the C++ builder. Calls of other @jit functions are inlined. Every
error names the kernel's file, line and column.
"""

from __future__ import annotations

import ast
import builtins
import operator
import sys
import warnings

from .. import language as tl
from ..language import core, descriptor
from ..language.core import CompilationError, _unwrap, constexpr, tensor

_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


class _Return(Exception):
    """Carries a helper's return value to its call."""

    def __init__(self, value):
        self.value = value


def _is_tensor(value):
    return isinstance(value, tensor)


def _returns(stmt):
    """Whether `stmt` is or holds a `return` (in ifs, not in loops)."""
    if isinstance(stmt, ast.Return):
        return True
    if isinstance(stmt, ast.If):
        return any(map(_returns, stmt.body)) or any(map(_returns, stmt.orelse))
    return False


def _until_return(statements, rest=()):
    """`statements` then `rest`, where a return ends the path it is on: the
    statements after an `if` that returns move into both its branches, so
    that they run only where it fell through (an if on a runtime condition
    can build that). A bare return at the end of a branch is dropped."""
    for i, stmt in enumerate(statements):
        if isinstance(stmt, ast.Return):
            return list(statements[:i]) if stmt.value is None else list(statements[:i + 1])
        if isinstance(stmt, ast.If) and _returns(stmt):
            after = list(statements[i + 1:]) + list(rest)
            branch = ast.If(test=stmt.test, body=_until_return(stmt.body, after) or [ast.Pass()],
                            orelse=_until_return(stmt.orelse, after))
            ast.copy_location(branch, stmt)
            return list(statements[:i]) + [branch]
    return list(statements) + list(rest)


def _flatten(value):
    """The tensors a value carried through a loop or branch is made of:
    itself, or an aggregate's (a block pointer's) parts."""
    return value._flatten() if hasattr(value, "_flatten") else [value]


def _rebuild(template, handles):
    """A value like `template` from the handles of its parts."""
    if hasattr(template, "_flatten"):
        return template._unflatten([tensor(h) for h in handles])
    return tensor(handles[0])


def _rebuild_all(names, templates, handles):
    """`names` set from `handles`, each taking as many as its template has
    parts."""
    values, i = {}, 0
    for n in names:
        count = len(_flatten(templates[n]))
        values[n] = _rebuild(templates[n], handles[i:i + count])
        i += count
    return values


# The name a function's result takes inside an if whose branches all return.
_RESULT = "@result"


def _always_returns(stmts):
    """Whether every path through `stmts` ends in a return."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return isinstance(last, ast.Return)


def _returns_to_result(stmts):
    """`stmts` (which always return) with their returns made assignments to
    _RESULT."""
    *first, last = stmts
    if isinstance(last, ast.If):
        new = ast.If(test=last.test, body=_returns_to_result(last.body),
                     orelse=_returns_to_result(last.orelse))
    else:
        new = ast.Assign(targets=[ast.Name(_RESULT, ast.Store())],
                         value=last.value or ast.Constant(None))
    return first + [ast.copy_location(new, last)]


def _assigned_names(nodes):
    names = set()
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                names.add(sub.id)
    return names


def _drop_region_locals(scope, before, keep):
    """After a loop or a branch: tensors first set inside it live in its
    region only, so names not in `keep` go back to what they were before."""
    for name in list(scope):
        if name in keep or not (_is_tensor(scope[name]) or hasattr(scope[name], "_flatten")):
            continue
        if name in before:
            scope[name] = before[name]
        else:
            del scope[name]


# Python frames an inlined call leaves free below the recursion limit, for
# its body (each level of inlining takes 10 to 20).
_FRAMES_KEPT_FREE = 200


def _stack_depth():
    frame, depth = sys._getframe(1), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def _call_identity(fn, arguments):
    """What decides how a call of `fn` inlines: its compile-time arguments
    and the types of its tensors; None where an argument is another kind of
    object, which the call may change."""
    def identity(value):
        value = _unwrap(value)
        if _is_tensor(value):
            return ("tensor", value.dtype, tuple(_unwrap(d) for d in value.shape))
        if isinstance(value, (tuple, list)):
            parts = tuple(map(identity, value))
            return None if None in parts else (type(value), parts)
        if value is None or isinstance(value, (bool, int, float, str, core.dtype)):
            return (type(value), value)
        return None

    parts = tuple(identity(v) for v in arguments.values())
    return None if None in parts else (fn, parts)


class CodeGenerator(ast.NodeVisitor):
    def __init__(self, builder, filename):
        self.builder = builder
        self.filename = filename
        self.scope = {}
        # Per function being generated: its globals and source, for errors.
        self.function_stack = []
        # Depth of dynamic control flow (early returns cannot cross it).
        self.dynamic_depth = 0
        # The calls being inlined, outermost first (_call_identity).
        self.inlining = []
        # Inside tl.map_elementwise's function, which computes on whole
        # tensors: an if on a tensor condition takes both branches and
        # selects (if-conversion), and nothing may write memory.
        self.elementwise_depth = 0
        # @jit functions whose source the result depends on, and the
        # global values it read: the compiled kernel is stale if either
        # changes.
        self.dependencies = {}
        self.global_reads = {}
        # An instrumented kernel's records per warp (0: not instrumented),
        # its warps, record buffer and scope names, numbered in order.
        self.instrumentation = 0
        self.num_warps = 4
        self.profile_buffer = None
        self.profile_scopes = []

    # ------------------------------------------------------------------
    # Entry points
    # ------------------------------------------------------------------

    def generate_kernel(self, fn, arg_types, divisibility, constants):
        """Generates kernel `fn`: arguments in `arg_types` (name -> dtype
        name) are runtime values, those in `constants` compile-time."""
        tree, first_line = fn.parse()
        fdef = tree.body[0]
        self.function_stack.append(fn)
        self._set_location(fdef)
        runtime = [a for a in fn.arg_names if a in arg_types]
        # A tensor descriptor argument arrives as its base, shape and strides.
        described = {a: descriptor.parse_descriptor_type(arg_types[a]) for a in runtime}
        params, param_divisibility, counts = [], [], []
        for a in runtime:
            if described[a] is None:
                params.append(arg_types[a])
                param_divisibility.append(divisibility.get(a, 0))
                counts.append(1)
                continue
            element, block, _ = described[a]
            rank = len(block)
            params += [f"pointer<{element}>"] + ["int32"] * rank + ["int64"] * (rank - 1)
            param_divisibility += list(divisibility.get(a, ())) or [0] * (2 * rank)
            counts.append(2 * rank)
        # Instrumented (tessera.profiler.language), the kernel takes its
        # record buffer last.
        if self.instrumentation:
            params.append("pointer<int64>")
            param_divisibility.append(16)
        handles = self._guard(fdef, lambda: self.builder.begin_function(
            fn.__name__, params, param_divisibility, True))
        if self.instrumentation:
            self.profile_buffer, handles = handles[-1], handles[:-1]
        self.scope = {a: constexpr(constants[a]) for a in constants}
        for a, count in zip(runtime, counts):
            own, handles = handles[:count], handles[count:]
            if described[a] is None:
                self.scope[a] = tensor(own[0])
            else:
                self.scope[a] = self._guard(fdef, lambda: descriptor.descriptor_argument(
                    own, *described[a]))
        try:
            self._visit_body(fdef.body)
        except _Return as r:
            if r.value is not None:
                raise self._error(fdef, "a kernel cannot return a value") from None
        self._guard(fdef, lambda: self.builder.end_function([]))
        self.function_stack.pop()

    def profile_scope(self, name, end):
        """Records entering (leaving, with `end`) scope `name` in each warp,
        where the kernel is instrumented; nothing otherwise."""
        if not self.instrumentation:
            return
        if name not in self.profile_scopes:
            self.profile_scopes.append(name)
        self.builder.scope_record(self.profile_buffer, self.profile_scopes.index(name),
                                  self.instrumentation, self.num_warps, end)

    def call_function(self, fn, args, kwargs=None):
        """Calls `fn` from the kernel: a @jit function is inlined, anything
        else runs in Python at compile time."""
        from ..runtime.jit import JITFunction
        kwargs = kwargs or {}
        if not isinstance(fn, JITFunction):
            return fn(*args, **kwargs)
        self.dependencies[fn] = fn.cache_key
        tree, _ = fn.parse()
        fdef = tree.body[0]
        try:
            bound = fn.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise CompilationError(f"in call of {fn.__name__}: {e}") from None
        bound.apply_defaults()
        # Calls are inlined: a recursive one must end at compile time, on a
        # compile-time argument that changes on the way down.
        identity = _call_identity(fn, bound.arguments)
        if identity is not None and identity in self.inlining:
            raise CompilationError(f"{fn.__name__} calls itself with the same compile-time "
                                   "arguments: recursion is not supported (helpers are "
                                   "inlined, so a recursive call must change a constexpr "
                                   "argument and end at compile time)")
        if _stack_depth() > sys.getrecursionlimit() - _FRAMES_KEPT_FREE:
            raise CompilationError(f"calls of {fn.__name__} nest {len(self.function_stack)} "
                                   "deep: recursion that does not end within a few levels at "
                                   "compile time is not supported")
        saved_scope, saved_depth = self.scope, self.dynamic_depth
        self.scope = {}
        for name, value in bound.arguments.items():
            if name in fn.constexpr_names and not isinstance(value, constexpr):
                value = constexpr(value)
            self.scope[name] = value
        self.function_stack.append(fn)
        self.inlining.append(identity)
        self.dynamic_depth = 0
        result = None
        try:
            self._visit_body(fdef.body)
        except _Return as r:
            result = r.value
        finally:
            self.function_stack.pop()
            self.inlining.pop()
            self.scope, self.dynamic_depth = saved_scope, saved_depth
        return result

    # ------------------------------------------------------------------
    # Locations and errors
    # ------------------------------------------------------------------

    def _fn(self):
        return self.function_stack[-1]

    def _line(self, node):
        return self._fn().first_line + node.lineno - 1

    def _set_location(self, node):
        if hasattr(node, "lineno"):
            self.builder.set_location(self._fn().filename, self._line(node),
                                      node.col_offset + self._fn().indent + 1)

    def _error(self, node, message):
        fn = self._fn()
        line = self._line(node)
        return CompilationError(message, filename=fn.filename, lineno=line,
                                col=node.col_offset + fn.indent, source_line=fn.source_line(line))

    def _guard(self, node, thunk):
        """Runs `thunk`, turning errors into CompilationErrors at `node`; a
        Python error a language function raised (a ValueError for a bad
        axis, say) is the CompilationError's `__cause__`, as in Triton."""
        try:
            return thunk()
        except (_Return, CompilationError) as e:
            if isinstance(e, CompilationError) and e.filename is None:
                raise self._error(node, e.message) from e.__cause__
            raise
        except Exception as e:
            name = type(e).__name__
            if name == "FrontendError":
                raise self._error(node, str(e)) from None
            raise self._error(node, f"{name}: {e}") from e

    # ------------------------------------------------------------------
    # Statements
    # ------------------------------------------------------------------

    def _visit_body(self, statements):
        if any(isinstance(s, ast.If) and _returns(s) for s in statements):
            statements = _until_return(statements)
        for stmt in statements:
            self._set_location(stmt)
            self.visit(stmt)

    def visit(self, node):
        self._set_location(node)
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            raise self._error(node, f"unsupported Python construct: {type(node).__name__}")
        return self._guard(node, lambda: method(node))

    def visit_Expr(self, node):
        self.visit(node.value)

    def visit_Pass(self, node):
        pass

    def _assign(self, target, value, node):
        if isinstance(target, ast.Name):
            self.scope[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            value = _unwrap(value)
            if not isinstance(value, (tuple, list)):
                raise self._error(node, "cannot unpack a non-tuple value")
            if len(value) != len(target.elts):
                raise self._error(node, f"cannot unpack {len(value)} values into "
                                        f"{len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self._assign(t, v, node)
        else:
            raise self._error(node, "only names and tuples of names can be assigned")

    def visit_Assign(self, node):
        value = self.visit(node.value)
        for target in node.targets:
            self._assign(target, value, node)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            value = self.visit(node.value)
            annotation = self._eval_annotation(node.annotation)
            if annotation is constexpr and not isinstance(value, constexpr):
                value = constexpr(value)
            self._assign(node.target, value, node)

    def _eval_annotation(self, node):
        try:
            return self.visit(node)
        except CompilationError:
            return None

    def visit_AugAssign(self, node):
        target = ast.Name(id=node.target.id, ctx=ast.Load()) if isinstance(node.target, ast.Name) else None
        if target is None:
            raise self._error(node, "augmented assignment needs a name")
        ast.copy_location(target, node)
        current = self.visit(target)
        value = self._binop(node.op, current, self.visit(node.value), node)
        self.scope[node.target.id] = value

    def visit_Return(self, node):
        value = self.visit(node.value) if node.value is not None else None
        if self.dynamic_depth:
            raise self._error(node, "return inside a loop or an if on a runtime condition is "
                                    "not supported; assign the result and return at the end")
        raise _Return(value)

    def visit_Assert(self, node):
        test = self.visit(node.test)
        msg = _unwrap(self.visit(node.msg)) if node.msg is not None else ""
        if _is_tensor(test):
            tl.device_assert(test, str(msg))
        elif not _unwrap(test):
            raise self._error(node, f"assertion failed: {msg}")

    def _condition(self, node, cond):
        """`cond` as the condition of a runtime branch: a one-element tensor
        is its element (with Triton's warning), a larger one an error."""
        if _is_tensor(cond) and cond.shape and self.elementwise_depth:
            return cond
        if _is_tensor(cond) and cond.shape:
            if cond.numel.value != 1:
                raise self._error(node, "Boolean value of Tensor with more than one value is "
                                        "ambiguous")
            warnings.warn_explicit('If conditional called with multidimensional Tensor instead '
                                   'of scalar; please use "if (...).item()" instead',
                                   UserWarning, self._fn().filename, self._line(node))
            cond = cond.item()
        return cond

    def visit_If(self, node):
        cond = self._condition(node.test, self.visit(node.test))
        if not _is_tensor(cond):
            self._visit_body(node.body if _unwrap(cond) else node.orelse)
            return
        if _always_returns(node.body) and _always_returns(node.orelse):
            # Every path returns (`if c: return a` / `else: return b`): the
            # value returned is the if's result.
            branches = ast.fix_missing_locations(ast.copy_location(ast.If(
                test=node.test, body=_returns_to_result(node.body),
                orelse=_returns_to_result(node.orelse)), node))
            self._runtime_if(cond, branches)
            raise _Return(self.scope[_RESULT])
        self._runtime_if(cond, node)

    def _runtime_if(self, cond, node):
        """An if on the runtime condition `cond`: names set in a branch and
        alive afterwards are its results."""
        if cond.shape:
            return self._converted_if(cond, node)
        assigned = _assigned_names(node.body) | _assigned_names(node.orelse)
        before = dict(self.scope)
        for name in assigned & before.keys():
            if not _is_tensor(before[name]) and isinstance(_unwrap(before[name]), (int, float)):
                before[name] = core.to_tensor(before[name])
        self.builder.begin_if(cond.handle)
        self.dynamic_depth += 1
        self.scope = dict(before)
        self._visit_body(node.body)
        then_scope = self.scope
        self.builder.begin_else()
        self.scope = dict(before)
        self._visit_body(node.orelse)
        else_scope = self.scope
        self.dynamic_depth -= 1
        names = sorted(n for n in assigned if n in then_scope and n in else_scope)
        then_vals, else_vals, carried = [], [], []
        for n in names:
            t, e = then_scope[n], else_scope[n]
            if t is e:
                continue
            parts_t, parts_e = _flatten(t), _flatten(e)
            if not (all(map(_is_tensor, parts_t)) and all(map(_is_tensor, parts_e))
                    and len(parts_t) == len(parts_e) and type(t) is type(e)):
                raise self._error(node, f"'{n}' is set to a compile-time value in an if on a "
                                        f"runtime condition; make it a tensor in both branches")
            then_vals += [v.handle for v in parts_t]
            else_vals += [v.handle for v in parts_e]
            carried.append(n)
        results = self.builder.end_if(then_vals, else_vals)
        # Compile-time values set the same way in both branches stay.
        self.scope = dict(before)
        for n in names:
            if n not in carried:
                self.scope[n] = then_scope[n]
        _drop_region_locals(self.scope, before, set())
        self.scope.update(_rebuild_all(carried, then_scope, results))

    def _converted_if(self, cond, node):
        """An if on an elementwise condition (in tl.map_elementwise's
        function): both branches run, and each name either sets becomes
        the select of the two by `cond`."""
        before = dict(self.scope)
        branches = []
        self.dynamic_depth += 1
        for body in (node.body, node.orelse):
            self.scope = dict(before)
            self._visit_body(body)
            branches.append(self.scope)
        self.dynamic_depth -= 1
        then_scope, else_scope = branches

        def select(t, e):
            if t is e:
                return t
            if isinstance(t, tuple) and isinstance(e, tuple) and len(t) == len(e):
                return tuple(map(select, t, e))
            if hasattr(t, "_flatten") or hasattr(e, "_flatten") or isinstance(t, tuple) \
                    or isinstance(e, tuple):
                raise self._error(node, "the branches of an if in map_elementwise's function "
                                        "must set tensors or tuples of them alike")
            return tl.where(cond, t, e)

        self.scope = dict(before)
        for name in _assigned_names(node.body) | _assigned_names(node.orelse):
            if name in then_scope and name in else_scope:
                self.scope[name] = select(then_scope[name], else_scope[name])

    def _carried_handles(self, names, node):
        """The values of loop-carried names, as tensors (numbers become
        constants; other compile-time values cannot change in a loop)."""
        handles = []
        for n in names:
            value = self.scope[n]
            if hasattr(value, "_flatten"):
                handles += [part.handle for part in value._flatten()]
                continue
            if not _is_tensor(value):
                if not isinstance(_unwrap(value), (int, float)):
                    raise self._error(node, f"'{n}' holds a compile-time value and is changed in "
                                            f"a loop; make it a tensor first")
                value = core.to_tensor(value)
            handles.append(value.handle)
        return handles

    def _carried_templates(self, names):
        """What each loop-carried name holds on entry, as _carried_handles
        passes it (numbers become tensors)."""
        return {n: self.scope[n] if hasattr(self.scope[n], "_flatten") else None
                for n in names}

    def visit_For(self, node):
        iterator = node.iter
        if node.orelse:
            raise self._error(node, "for ... else is not supported")
        if not isinstance(iterator, ast.Call):
            raise self._error(node, "a kernel loops over range(...), tl.range(...) or "
                                    "tl.static_range(...)")
        fn = self.visit(iterator.func)
        args = [self.visit(a) for a in iterator.args]
        kwargs = {k.arg: self.visit(k.value) for k in iterator.keywords}
        if fn is builtins.range:
            fn = tl.range
        if fn not in (tl.range, tl.static_range):
            raise self._error(node, "a kernel loops over range(...), tl.range(...) or "
                                    "tl.static_range(...)")
        spec = fn(*args, **kwargs)
        if not isinstance(node.target, ast.Name):
            raise self._error(node, "the loop variable must be a name")
        if fn is tl.static_range:
            bounds = [_unwrap(spec.start), _unwrap(spec.end), _unwrap(spec.step)]
            if any(_is_tensor(b) for b in bounds):
                raise self._error(node, "static_range needs bounds known at compile time")
            for i in builtins.range(*bounds):
                self.scope[node.target.id] = constexpr(i)
                self._visit_body(node.body)
            return
        start, end, step_value = spec.start, spec.end, _unwrap(spec.step)
        descending = not _is_tensor(step_value) and step_value < 0
        if not _is_tensor(step_value) and step_value == 0:
            raise self._error(node, "range() step must not be zero")
        if descending:
            # i = start + k * step for k in [0, ceil((start - end) / -step)).
            end = (start - end - step_value - 1) // -step_value
            start, step_value = 0, 1
        lower, upper, step = (core.to_tensor(b) for b in (start, end, step_value))
        before = dict(self.scope)
        carried = sorted(n for n in _assigned_names(node.body)
                         if n in self.scope and n != node.target.id)
        inits = self._carried_handles(carried, node)
        templates = self._carried_templates(carried)
        num_stages = _unwrap(spec.num_stages)
        if num_stages is not None and (not isinstance(num_stages, int) or num_stages < 1):
            raise self._error(node, f"num_stages must be a positive integer, got {num_stages!r}")
        flatten, specialize = _unwrap(spec.flatten), _unwrap(spec.warp_specialize)
        for name, value in (("flatten", flatten), ("warp_specialize", specialize)):
            if _is_tensor(value):
                raise self._error(node, f"{name} must be known at compile time")
        args = self.builder.begin_for(lower.handle, upper.handle, step.handle, inits,
                                      num_stages or 0, bool(flatten), bool(specialize))
        index = tensor(args[0])
        if descending:
            index = spec.start + index * _unwrap(spec.step)
        self.scope[node.target.id] = index
        self.scope.update(_rebuild_all(carried, templates, args[1:]))
        self.dynamic_depth += 1
        self._visit_body(node.body)
        self.dynamic_depth -= 1
        results = self.builder.end_for(self._carried_handles(carried, node))
        _drop_region_locals(self.scope, before, set())
        self.scope.update(_rebuild_all(carried, templates, results))

    def visit_While(self, node):
        if node.orelse:
            raise self._error(node, "while ... else is not supported")
        carried = sorted(n for n in _assigned_names(node.body) if n in self.scope)
        before = dict(self.scope)
        templates = self._carried_templates(carried)
        entry = self.builder.begin_while(self._carried_handles(carried, node))
        self.scope.update(_rebuild_all(carried, templates, entry))
        cond = self._condition(node.test, self.visit(node.test))
        if _is_tensor(cond) and cond.shape:
            raise self._error(node.test, "a while loop on an elementwise condition is not "
                                         "supported in map_elementwise's function")
        if not _is_tensor(cond):
            cond = core.to_tensor(bool(_unwrap(cond)))
        after = self.builder.begin_while_body(cond.handle, self._carried_handles(carried, node))
        self.scope.update(_rebuild_all(carried, templates, after))
        self.dynamic_depth += 1
        self._visit_body(node.body)
        self.dynamic_depth -= 1
        results = self.builder.end_while(self._carried_handles(carried, node))
        _drop_region_locals(self.scope, before, set())
        self.scope.update(_rebuild_all(carried, templates, results))

    def visit_Break(self, node):
        raise self._error(node, "break is not supported in kernels")

    def visit_Continue(self, node):
        raise self._error(node, "continue is not supported in kernels")

    def visit_FunctionDef(self, node):
        raise self._error(node, "functions cannot be defined inside a kernel; use a @jit function")

    # ------------------------------------------------------------------
    # Expressions
    # ------------------------------------------------------------------

    def visit_Constant(self, node):
        return node.value

    def visit_Name(self, node):
        name = node.id
        if name in self.scope:
            return self.scope[name]
        fn = self._fn()
        try:
            value = fn.lookup(name)
        except KeyError:
            value = None
        else:
            if isinstance(_unwrap(value), (int, float, str, bool, type(None))):
                self.global_reads[(fn, name)] = repr(_unwrap(value))
            return value
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise self._error(node, f"name '{name}' is not defined")

    def visit_Attribute(self, node):
        value = self.visit(node.value)
        target = value.value if isinstance(value, constexpr) and not hasattr(value, node.attr) else value
        # A Python number used as a tensor (`acc = 0; acc.to(tl.int64)`,
        # `value = 1; value.dtype`) is the tensor Triton makes of it.
        if isinstance(target, (bool, int, float)) and not hasattr(target, node.attr):
            as_tensor = core.to_tensor(target)
            if hasattr(as_tensor, node.attr):
                target = as_tensor
        try:
            return getattr(target, node.attr)
        except AttributeError:
            raise self._error(node, f"'{type(target).__name__}' has no attribute '{node.attr}'") from None

    def visit_Tuple(self, node):
        return tuple(self.visit(e) for e in node.elts)

    def visit_List(self, node):
        return [self.visit(e) for e in node.elts]

    def visit_Dict(self, node):
        return {self.visit(k): self.visit(v) for k, v in zip(node.keys, node.values)}

    def visit_Slice(self, node):
        lower = self.visit(node.lower) if node.lower else None
        upper = self.visit(node.upper) if node.upper else None
        step = self.visit(node.step) if node.step else None
        return slice(_unwrap(lower), _unwrap(upper), _unwrap(step))

    def visit_Subscript(self, node):
        value = self.visit(node.value)
        index = self.visit(node.slice)
        if _is_tensor(value):
            return value[index]
        value = _unwrap(value)
        if isinstance(index, tuple):
            index = tuple(_unwrap(i) for i in index)
        return value[_unwrap(index)]

    def visit_JoinedStr(self, node):
        # An f-string is made at compile time: it formats compile-time
        # values only (Triton's rule); a tensor's value exists at run time.
        parts = []
        for v in node.values:
            if not isinstance(v, ast.FormattedValue):
                parts.append(str(_unwrap(self.visit(v))))
                continue
            value = self.visit(v.value)
            if _is_tensor(value) or hasattr(value, "_flatten"):
                raise self._error(node, f"a tensor in an f-string: '{ast.unparse(v.value)}' "
                                        "has a value only at run time; pass it to "
                                        "tl.device_print as an argument")
            value = _unwrap(value)
            if v.conversion != -1:
                value = {ord("s"): str, ord("r"): repr, ord("a"): ascii}[v.conversion](value)
            spec = _unwrap(self.visit(v.format_spec)) if v.format_spec is not None else ""
            parts.append(format(value, spec))
        return "".join(parts)

    def _binop(self, op, lhs, rhs, node):
        fn = _BINARY.get(type(op))
        if fn is None:
            raise self._error(node, f"unsupported operator {type(op).__name__}")
        if not _is_tensor(lhs) and not _is_tensor(rhs):
            result = fn(_unwrap(lhs), _unwrap(rhs))
            return constexpr(result) if isinstance(lhs, constexpr) or isinstance(rhs, constexpr) else result
        if isinstance(op, ast.Pow):
            raise self._error(node, "** on tensors is not supported; use tl.exp/tl.log")
        return fn(lhs if _is_tensor(lhs) else _unwrap(lhs), rhs if _is_tensor(rhs) else _unwrap(rhs))

    def visit_BinOp(self, node):
        return self._binop(node.op, self.visit(node.left), self.visit(node.right), node)

    def visit_UnaryOp(self, node):
        operand = self.visit(node.operand)
        if _is_tensor(operand):
            if isinstance(node.op, ast.Not):
                return operand.logical_not()
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return operand
            return ~operand
        value = _unwrap(operand)
        result = {ast.Not: lambda v: not v, ast.USub: operator.neg, ast.UAdd: operator.pos,
                  ast.Invert: operator.invert}[type(node.op)](value)
        return constexpr(result) if isinstance(operand, constexpr) else result

    def visit_BoolOp(self, node):
        # Values are visited in order and short-circuit as in Python where
        # they are known now: a false one ends an `and`, a true one an `or`
        # (`k is None or x.numel < k` never compares with None); the tensors
        # among the rest combine elementwise.
        is_and = isinstance(node.op, ast.And)
        tensors, value = [], None
        for subnode in node.values:
            value = self.visit(subnode)
            if _is_tensor(value):
                tensors.append(value)
            elif builtins.bool(_unwrap(value)) != is_and:
                return _unwrap(value)
        if not tensors:
            return _unwrap(value)
        result = core.to_tensor(tensors[0])
        for v in tensors[1:]:
            result = result.logical_and(v) if is_and else result.logical_or(v)
        return result

    def visit_Compare(self, node):
        left = self.visit(node.left)
        result = None
        for op, comparator in zip(node.ops, node.comparators):
            right = self.visit(comparator)
            fn = _COMPARE[type(op)]
            none = _unwrap(left) is None or _unwrap(right) is None
            if (_is_tensor(left) or _is_tensor(right)) and isinstance(op, (ast.Is, ast.IsNot)) \
                    and none:
                # A tensor is never None (`if scale is not None:`).
                part = isinstance(op, ast.IsNot)
            elif _is_tensor(left) or _is_tensor(right):
                if isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
                    raise self._error(node, f"'{type(op).__name__}' does not apply to tensors")
                part = fn(left if _is_tensor(left) else _unwrap(left),
                          right if _is_tensor(right) else _unwrap(right))
            else:
                part = fn(_unwrap(left), _unwrap(right))
            if result is None:
                result = part
            elif _is_tensor(result) or _is_tensor(part):
                result = core.to_tensor(result).logical_and(part)
            else:
                result = result and part
            left = right
        return result

    def visit_IfExp(self, node):
        cond = self.visit(node.test)
        if not _is_tensor(cond):
            return self.visit(node.body if _unwrap(cond) else node.orelse)
        calls = any(isinstance(n, ast.Call) for branch in (node.body, node.orelse)
                    for n in ast.walk(branch))
        if not calls:  # pure: both sides, then a select
            return tl.where(cond, self.visit(node.body), self.visit(node.orelse))
        # Only the branch the condition picks runs (its calls may store).
        values = []
        self.builder.begin_if(cond.handle)
        self.dynamic_depth += 1
        for branch in (node.body, node.orelse):
            if values:
                self.builder.begin_else()
            value = _unwrap(self.visit(branch))
            values.append(core.to_tensor(value) if isinstance(value, (int, float)) else value)
        self.dynamic_depth -= 1
        then, other = values
        if then is None and other is None:  # two calls returning nothing
            self.builder.end_if([], [])
            return None
        kinds = [(v.dtype, [_unwrap(d) for d in v.shape]) if _is_tensor(v) else v
                 for v in values]
        if not (_is_tensor(then) and _is_tensor(other)) or kinds[0] != kinds[1]:
            raise self._error(node, "the branches of a conditional expression on a runtime "
                                    f"condition give {kinds[0]} and {kinds[1]}; make them "
                                    "tensors of one type and shape")
        return core.tensor(self.builder.end_if([then.handle], [other.handle])[0])

    def visit_Call(self, node):
        fn = self.visit(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(_unwrap(self.visit(a.value)))
            else:
                args.append(self.visit(a))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                kwargs.update(_unwrap(self.visit(k.value)))
            else:
                kwargs[k.arg] = self.visit(k.value)
        fn = _unwrap(fn)
        # Python's min and max on tensors mean tl.minimum and tl.maximum.
        if fn in (builtins.min, builtins.max) and any(_is_tensor(a) for a in args):
            fn = tl.minimum if fn is builtins.min else tl.maximum
            result = args[0]
            for a in args[1:]:
                result = fn(result, a)
            return result
        if fn in (builtins.print,):
            fn = tl.static_print
        from ..runtime.jit import JITFunction
        if isinstance(fn, JITFunction):
            return self.call_function(fn, args, kwargs)
        # Plain Python functions (len, math.log2...) see the values of
        # constexprs; the language's own take constexprs as they are.
        if not (getattr(fn, "__module__", None) or "").startswith("tessera"):
            args = [_unwrap(a) for a in args]
            kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
        return fn(*args, **kwargs)


def generate(builder, fn, arg_types, divisibility, constants, options):
    """Generates kernel `fn` into `builder` for the launch `options`
    (num_warps...; "instrumentation": the records per warp of an
    instrumented kernel, 0 for none); returns the generator, whose
    `dependencies` and `global_reads` say what the result depends on, and
    `profile_scopes` the names of its scopes."""
    codegen = CodeGenerator(builder, fn.filename)
    codegen.instrumentation = options.get("instrumentation", 0)
    codegen.num_warps = options["num_warps"]
    if fn.explicit_layouts:
        builder.set_explicit_layouts()
    previous = [getattr(core._state, name, None) for name in ("builder", "codegen", "options")]
    core._state.builder, core._state.codegen, core._state.options = builder, codegen, options
    try:
        codegen.generate_kernel(fn, arg_types, divisibility, constants)
    finally:
        core._state.builder, core._state.codegen, core._state.options = previous
    return codegen
