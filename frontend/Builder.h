//===- Builder.h - the IR builder behind the Python language --------------===//
//
// Builds `tile` IR for a kernel as the Python code generator walks its source:
// typing, Triton's promotion rules for mixed operands and Python scalars,
// numpy broadcasting, and source locations on every op. Errors are thrown as
// FrontendError with a plain-words message; the code generator adds the
// kernel's file, line and column.
//
// This header includes no MLIR: the Python bindings, built with RTTI, see
// values only as opaque handles.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_FRONTEND_BUILDER_H
#define TESSERA_FRONTEND_BUILDER_H

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlir::tile::frontend {

/// A mistake in a kernel, in plain words.
class FrontendError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A value of the kernel being built: an opaque IR value, its dtype name
/// (`float32`, `pointer<int8>`...) and its shape (empty for a scalar). With
/// explicit layouts, `layout` is the text of a tensor's layout attribute
/// (empty while it has none), and of a shared-memory buffer's.
struct Handle {
  const void *value = nullptr;
  std::string dtype;
  std::vector<int64_t> shape;
  std::string layout;
};

class Builder {
public:
  Builder();
  ~Builder();
  Builder(const Builder &) = delete;
  Builder &operator=(const Builder &) = delete;

  /// Ops created from now on carry this source location.
  void setLocation(const std::string &file, unsigned line, unsigned column);

  /// Starts a function with arguments of these dtypes; `divisibility[i]` > 0
  /// marks argument i as divisible by it (bytes for pointers). Public
  /// functions are kernels, private ones helpers (the Python code generator
  /// inlines @jit helpers itself, so it builds kernels only).
  std::vector<Handle> beginFunction(const std::string &name,
                                    const std::vector<std::string> &argTypes,
                                    const std::vector<int64_t> &divisibility,
                                    bool isPublic);
  /// Ends the current function, returning `results`.
  void endFunction(const std::vector<Handle> &results);

  // Constants. A "weak" scalar (a Python literal) adapts to the dtype of
  // the other operand of a binary op, as in Triton.
  Handle intConstant(int64_t value, const std::string &dtype);
  Handle floatConstant(double value, const std::string &dtype);

  // Program identity and construction.
  Handle programId(int axis);
  Handle numPrograms(int axis);
  /// With explicit layouts, `layout` (attribute text) is the result's;
  /// empty leaves it to its uses (AutoLayout).
  Handle arange(int64_t start, int64_t end, const std::string &layout = "");
  Handle full(const std::vector<int64_t> &shape, const Handle &scalar,
              const std::string &layout = "");

  // Shapes.
  Handle broadcastTo(const Handle &value, const std::vector<int64_t> &shape);
  /// Both broadcast to their common shape.
  std::pair<Handle, Handle> broadcastPair(const Handle &a, const Handle &b);
  Handle expandDims(const Handle &value, int axis);
  Handle reshape(const Handle &value, const std::vector<int64_t> &shape,
                 bool allowReorder);
  Handle permute(const Handle &value, const std::vector<int32_t> &order);
  Handle cat(const Handle &a, const Handle &b);
  /// tl.gather: `src` at `index` along `axis` (the other dimensions of the
  /// two match).
  Handle gather(const Handle &src, const Handle &index, int axis);
  /// tl.histogram: how many elements of the 1-D `src` fall in each of
  /// `numBins` bins of width 1 from 0, where `mask` holds.
  Handle histogram(const Handle &src, int64_t numBins,
                   const std::optional<Handle> &mask);
  Handle join(const Handle &a, const Handle &b);
  std::pair<Handle, Handle> split(const Handle &value);

  // Arithmetic with promotion and broadcasting. `op` is add, sub, mul,
  // truediv, floordiv, mod, and, or, xor, lshift, rshift, eq, ne, lt, le,
  // gt, ge, minimum, maximum, logical_and, logical_or. `weakA`/`weakB` mark
  // Python literals.
  Handle binary(const std::string &op, const Handle &a, const Handle &b,
                bool weakA = false, bool weakB = false);
  /// `op` is neg, invert, not, abs, exp, exp2, expm1, log, log2, log10,
  /// log1p, sqrt, sqrt_rn, rsqrt, sin, cos, tan, asin, acos, atan, sinh,
  /// cosh, tanh, asinh, acosh, atanh, erf, erfc, cbrt, floor, ceil, trunc,
  /// rint.
  Handle unary(const std::string &op, const Handle &a);
  /// pow, atan2 or fmod of floats (integers computed in fp32).
  Handle mathBinary(const std::string &op, const Handle &a, const Handle &b);
  Handle fma(const Handle &a, const Handle &b, const Handle &c);
  /// The high half of the full product of two integers (unsigned for
  /// unsigned dtypes), as `tl.umulhi`.
  Handle mulhi(const Handle &a, const Handle &b);
  Handle cast(const Handle &value, const std::string &dtype);
  Handle bitcast(const Handle &value, const std::string &dtype);
  Handle where(const Handle &condition, const Handle &a, const Handle &b,
               bool weakA = false, bool weakB = false);
  /// tl.inline_asm_elementwise: `asm` run on `args` broadcast to one shape,
  /// giving one value of each of `dtypes`.
  std::vector<Handle> inlineAsm(const std::string &asmString,
                                const std::string &constraints,
                                const std::vector<Handle> &args,
                                const std::vector<std::string> &dtypes,
                                bool pure, int pack);

  // Memory.
  Handle load(const Handle &pointer, const std::optional<Handle> &mask,
              const std::optional<Handle> &other, const std::string &cache,
              const std::string &eviction, bool isVolatile);
  void store(const Handle &pointer, const Handle &value,
             const std::optional<Handle> &mask, const std::string &cache,
             const std::string &eviction);
  /// `kind`: add, max, min, and, or, xor, xchg (fadd, umax, umin follow
  /// from the dtype); `sem`: relaxed, acquire, release, acq_rel; `scope`:
  /// gpu, cta, sys.
  Handle atomicRMW(const std::string &kind, const Handle &pointer,
                   const Handle &value, const std::optional<Handle> &mask,
                   const std::string &sem, const std::string &scope);
  Handle atomicCAS(const Handle &pointer, const Handle &cmp,
                   const Handle &value, const std::string &sem,
                   const std::string &scope);

  // Tensor descriptors: a tensor in global memory accessed in blocks
  // (tl.make_tensor_descriptor, tl.make_block_ptr). A descriptor's handle
  // has the element dtype and the block's shape.
  /// `shape` and `strides` are integers, one per dimension of `blockShape`;
  /// elements outside the tensor read as NaN with `nanPadding`, else zero.
  /// `aligned`: the base and the strides but the last are 16-byte multiples.
  Handle makeTensorDescriptor(const Handle &base,
                              const std::vector<Handle> &shape,
                              const std::vector<Handle> &strides,
                              const std::vector<int64_t> &blockShape,
                              bool nanPadding, bool aligned = false);
  /// The block at `indices`; `boundaryCheck` lists the dimensions checked
  /// against the shape (all when absent).
  Handle descriptorLoad(const Handle &desc, const std::vector<Handle> &indices,
                        const std::optional<std::vector<int32_t>> &boundaryCheck,
                        const std::string &cache, const std::string &eviction);
  void descriptorStore(const Handle &desc, const std::vector<Handle> &indices,
                       const Handle &value,
                       const std::optional<std::vector<int32_t>> &boundaryCheck);
  /// `kind` as for atomicRMW.
  void descriptorReduce(const std::string &kind, const Handle &desc,
                        const std::vector<Handle> &indices,
                        const Handle &value);

  // Computation.
  /// `maxNumImpreciseAcc`: Triton's max_num_imprecise_acc (0: none).
  Handle dot(const Handle &a, const Handle &b, const std::optional<Handle> &acc,
             const std::string &inputPrecision, const std::string &outDtype,
             int64_t maxNumImpreciseAcc = 0);
  /// `kind`: sum, max, min, prod, xor_sum, argmax, argmin.
  Handle reduce(const Handle &value, int axis, const std::string &kind);
  /// `kind`: cumsum, cumprod.
  Handle scan(const Handle &value, int axis, const std::string &kind,
              bool reverse);
  /// A reduction or scan with a combiner the caller builds: begin returns
  /// the combiner's 2N scalar arguments; end takes its N results.
  std::vector<Handle> beginCombiner(const std::vector<Handle> &values, int axis,
                                    bool isScan, bool reverse);
  std::vector<Handle> endCombiner(const std::vector<Handle> &results);

  // Control flow. Loops and branches are opened, filled, and closed; values
  // carried through them are passed explicitly.
  /// `numStages` (0: the kernel's num_stages) is the loop's software
  /// pipelining depth; `flatten` fuses it with the loop inside it;
  /// `warpSpecialize` gives its copies warps of their own.
  std::vector<Handle> beginFor(const Handle &lower, const Handle &upper,
                               const Handle &step,
                               const std::vector<Handle> &carried,
                               int numStages = 0, bool flatten = false,
                               bool warpSpecialize = false);
  std::vector<Handle> endFor(const std::vector<Handle> &yielded);
  /// An if with an else branch; once both are built, endIf takes what each
  /// yields (equal in number and types), which become the results.
  void beginIf(const Handle &condition);
  void beginElse();
  std::vector<Handle> endIf(const std::vector<Handle> &thenYielded,
                            const std::vector<Handle> &elseYielded);
  std::vector<Handle> beginWhile(const std::vector<Handle> &carried);
  std::vector<Handle> beginWhileBody(const Handle &condition,
                                     const std::vector<Handle> &carried);
  std::vector<Handle> endWhile(const std::vector<Handle> &yielded);

  // Debugging.
  void print(const std::string &prefix, const std::vector<Handle> &args,
             bool hex);
  void deviceAssert(const Handle &condition, const std::string &message);
  /// Waits for every thread of the program (tl.debug_barrier).
  void barrier();
  /// Records entering (leaving, with `end`) scope number `scope` in each of
  /// the first `warps` warps, to `buffer`'s `slots` records per warp
  /// (tile.scope_record).
  void scopeRecord(const Handle &buffer, int scope, int slots, int warps,
                   bool end);
  /// Attaches tl.multiple_of / tl.max_contiguous hints to a value.
  Handle hint(const Handle &value, const std::string &name,
              const std::vector<int64_t> &values);

  // The explicit level (Gluon): layouts and shared memory the kernel
  // manages itself (ExplicitLayouts.cpp). Layouts are attribute text.
  /// From now on tensors carry layouts: constructors take one, other ops
  /// derive theirs from their operands, and operands that disagree are an
  /// error naming both. The module is marked so that backends keep them.
  void setExplicitLayouts();
  /// `value` in `layout`; with `assertTrivial`, an error unless no data
  /// moves between threads.
  Handle convertLayout(const Handle &value, const std::string &layout,
                       bool assertTrivial);
  /// Gives a tensor without a layout yet (AutoLayout) `layout`.
  Handle setAutoLayout(const Handle &value, const std::string &layout);
  /// A mutable shared-memory buffer of `shape` laid out by `layout`
  /// holding `value` where given.
  Handle localAlloc(const std::string &dtype, const std::vector<int64_t> &shape,
                    const std::string &layout,
                    const std::optional<Handle> &value);
  Handle localLoad(const Handle &buffer, const std::string &layout);
  void localStore(const Handle &buffer, const Handle &value);
  void localDealloc(const Handle &buffer);
  /// Buffer `index` along the first dimension.
  Handle memdescIndex(const Handle &buffer, const Handle &index);
  /// `length` elements from `start` along `dim`.
  Handle memdescSlice(const Handle &buffer, int64_t start, int64_t length,
                      int dim);
  Handle memdescPermute(const Handle &buffer,
                        const std::vector<int32_t> &order);
  /// The same bytes as `shape` elements keeping each where it is (a
  /// row-major reshape of the layout's linear form).
  Handle memdescReshape(const Handle &buffer,
                        const std::vector<int64_t> &shape);
  /// The same bytes as a buffer of `dtype`, `shape`, laid out by `layout`.
  Handle memdescReinterpret(const Handle &buffer, const std::string &dtype,
                            const std::vector<int64_t> &shape,
                            const std::string &layout);
  /// Starts copying what `pointer` points to into `buffer` (cp.async).
  void asyncCopyGlobalToLocal(const Handle &buffer, const Handle &pointer,
                              const std::optional<Handle> &mask,
                              const std::string &cache,
                              const std::string &eviction);
  void asyncCommitGroup();
  /// Waits until at most `pending` committed groups are in flight.
  void asyncWait(int pending);

  /// Verifies the module; throws with the verifier's messages.
  void verify();
  /// Runs the default target-independent pipeline.
  void optimize();
  /// The module as text, with source locations if asked (the interpreter
  /// needs them for its messages).
  std::string text(bool withLocations = false) const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::tile::frontend

#endif // TESSERA_FRONTEND_BUILDER_H
