//===- Interpreter.cpp - execute tile IR on the host ----------------------===//

#include "runtime/host/Interpreter.h"

#include "ir/Tile/TileOps.h"
#include "runtime/host/InterpreterSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::host;

namespace {

RtValue makeInts(ArrayRef<int64_t> shape, std::vector<int64_t> values) {
  RtValue v;
  v.shape.assign(shape.begin(), shape.end());
  v.ints = std::move(values);
  return v;
}

RtValue makeFloats(ArrayRef<int64_t> shape, std::vector<double> values) {
  RtValue v;
  v.shape.assign(shape.begin(), shape.end());
  v.floats = std::move(values);
  v.isFloat = true;
  return v;
}

SmallVector<int64_t, 4> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t, 4>(tensor.getShape());
  return {};
}

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

/// "file:line:col" of an op, for messages.
std::string where(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
       << loc.getColumn();
  else
    op->getLoc().print(os);
  return text;
}

/// Wraps an integer to `bits` (i1 is 0 or 1).
int64_t wrap(int64_t value, unsigned bits) {
  if (bits >= 64)
    return value;
  if (bits == 1)
    return value & 1;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t v = uint64_t(value) & mask;
  if (v >> (bits - 1))
    v |= ~mask;
  return int64_t(v);
}

uint64_t asUnsigned(int64_t value, unsigned bits) {
  if (bits >= 64)
    return uint64_t(value);
  return uint64_t(value) & ((uint64_t(1) << bits) - 1);
}

const llvm::fltSemantics &semanticsOf(FloatType type) {
  return type.getFloatSemantics();
}

/// Rounds a double to the precision of `type`. Like the GPUs' conversions,
/// fp8 formats saturate: finite values and infinities beyond the largest
/// finite one become it.
double roundTo(FloatType type, double value) {
  if (type.isF64())
    return value;
  if (type.isF32())
    return double(float(value));
  llvm::APFloat f(value);
  bool lost;
  f.convert(semanticsOf(type), llvm::APFloat::rmNearestTiesToEven, &lost);
  if (type.getWidth() == 8 && !std::isnan(value) && !f.isFinite())
    f = llvm::APFloat::getLargest(semanticsOf(type), value < 0);
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToDouble();
}

unsigned bitWidth(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (isa<PointerType, IndexType>(element))
    return 64;
  return element.getIntOrFloatBitWidth();
}

class KernelInterpreter final : public OpInterpreter {
public:
  KernelInterpreter(ArrayRef<HostBuffer> buffers, std::array<int64_t, 3> grid,
                    llvm::raw_ostream &out)
      : buffers(buffers), grid(grid), out(out) {}

  llvm::Error runProgram(func::FuncOp kernel, ArrayRef<HostArg> args,
                         std::array<int64_t, 3> pid) {
    this->pid = pid;
    scopeRecords = 0;
    SmallVector<RtValue> argValues;
    unsigned pointers = 0;
    for (auto [arg, type] : llvm::zip(args, kernel.getArgumentTypes())) {
      if (arg.kind == HostArg::Kind::Float) {
        argValues.push_back(
            makeFloats({}, {roundTo(cast<FloatType>(type), arg.floatValue)}));
      } else if (arg.kind == HostArg::Kind::Pointer) {
        argValues.push_back(makeInts({}, {int64_t(arg.pointer)}));
        argValues.back().origins = {bufferOf(arg.pointer, pointers++)};
      } else {
        argValues.push_back(makeInts({}, {wrap(arg.intValue, bitWidth(type))}));
      }
    }
    SmallVector<RtValue> results;
    return callFunction(kernel, argValues, results);
  }

private:
  /// The buffer a pointer argument (the `ordinal`-th) points into: the
  /// `ordinal`-th buffer where it holds the address (buffers come in the
  /// order of the pointer arguments; views of one array share its bounds),
  /// else the first that does, else one it points just past the end of (an
  /// empty array); -1 for none.
  int32_t bufferOf(uint64_t address, unsigned ordinal) const {
    for (bool pastTheEnd : {false, true}) {
      auto holds = [&](const HostBuffer &buffer) {
        return address >= buffer.address &&
               (address - buffer.address < buffer.bytes ||
                (pastTheEnd && address - buffer.address == buffer.bytes));
      };
      if (ordinal < buffers.size() && holds(buffers[ordinal]))
        return ordinal;
      for (auto [i, buffer] : llvm::enumerate(buffers))
        if (holds(buffer))
          return i;
    }
    return -1;
  }

  llvm::Error callFunction(func::FuncOp func, ArrayRef<RtValue> args,
                           SmallVector<RtValue> &results) {
    DenseMap<Value, RtValue> saved = std::move(values);
    values.clear();
    Block &entry = func.getBody().front();
    for (auto [arg, value] : llvm::zip(entry.getArguments(), args))
      values[arg] = value;
    llvm::Error err = runBlock(entry, results);
    values = std::move(saved);
    return err;
  }

  /// Runs a block to its terminator; `results` gets the terminator's
  /// operands (yield, return, reduce.return...).
  llvm::Error runBlock(Block &block, SmallVector<RtValue> &results) {
    for (Operation &op : block) {
      if (op.hasTrait<mlir::OpTrait::IsTerminator>()) {
        results.clear();
        for (Value operand : op.getOperands())
          results.push_back(get(operand));
        return llvm::Error::success();
      }
      if (llvm::Error err = execute(&op))
        return err;
    }
    return llvm::Error::success();
  }

  const RtValue &get(Value v) override {
    auto it = values.find(v);
    assert(it != values.end() && "value used before it was computed");
    return it->second;
  }
  void set(Value v, RtValue value) override { values[v] = std::move(value); }

  llvm::Error error(Operation *op, const Twine &message) override {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   where(op) + ": " + message);
  }

  //===--------------------------------------------------------------------===//
  // Elementwise helpers
  //===--------------------------------------------------------------------===//

  /// Splats a scalar operand to `shape` so that elementwise ops can index it.
  static int64_t at(const std::vector<int64_t> &v, int64_t i) {
    return v.size() == 1 ? v[0] : v[i];
  }
  static double at(const std::vector<double> &v, int64_t i) {
    return v.size() == 1 ? v[0] : v[i];
  }

  void intBinary(Operation *op,
                 const std::function<int64_t(int64_t, int64_t)> &fn) {
    const RtValue &a = get(op->getOperand(0)), &b = get(op->getOperand(1));
    unsigned bits = bitWidth(op->getResult(0).getType());
    std::vector<int64_t> r(a.ints.size());
    for (size_t i = 0; i < r.size(); ++i)
      r[i] = wrap(fn(a.ints[i], at(b.ints, i)), bits);
    set(op->getResult(0), makeInts(a.shape, std::move(r)));
  }

  /// Unsigned: the operands are zero-extended from their width first.
  void uintBinary(Operation *op,
                  const std::function<uint64_t(uint64_t, uint64_t)> &fn) {
    unsigned bits = bitWidth(op->getOperand(0).getType());
    intBinary(op, [&](int64_t a, int64_t b) {
      return int64_t(fn(asUnsigned(a, bits), asUnsigned(b, bits)));
    });
  }

  void floatBinary(Operation *op,
                   const std::function<double(double, double)> &fn) {
    const RtValue &a = get(op->getOperand(0)), &b = get(op->getOperand(1));
    auto type = cast<FloatType>(getElementTypeOrSelf(op->getResult(0)));
    std::vector<double> r(a.floats.size());
    for (size_t i = 0; i < r.size(); ++i)
      r[i] = roundTo(type, fn(a.floats[i], at(b.floats, i)));
    set(op->getResult(0), makeFloats(a.shape, std::move(r)));
  }

  void floatUnary(Operation *op, const std::function<double(double)> &fn) {
    const RtValue &a = get(op->getOperand(0));
    auto type = cast<FloatType>(getElementTypeOrSelf(op->getResult(0)));
    std::vector<double> r(a.floats.size());
    for (size_t i = 0; i < r.size(); ++i)
      r[i] = roundTo(type, fn(a.floats[i]));
    set(op->getResult(0), makeFloats(a.shape, std::move(r)));
  }

  /// Converts every element with `fn` to the result's kind.
  void convert(Operation *op, bool toFloat,
               const std::function<double(const RtValue &, int64_t)> &toF,
               const std::function<int64_t(const RtValue &, int64_t)> &toI) {
    const RtValue &a = get(op->getOperand(0));
    Type resultType = getElementTypeOrSelf(op->getResult(0));
    int64_t n = a.size();
    if (toFloat) {
      std::vector<double> r(n);
      for (int64_t i = 0; i < n; ++i)
        r[i] = roundTo(cast<FloatType>(resultType), toF(a, i));
      set(op->getResult(0), makeFloats(a.shape, std::move(r)));
    } else {
      std::vector<int64_t> r(n);
      unsigned bits = bitWidth(resultType);
      for (int64_t i = 0; i < n; ++i)
        r[i] = wrap(toI(a, i), bits);
      set(op->getResult(0), makeInts(a.shape, std::move(r)));
    }
  }

  /// Float to integer as LLVM's fptosi/fptoui on in-range values; out of
  /// range saturates (LLVM leaves it undefined).
  static int64_t floatToInt(double v, unsigned bits, bool isSigned) {
    if (std::isnan(v))
      return 0;
    double lo = isSigned ? -std::ldexp(1.0, bits - 1) : 0.0;
    double hi =
        isSigned ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
    v = std::trunc(std::clamp(v, lo, hi));
    if (!isSigned && v >= std::ldexp(1.0, 63))
      return int64_t(uint64_t(v));
    return int64_t(v);
  }

  //===--------------------------------------------------------------------===//
  // Memory
  //===--------------------------------------------------------------------===//

  /// Checks that [address, address + bytes) lies in one buffer: the one
  /// the pointer was derived from where that is known (`origin`, a buffer's
  /// index, or -1), and one the kernel may write where it `writes`. A pointer
  /// derived from one argument never reaches another argument's buffer.
  llvm::Error checkAccess(Operation *op, uint64_t address, unsigned bytes,
                          int64_t element, int32_t origin, bool writes) {
    // Without overflow: an address near 2^64 must not wrap into a buffer.
    auto holds = [&](const HostBuffer &buffer) {
      return address >= buffer.address && bytes <= buffer.bytes &&
             address - buffer.address <= buffer.bytes - bytes;
    };
    const HostBuffer *found = nullptr;
    auto consider = [&](const HostBuffer &buffer) {
      if (holds(buffer) && (!found || (writes && !found->writable)))
        found = &buffer;
    };
    if (origin >= 0)
      consider(buffers[origin]);
    else
      llvm::for_each(buffers, consider);
    if (found && (!writes || found->writable))
      return llvm::Error::success();
    std::string text;
    llvm::raw_string_ostream os(text);
    auto describe = [&]() -> llvm::raw_ostream & {
      os << op->getName() << " (element " << element << " at address 0x";
      os.write_hex(address);
      return os << ", program (" << pid[0] << ", " << pid[1] << ", " << pid[2]
                << "))";
    };
    if (found) {
      os << "write to the read-only buffer '" << found->name << "' by ";
      describe() << ": pass a writable array";
      return error(op, text);
    }
    os << "out-of-bounds access by ";
    describe();
    // Name the buffer the pointer was derived from, else the one the
    // address is nearest to: most likely the one meant.
    const HostBuffer *nearest = origin >= 0 ? &buffers[origin] : nullptr;
    if (!nearest) {
      uint64_t best = UINT64_MAX;
      for (const HostBuffer &buffer : buffers) {
        uint64_t end = buffer.address + buffer.bytes;
        uint64_t distance = address < buffer.address ? buffer.address - address
                            : address > end          ? address - end
                                                     : 0;
        if (distance < best) {
          best = distance;
          nearest = &buffer;
        }
      }
    }
    if (nearest)
      os << ": " << int64_t(address - nearest->address)
         << " bytes from the start of '" << nearest->name << "', which has "
         << nearest->bytes << " bytes";
    return error(op, text);
  }

  static void readElement(Type type, uint64_t address, RtValue &into) {
    if (auto f = dyn_cast<FloatType>(type)) {
      unsigned bits = f.getWidth();
      uint64_t raw = 0;
      std::memcpy(&raw, reinterpret_cast<const void *>(address), bits / 8);
      double v;
      if (f.isF64()) {
        std::memcpy(&v, &raw, 8);
      } else if (f.isF32()) {
        float x;
        std::memcpy(&x, &raw, 4);
        v = x;
      } else {
        llvm::APFloat ap(semanticsOf(f), llvm::APInt(bits, raw));
        bool lost;
        ap.convert(llvm::APFloat::IEEEdouble(),
                   llvm::APFloat::rmNearestTiesToEven, &lost);
        v = ap.convertToDouble();
      }
      into.floats.push_back(v);
      return;
    }
    unsigned bits = bitWidth(type);
    unsigned bytes = std::max(1u, bits / 8);
    uint64_t raw = 0;
    std::memcpy(&raw, reinterpret_cast<const void *>(address), bytes);
    into.ints.push_back(wrap(int64_t(raw), bits == 1 ? 8 : bits) &
                        (bits == 1 ? 1 : ~int64_t(0)));
  }

  static void writeElement(Type type, uint64_t address, const RtValue &from,
                           int64_t i) {
    if (auto f = dyn_cast<FloatType>(type)) {
      double v = at(from.floats, i);
      if (f.isF64()) {
        std::memcpy(reinterpret_cast<void *>(address), &v, 8);
      } else if (f.isF32()) {
        float x = float(v);
        std::memcpy(reinterpret_cast<void *>(address), &x, 4);
      } else {
        llvm::APFloat ap(v);
        bool lost;
        ap.convert(semanticsOf(f), llvm::APFloat::rmNearestTiesToEven, &lost);
        uint64_t raw = ap.bitcastToAPInt().getZExtValue();
        std::memcpy(reinterpret_cast<void *>(address), &raw, f.getWidth() / 8);
      }
      return;
    }
    int64_t raw = at(from.ints, i);
    std::memcpy(reinterpret_cast<void *>(address), &raw,
                std::max(1u, bitWidth(type) / 8));
  }

  static unsigned elementBytes(Type type) {
    return std::max(1u, bitWidth(type) / 8);
  }

  llvm::Expected<RtValue> loadElements(Operation *op, const RtValue &ptrs,
                                       Type element, const RtValue *mask,
                                       const RtValue *other) override {
    unsigned bytes = elementBytes(element);
    RtValue result;
    result.shape = ptrs.shape;
    result.isFloat = isa<FloatType>(element);
    for (int64_t i = 0; i < int64_t(ptrs.ints.size()); ++i) {
      if (mask && !at(mask->ints, i)) {
        // Masked off: `other`, or zero (undefined in the IR).
        if (result.isFloat)
          result.floats.push_back(other ? at(other->floats, i) : 0.0);
        else
          result.ints.push_back(other ? at(other->ints, i) : 0);
        continue;
      }
      uint64_t address = uint64_t(ptrs.ints[i]);
      if (llvm::Error err = checkAccess(op, address, bytes, i, ptrs.originAt(i),
                                        /*writes=*/false))
        return std::move(err);
      readElement(element, address, result);
    }
    return result;
  }

  llvm::Error load(LoadOp op) {
    llvm::Expected<RtValue> result =
        loadElements(op, get(op.getPtr()), getElementTypeOrSelf(op.getType()),
                     op.getMask() ? &get(op.getMask()) : nullptr,
                     op.getOther() ? &get(op.getOther()) : nullptr);
    if (!result)
      return result.takeError();
    set(op.getResult(), std::move(*result));
    return llvm::Error::success();
  }

  llvm::Error store(StoreOp op) {
    const RtValue &ptrs = get(op.getPtr());
    const RtValue &value = get(op.getValue());
    Type element = getElementTypeOrSelf(op.getValue().getType());
    unsigned bytes = elementBytes(element);
    const RtValue *mask = op.getMask() ? &get(op.getMask()) : nullptr;
    for (int64_t i = 0; i < int64_t(ptrs.ints.size()); ++i) {
      if (mask && !at(mask->ints, i))
        continue;
      uint64_t address = uint64_t(ptrs.ints[i]);
      if (llvm::Error err = checkAccess(op, address, bytes, i, ptrs.originAt(i),
                                        /*writes=*/true))
        return err;
      writeElement(element, address, value, i);
    }
    return llvm::Error::success();
  }

  /// A program runs here as its first warp: its records of scopes go to
  /// that warp's slots, timed with the host's steady clock.
  llvm::Error scopeRecord(ScopeRecordOp op) {
    const RtValue &buffer = get(op.getBuffer());
    int64_t program = pid[0] + grid[0] * (pid[1] + grid[1] * pid[2]);
    int64_t slot =
        program * op.getWarps() * op.getSlots() + scopeRecords % op.getSlots();
    uint64_t address = uint64_t(buffer.ints[0]) + uint64_t(slot) * 16;
    if (llvm::Error err = checkAccess(op, address, 16, 0, buffer.originAt(0),
                                      /*writes=*/true))
      return err;
    uint64_t record[2] = {
        uint64_t(scopeRecords) << 32 | uint64_t(op.getScope()) << 1 |
            (op.getEnd() ? 1 : 0),
        uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                     std::chrono::steady_clock::now().time_since_epoch())
                     .count())};
    std::memcpy(reinterpret_cast<void *>(address), record, sizeof(record));
    ++scopeRecords;
    return llvm::Error::success();
  }

  llvm::Error atomicRMW(AtomicRMWOp op) {
    const RtValue &ptrs = get(op.getPtr());
    const RtValue &val = get(op.getVal());
    Type element = getElementTypeOrSelf(op.getVal().getType());
    unsigned bytes = elementBytes(element), bits = bitWidth(element);
    const RtValue *mask = op.getMask() ? &get(op.getMask()) : nullptr;
    RtValue old;
    old.shape = ptrs.shape;
    old.isFloat = isa<FloatType>(element);
    for (int64_t i = 0; i < int64_t(ptrs.ints.size()); ++i) {
      if (mask && !at(mask->ints, i)) {
        if (old.isFloat)
          old.floats.push_back(0);
        else
          old.ints.push_back(0);
        continue;
      }
      uint64_t address = uint64_t(ptrs.ints[i]);
      if (llvm::Error err = checkAccess(op, address, bytes, i, ptrs.originAt(i),
                                        /*writes=*/true))
        return err;
      readElement(element, address, old);
      RtValue next;
      next.isFloat = old.isFloat;
      if (old.isFloat) {
        double a = old.floats.back(), b = at(val.floats, i), r = b;
        switch (op.getKind()) {
        case RMWKind::fadd:
          r = a + b;
          break;
        case RMWKind::max:
          r = std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
          break;
        case RMWKind::min:
          r = std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
          break;
        default:
          break; // xchg
        }
        next.floats.push_back(roundTo(cast<FloatType>(element), r));
      } else {
        int64_t a = old.ints.back(), b = at(val.ints, i), r = b;
        uint64_t ua = asUnsigned(a, bits), ub = asUnsigned(b, bits);
        switch (op.getKind()) {
        case RMWKind::add:
          r = a + b;
          break;
        case RMWKind::max:
          r = std::max(a, b);
          break;
        case RMWKind::min:
          r = std::min(a, b);
          break;
        case RMWKind::umax:
          r = int64_t(std::max(ua, ub));
          break;
        case RMWKind::umin:
          r = int64_t(std::min(ua, ub));
          break;
        case RMWKind::And:
          r = a & b;
          break;
        case RMWKind::Or:
          r = a | b;
          break;
        case RMWKind::Xor:
          r = a ^ b;
          break;
        default:
          break; // xchg
        }
        next.ints.push_back(wrap(r, bits));
      }
      writeElement(element, address, next, 0);
    }
    set(op.getResult(), std::move(old));
    return llvm::Error::success();
  }

  llvm::Error atomicCAS(AtomicCASOp op) {
    const RtValue &ptrs = get(op.getPtr());
    const RtValue &cmp = get(op.getCmp()), &val = get(op.getVal());
    Type element = getElementTypeOrSelf(op.getVal().getType());
    unsigned bytes = elementBytes(element);
    RtValue old;
    old.shape = ptrs.shape;
    old.isFloat = isa<FloatType>(element);
    for (int64_t i = 0; i < int64_t(ptrs.ints.size()); ++i) {
      uint64_t address = uint64_t(ptrs.ints[i]);
      if (llvm::Error err = checkAccess(op, address, bytes, i, ptrs.originAt(i),
                                        /*writes=*/true))
        return err;
      readElement(element, address, old);
      bool equal = old.isFloat ? old.floats.back() == at(cmp.floats, i)
                               : old.ints.back() == at(cmp.ints, i);
      if (equal)
        writeElement(element, address, val, i);
    }
    set(op.getResult(), std::move(old));
    return llvm::Error::success();
  }

  //===--------------------------------------------------------------------===//
  // Shape ops
  //===--------------------------------------------------------------------===//

  /// Gathers `src` into `shape`: element i of the result is element
  /// `index(i)` of the source.
  RtValue gather(const RtValue &src, ArrayRef<int64_t> shape,
                 const std::function<int64_t(int64_t)> &index) {
    int64_t n = numElements(shape);
    RtValue r;
    r.shape.assign(shape.begin(), shape.end());
    r.isFloat = src.isFloat;
    for (int64_t i = 0; i < n; ++i) {
      if (src.isFloat)
        r.floats.push_back(src.floats[index(i)]);
      else
        r.ints.push_back(src.ints[index(i)]);
      if (!src.origins.empty())
        r.origins.push_back(src.originAt(index(i)));
    }
    return r;
  }

  static SmallVector<int64_t> unflatten(int64_t i, ArrayRef<int64_t> shape) {
    SmallVector<int64_t> c(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
      c[d] = i % shape[d];
      i /= shape[d];
    }
    return c;
  }
  static int64_t flatten(ArrayRef<int64_t> c, ArrayRef<int64_t> shape) {
    int64_t i = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      i = i * shape[d] + c[d];
    return i;
  }

  //===--------------------------------------------------------------------===//
  // Reductions and scans
  //===--------------------------------------------------------------------===//

  /// Applies a combiner region to scalars.
  llvm::Error combine(Region &region, ArrayRef<RtValue> args,
                      SmallVector<RtValue> &results) {
    Block &block = region.front();
    for (auto [arg, value] : llvm::zip(block.getArguments(), args))
      values[arg] = value;
    return runBlock(block, results);
  }

  static RtValue scalarAt(const RtValue &v, int64_t i) {
    return v.isFloat ? makeFloats({}, {v.floats[i]})
                     : makeInts({}, {v.ints[i]});
  }
  static void put(RtValue &into, const RtValue &scalar) {
    if (scalar.isFloat)
      into.floats.push_back(scalar.floats[0]);
    else
      into.ints.push_back(scalar.ints[0]);
  }

  /// The combiner as a plain function when it is one arith op of its two
  /// arguments (a sum, a max...), which most reductions are: calling it
  /// directly is much faster than running the region per element.
  struct SimpleCombiner {
    std::function<double(double, double)> onFloats;
    std::function<int64_t(int64_t, int64_t)> onInts;
  };
  static std::optional<SimpleCombiner> simpleCombiner(Region &region) {
    Block &block = region.front();
    if (block.getNumArguments() != 2 ||
        !llvm::hasSingleElement(block.without_terminator()))
      return std::nullopt;
    Operation &op = block.front();
    if (op.getNumOperands() != 2 || op.getNumResults() != 1 ||
        block.getTerminator()->getOperand(0) != op.getResult(0))
      return std::nullopt;
    Value a = block.getArgument(0), b = block.getArgument(1);
    if (!((op.getOperand(0) == a && op.getOperand(1) == b) ||
          (op.getOperand(0) == b && op.getOperand(1) == a)))
      return std::nullopt;
    unsigned bits = bitWidth(a.getType());
    auto nanOr = [](double x, double y, double r) {
      return std::isnan(x) || std::isnan(y) ? NAN : r;
    };
    SimpleCombiner c;
    TypeSwitch<Operation *>(&op)
        .Case([&](arith::AddFOp) { c.onFloats = std::plus<double>(); })
        .Case([&](arith::MulFOp) { c.onFloats = std::multiplies<double>(); })
        .Case([&](arith::MaximumFOp) {
          c.onFloats = [=](double x, double y) {
            return nanOr(x, y, std::max(x, y));
          };
        })
        .Case([&](arith::MinimumFOp) {
          c.onFloats = [=](double x, double y) {
            return nanOr(x, y, std::min(x, y));
          };
        })
        .Case([&](arith::MaxNumFOp) {
          c.onFloats = [](double x, double y) { return std::fmax(x, y); };
        })
        .Case([&](arith::MinNumFOp) {
          c.onFloats = [](double x, double y) { return std::fmin(x, y); };
        })
        .Case([&](arith::AddIOp) { c.onInts = std::plus<int64_t>(); })
        .Case([&](arith::MulIOp) {
          c.onInts = [](int64_t x, int64_t y) {
            return int64_t(uint64_t(x) * uint64_t(y));
          };
        })
        .Case([&](arith::MaxSIOp) {
          c.onInts = [](int64_t x, int64_t y) { return std::max(x, y); };
        })
        .Case([&](arith::MinSIOp) {
          c.onInts = [](int64_t x, int64_t y) { return std::min(x, y); };
        })
        .Case([&](arith::MaxUIOp) {
          c.onInts = [=](int64_t x, int64_t y) {
            return asUnsigned(x, bits) >= asUnsigned(y, bits) ? x : y;
          };
        })
        .Case([&](arith::MinUIOp) {
          c.onInts = [=](int64_t x, int64_t y) {
            return asUnsigned(x, bits) <= asUnsigned(y, bits) ? x : y;
          };
        })
        .Case([&](arith::AndIOp) {
          c.onInts = [](int64_t x, int64_t y) { return x & y; };
        })
        .Case([&](arith::OrIOp) {
          c.onInts = [](int64_t x, int64_t y) { return x | y; };
        })
        .Case([&](arith::XOrIOp) {
          c.onInts = [](int64_t x, int64_t y) { return x ^ y; };
        });
    if (!c.onFloats && !c.onInts)
      return std::nullopt;
    return c;
  }

  llvm::Error reduce(ReduceOp op) {
    unsigned n = op.getSrcs().size();
    if (n == 1)
      if (auto simple = simpleCombiner(op.getCombineOp()))
        return reduceSimple(op, *simple);
    SmallVector<int64_t> shape = shapeOf(op.getSrcs()[0].getType());
    int64_t axis = op.getAxis(), len = shape[axis];
    SmallVector<int64_t> outShape(shape);
    outShape.erase(outShape.begin() + axis);
    int64_t outN = numElements(outShape);
    SmallVector<RtValue> outs(n);
    for (unsigned k = 0; k < n; ++k) {
      outs[k].shape.assign(outShape.begin(), outShape.end());
      outs[k].isFloat = get(op.getSrcs()[k]).isFloat;
    }
    for (int64_t o = 0; o < outN; ++o) {
      SmallVector<int64_t> c = unflatten(o, outShape);
      c.insert(c.begin() + axis, 0);
      SmallVector<RtValue> acc;
      for (unsigned k = 0; k < n; ++k)
        acc.push_back(scalarAt(get(op.getSrcs()[k]), flatten(c, shape)));
      for (int64_t j = 1; j < len; ++j) {
        c[axis] = j;
        SmallVector<RtValue> args(acc);
        for (unsigned k = 0; k < n; ++k)
          args.push_back(scalarAt(get(op.getSrcs()[k]), flatten(c, shape)));
        if (llvm::Error err = combine(op.getCombineOp(), args, acc))
          return err;
      }
      for (unsigned k = 0; k < n; ++k)
        put(outs[k], acc[k]);
    }
    for (unsigned k = 0; k < n; ++k)
      set(op.getResult()[k], std::move(outs[k]));
    return llvm::Error::success();
  }

  llvm::Error reduceSimple(ReduceOp op, const SimpleCombiner &combiner) {
    const RtValue &src = get(op.getSrcs()[0]);
    SmallVector<int64_t> shape = shapeOf(op.getSrcs()[0].getType());
    int64_t axis = op.getAxis(), len = shape[axis];
    // Elements along the axis are `stride` apart; `outer` blocks of
    // `len * stride` hold the rest.
    int64_t stride = 1;
    for (size_t d = axis + 1; d < shape.size(); ++d)
      stride *= shape[d];
    int64_t outer = numElements(shape) / (len * stride);
    SmallVector<int64_t> outShape(shape);
    outShape.erase(outShape.begin() + axis);
    Type element = getElementTypeOrSelf(op.getSrcs()[0].getType());
    RtValue out;
    out.shape.assign(outShape.begin(), outShape.end());
    out.isFloat = src.isFloat;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < stride; ++i) {
        int64_t base = o * len * stride + i;
        if (src.isFloat) {
          auto type = cast<FloatType>(element);
          double acc = src.floats[base];
          for (int64_t j = 1; j < len; ++j)
            acc = roundTo(
                type, combiner.onFloats(acc, src.floats[base + j * stride]));
          out.floats.push_back(acc);
        } else {
          unsigned bits = bitWidth(element);
          int64_t acc = src.ints[base];
          for (int64_t j = 1; j < len; ++j)
            acc = wrap(combiner.onInts(acc, src.ints[base + j * stride]), bits);
          out.ints.push_back(acc);
        }
      }
    set(op.getResult()[0], std::move(out));
    return llvm::Error::success();
  }

  llvm::Error scan(ScanOp op) {
    unsigned n = op.getSrcs().size();
    SmallVector<int64_t> shape = shapeOf(op.getSrcs()[0].getType());
    int64_t axis = op.getAxis(), len = shape[axis];
    int64_t total = numElements(shape);
    SmallVector<RtValue> outs(n);
    for (unsigned k = 0; k < n; ++k) {
      outs[k] = get(op.getSrcs()[k]);
      outs[k].origins.clear(); // combined values come from no one buffer
    }
    SmallVector<int64_t> lineShape(shape);
    lineShape[axis] = 1;
    for (int64_t line = 0; line < total / len; ++line) {
      SmallVector<int64_t> c = unflatten(line, lineShape);
      SmallVector<RtValue> acc;
      for (int64_t step = 0; step < len; ++step) {
        c[axis] = op.getReverse() ? len - 1 - step : step;
        int64_t i = flatten(c, shape);
        SmallVector<RtValue> here;
        for (unsigned k = 0; k < n; ++k)
          here.push_back(scalarAt(get(op.getSrcs()[k]), i));
        if (step == 0) {
          acc = here;
        } else {
          SmallVector<RtValue> args(acc);
          args.append(here.begin(), here.end());
          if (llvm::Error err = combine(op.getCombineOp(), args, acc))
            return err;
        }
        for (unsigned k = 0; k < n; ++k) {
          if (outs[k].isFloat)
            outs[k].floats[i] = acc[k].floats[0];
          else
            outs[k].ints[i] = acc[k].ints[0];
        }
      }
    }
    for (unsigned k = 0; k < n; ++k)
      set(op.getResult()[k], std::move(outs[k]));
    return llvm::Error::success();
  }

  llvm::Error dot(DotOp op) {
    const RtValue &a = get(op.getA()), &b = get(op.getB()), &c = get(op.getC());
    SmallVector<int64_t> as = shapeOf(op.getA().getType());
    SmallVector<int64_t> bs = shapeOf(op.getB().getType());
    int64_t rank = as.size();
    int64_t batch = rank == 3 ? as[0] : 1;
    int64_t m = as[rank - 2], k = as[rank - 1], n = bs[rank - 1];
    Type accType = getElementTypeOrSelf(op.getD().getType());
    RtValue d = c;
    for (int64_t z = 0; z < batch; ++z)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          int64_t out = (z * m + i) * n + j;
          if (d.isFloat) {
            double sum = d.floats[out];
            for (int64_t kk = 0; kk < k; ++kk)
              sum += a.floats[(z * m + i) * k + kk] *
                     b.floats[(z * k + kk) * n + j];
            d.floats[out] = roundTo(cast<FloatType>(accType), sum);
          } else {
            int64_t sum = d.ints[out];
            for (int64_t kk = 0; kk < k; ++kk)
              sum +=
                  a.ints[(z * m + i) * k + kk] * b.ints[(z * k + kk) * n + j];
            d.ints[out] = wrap(sum, bitWidth(accType));
          }
        }
    set(op.getD(), std::move(d));
    return llvm::Error::success();
  }

  //===--------------------------------------------------------------------===//
  // Control flow
  //===--------------------------------------------------------------------===//

  llvm::Error forLoop(scf::ForOp op) {
    // Copies: the loop adds values, which may move the map's entries.
    int64_t lb = get(op.getLowerBound()).ints[0];
    int64_t ub = get(op.getUpperBound()).ints[0];
    int64_t step = get(op.getStep()).ints[0];
    if (step <= 0)
      return error(op,
                   "the step of a loop must be positive, got " + Twine(step));
    SmallVector<RtValue> carried;
    for (Value init : op.getInitArgs())
      carried.push_back(get(init));
    Block &body = *op.getBody();
    for (int64_t iv = lb; iv < ub; iv += step) {
      values[body.getArgument(0)] = makeInts({}, {iv});
      for (auto [arg, value] :
           llvm::zip(body.getArguments().drop_front(), carried))
        values[arg] = value;
      if (llvm::Error err = runBlock(body, carried))
        return err;
    }
    for (auto [result, value] : llvm::zip(op.getResults(), carried))
      set(result, value);
    return llvm::Error::success();
  }

  llvm::Error ifOp(scf::IfOp op) {
    bool cond = get(op.getCondition()).ints[0];
    Region &region = cond ? op.getThenRegion() : op.getElseRegion();
    SmallVector<RtValue> results;
    if (!region.empty())
      if (llvm::Error err = runBlock(region.front(), results))
        return err;
    for (auto [result, value] : llvm::zip(op.getResults(), results))
      set(result, value);
    return llvm::Error::success();
  }

  llvm::Error whileLoop(scf::WhileOp op) {
    SmallVector<RtValue> state;
    for (Value init : op.getInits())
      state.push_back(get(init));
    while (true) {
      Block &before = op.getBefore().front();
      for (auto [arg, value] : llvm::zip(before.getArguments(), state))
        values[arg] = value;
      SmallVector<RtValue> condArgs;
      if (llvm::Error err = runBlock(before, condArgs))
        return err;
      // scf.condition's operands: the condition, then the forwarded values.
      bool cont = condArgs[0].ints[0];
      SmallVector<RtValue> forwarded(condArgs.begin() + 1, condArgs.end());
      if (!cont) {
        for (auto [result, value] : llvm::zip(op.getResults(), forwarded))
          set(result, value);
        return llvm::Error::success();
      }
      Block &after = op.getAfter().front();
      for (auto [arg, value] : llvm::zip(after.getArguments(), forwarded))
        values[arg] = value;
      if (llvm::Error err = runBlock(after, state))
        return err;
    }
  }

  llvm::Error call(func::CallOp op) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, op.getCalleeAttr());
    if (!callee || callee.isExternal())
      return error(op, "call of '" + op.getCallee() +
                           "', which has no body to interpret");
    SmallVector<RtValue> args, results;
    for (Value operand : op.getOperands())
      args.push_back(get(operand));
    if (llvm::Error err = callFunction(callee, args, results))
      return err;
    for (auto [result, value] : llvm::zip(op.getResults(), results))
      set(result, value);
    return llvm::Error::success();
  }

  //===--------------------------------------------------------------------===//
  // Debugging
  //===--------------------------------------------------------------------===//

  void print(PrintOp op) {
    out << "pid (" << pid[0] << ", " << pid[1] << ", " << pid[2] << ")"
        << op.getPrefix();
    for (auto [k, arg] : llvm::enumerate(op.getArgs())) {
      const RtValue &v = get(arg);
      bool isSigned = op.getIsSigned().empty() || op.getIsSigned()[k];
      unsigned bits = bitWidth(arg.getType());
      out << (k ? ", " : " ");
      if (!v.shape.empty())
        out << "[";
      for (int64_t i = 0; i < v.size(); ++i) {
        if (i)
          out << ", ";
        if (v.isFloat)
          out << v.floats[i];
        else if (op.getHex())
          out << "0x" << llvm::utohexstr(asUnsigned(v.ints[i], bits));
        else if (isSigned)
          out << v.ints[i];
        else
          out << asUnsigned(v.ints[i], bits);
      }
      if (!v.shape.empty())
        out << "]";
    }
    out << "\n";
  }

  //===--------------------------------------------------------------------===//
  // Dispatch
  //===--------------------------------------------------------------------===//

  llvm::Error execute(Operation *op) {
    Value result = op->getNumResults() ? op->getResult(0) : Value();
    auto shape = result ? shapeOf(result.getType()) : SmallVector<int64_t, 4>();
    auto unsupported = [&]() {
      return error(op, "the host interpreter does not support '" +
                           op->getName().getStringRef() + "'");
    };
    auto done = [] { return llvm::Error::success(); };
    return TypeSwitch<Operation *, llvm::Error>(op)
        // Constants and program identity.
        .Case([&](arith::ConstantOp c) -> llvm::Error {
          Attribute value = c.getValue();
          int64_t n = numElements(shape);
          if (auto splat = dyn_cast<SplatElementsAttr>(value))
            value = splat.getSplatValue<Attribute>();
          if (auto i = dyn_cast<IntegerAttr>(value)) {
            int64_t v = i.getType().isInteger(1) ? i.getValue().getZExtValue()
                                                 : i.getValue().getSExtValue();
            set(result, makeInts(shape, std::vector<int64_t>(n, v)));
          } else if (auto f = dyn_cast<FloatAttr>(value)) {
            set(result, makeFloats(shape, std::vector<double>(
                                              n, f.getValueAsDouble())));
          } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
            if (isa<FloatType>(dense.getElementType())) {
              std::vector<double> v;
              for (const APFloat &x : dense.getValues<APFloat>())
                v.push_back(x.convertToDouble());
              set(result, makeFloats(shape, std::move(v)));
            } else {
              std::vector<int64_t> v;
              bool isBool = dense.getElementType().isInteger(1);
              for (const APInt &x : dense.getValues<APInt>())
                v.push_back(isBool ? x.getZExtValue() : x.getSExtValue());
              set(result, makeInts(shape, std::move(v)));
            }
          } else {
            return unsupported();
          }
          return done();
        })
        .Case([&](ProgramIdOp p) {
          set(result, makeInts({}, {pid[int(p.getAxis())]}));
          return done();
        })
        .Case([&](NumProgramsOp p) {
          set(result, makeInts({}, {grid[int(p.getAxis())]}));
          return done();
        })
        // Tensor construction and shapes.
        .Case([&](MakeRangeOp r) {
          std::vector<int64_t> v;
          for (int64_t i = r.getStart(); i < r.getEnd(); ++i)
            v.push_back(i);
          set(result, makeInts(shape, std::move(v)));
          return done();
        })
        .Case([&](SplatOp s) {
          const RtValue &src = get(s.getSrc());
          set(result, gather(src, shape, [](int64_t) { return 0; }));
          return done();
        })
        .Case([&](BroadcastOp b) {
          auto srcShape = shapeOf(b.getSrc().getType());
          set(result, gather(get(b.getSrc()), shape, [&](int64_t i) {
                SmallVector<int64_t> c = unflatten(i, shape);
                for (size_t d = 0; d < c.size(); ++d)
                  if (srcShape[d] == 1)
                    c[d] = 0;
                return flatten(c, srcShape);
              }));
          return done();
        })
        .Case<ExpandDimsOp, ReshapeOp, ConvertLayoutOp>([&](Operation *) {
          RtValue v = get(op->getOperand(0));
          v.shape = shape;
          set(result, std::move(v));
          return done();
        })
        .Case([&](TransOp t) {
          auto srcShape = shapeOf(t.getSrc().getType());
          ArrayRef<int32_t> order = t.getOrder();
          set(result, gather(get(t.getSrc()), shape, [&](int64_t i) {
                SmallVector<int64_t> c = unflatten(i, shape);
                SmallVector<int64_t> s(c.size());
                for (size_t d = 0; d < c.size(); ++d)
                  s[order[d]] = c[d];
                return flatten(s, srcShape);
              }));
          return done();
        })
        .Case([&](GatherOp g) -> llvm::Error {
          auto srcShape = shapeOf(g.getSrc().getType());
          // Indices are unsigned (as the GPU reads them).
          RtValue index = get(g.getIndices());
          unsigned bits = g.getIndices().getType().getElementTypeBitWidth();
          int axis = g.getAxis();
          for (int64_t &i : index.ints) {
            if (bits < 64)
              i &= (int64_t(1) << bits) - 1;
            if (i < 0 || i >= srcShape[axis])
              return error(op, "gather index " + std::to_string(i) +
                                   " is outside [0, " +
                                   std::to_string(srcShape[axis]) +
                                   ") along axis " + std::to_string(axis));
          }
          set(result, gather(get(g.getSrc()), shape, [&](int64_t i) {
                SmallVector<int64_t> c = unflatten(i, shape);
                c[axis] = index.ints[i];
                return flatten(c, srcShape);
              }));
          return done();
        })
        .Case([&](HistogramOp h) {
          // Values are compared as unsigned, as the GPU does.
          const RtValue &src = get(h.getSrc());
          unsigned bits = h.getSrc().getType().getElementTypeBitWidth();
          std::vector<int64_t> counts(shape[0], 0);
          for (int64_t i = 0; i < src.size(); ++i) {
            bool counted = !h.getMask() || get(h.getMask()).ints[i];
            uint64_t value = src.ints[i];
            if (bits < 64)
              value &= (uint64_t(1) << bits) - 1;
            if (counted && value < counts.size())
              ++counts[value];
          }
          set(result, makeInts(shape, std::move(counts)));
          return done();
        })
        .Case([&](CatOp c) {
          const RtValue &l = get(c.getLhs()), &r = get(c.getRhs());
          RtValue v = l;
          v.ints.insert(v.ints.end(), r.ints.begin(), r.ints.end());
          v.floats.insert(v.floats.end(), r.floats.begin(), r.floats.end());
          v.shape = shape;
          v.origins.clear();
          if (!l.origins.empty() || !r.origins.empty())
            for (int64_t i = 0; i < v.size(); ++i)
              v.origins.push_back(i < l.size() ? l.originAt(i)
                                               : r.originAt(i - l.size()));
          set(result, std::move(v));
          return done();
        })
        .Case([&](JoinOp j) {
          const RtValue &l = get(j.getLhs()), &r = get(j.getRhs());
          RtValue v;
          v.shape = shape;
          v.isFloat = l.isFloat;
          bool pointers = !l.origins.empty() || !r.origins.empty();
          for (int64_t i = 0; i < l.size(); ++i) {
            put(v, scalarAt(l, i));
            put(v, scalarAt(r, i));
            if (pointers)
              v.origins.insert(v.origins.end(), {l.originAt(i), r.originAt(i)});
          }
          set(result, std::move(v));
          return done();
        })
        .Case([&](SplitOp s) {
          RtValue src = get(s.getSrc());
          auto outShape = shapeOf(s.getOutLHS().getType());
          for (int half = 0; half < 2; ++half)
            set(s->getResult(half),
                gather(src, outShape, [&](int64_t i) { return 2 * i + half; }));
          return done();
        })
        .Case([&](AddPtrOp a) {
          int64_t bytes = elementBytes(
              getElementTypeOrSelf(getPointeeType(a.getPtr().getType())));
          const RtValue &p = get(a.getPtr()), &o = get(a.getOffset());
          std::vector<int64_t> v(p.ints.size());
          for (size_t i = 0; i < v.size(); ++i)
            v[i] = p.ints[i] + at(o.ints, i) * bytes;
          RtValue moved = makeInts(shape, std::move(v));
          moved.origins = p.origins; // an offset stays in its buffer
          set(result, std::move(moved));
          return done();
        })
        // Addresses are held as integers already.
        .Case<IntToPtrOp, PtrToIntOp>([&](Operation *cast) {
          set(result, get(cast->getOperand(0)));
          return done();
        })
        // Memory.
        .Case([&](LoadOp l) { return load(l); })
        .Case([&](StoreOp s) { return store(s); })
        .Case([&](AtomicRMWOp a) { return atomicRMW(a); })
        .Case([&](AtomicCASOp a) { return atomicCAS(a); })
        // Shared memory and asynchronous copies.
        .Case<LocalAllocOp, LocalDeallocOp, LocalLoadOp, LocalStoreOp,
              MemDescIndexOp, MemDescSubsliceOp, MemDescTransOp,
              MemDescReinterpretOp, AsyncCopyGlobalToLocalOp,
              AsyncCommitGroupOp, AsyncWaitOp>(
            [&](Operation *) { return interpretSharedMemoryOp(op, *this); })
        // Computation.
        .Case([&](DotOp d) { return dot(d); })
        .Case([&](ReduceOp r) { return reduce(r); })
        .Case([&](ScanOp s) { return scan(s); })
        .Case([&](PrintOp p) {
          print(p);
          return done();
        })
        .Case([&](ScopeRecordOp r) { return scopeRecord(r); })
        // A program's ops run whole: every thread is already here.
        .Case([&](BarrierOp) { return done(); })
        .Case([&](AssertOp a) -> llvm::Error {
          const RtValue &cond = get(a.getCondition());
          for (int64_t i = 0; i < cond.size(); ++i)
            if (!cond.ints[i])
              return error(a, "device assertion failed: " + a.getMessage() +
                                  " (element " + Twine(i) + ", program (" +
                                  Twine(pid[0]) + ", " + Twine(pid[1]) + ", " +
                                  Twine(pid[2]) + "))");
          return done();
        })
        // Integer arithmetic.
        .Case([&](arith::AddIOp) {
          intBinary(op, std::plus<int64_t>());
          return done();
        })
        .Case([&](arith::SubIOp) {
          intBinary(op, std::minus<int64_t>());
          return done();
        })
        .Case([&](arith::MulIOp) {
          intBinary(op, [](int64_t a, int64_t b) {
            return int64_t(uint64_t(a) * uint64_t(b));
          });
          return done();
        })
        .Case<arith::DivSIOp, arith::RemSIOp, arith::DivUIOp, arith::RemUIOp,
              arith::CeilDivSIOp, arith::FloorDivSIOp>(
            [&](Operation *) -> llvm::Error {
              const RtValue &b = get(op->getOperand(1));
              for (int64_t v : b.ints)
                if (v == 0)
                  return error(op, "integer division by zero");
              if (isa<arith::DivSIOp>(op))
                intBinary(op, [](int64_t a, int64_t b) { return a / b; });
              else if (isa<arith::RemSIOp>(op))
                intBinary(op, [](int64_t a, int64_t b) { return a % b; });
              else if (isa<arith::DivUIOp>(op))
                uintBinary(op, [](uint64_t a, uint64_t b) { return a / b; });
              else if (isa<arith::RemUIOp>(op))
                uintBinary(op, [](uint64_t a, uint64_t b) { return a % b; });
              else if (isa<arith::CeilDivSIOp>(op))
                intBinary(op, [](int64_t a, int64_t b) {
                  int64_t q = a / b;
                  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
                });
              else
                intBinary(op, [](int64_t a, int64_t b) {
                  int64_t q = a / b;
                  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
                });
              return done();
            })
        .Case([&](arith::AndIOp) {
          intBinary(op, [](int64_t a, int64_t b) { return a & b; });
          return done();
        })
        .Case([&](arith::OrIOp) {
          intBinary(op, [](int64_t a, int64_t b) { return a | b; });
          return done();
        })
        .Case([&](arith::XOrIOp) {
          intBinary(op, [](int64_t a, int64_t b) { return a ^ b; });
          return done();
        })
        .Case([&](arith::ShLIOp) {
          unsigned bits = bitWidth(op->getResult(0).getType());
          intBinary(op, [bits](int64_t a, int64_t b) {
            return b < 0 || b >= bits ? 0 : int64_t(uint64_t(a) << b);
          });
          return done();
        })
        .Case([&](arith::ShRSIOp) {
          unsigned bits = bitWidth(op->getResult(0).getType());
          intBinary(op, [bits](int64_t a, int64_t b) {
            return b < 0 || b >= bits ? (a < 0 ? -1 : 0) : a >> b;
          });
          return done();
        })
        .Case([&](arith::ShRUIOp) {
          unsigned bits = bitWidth(op->getResult(0).getType());
          uintBinary(op, [bits](uint64_t a, uint64_t b) {
            return b >= bits ? 0 : a >> b;
          });
          return done();
        })
        .Case([&](arith::MaxSIOp) {
          intBinary(op, [](int64_t a, int64_t b) { return std::max(a, b); });
          return done();
        })
        .Case([&](arith::MinSIOp) {
          intBinary(op, [](int64_t a, int64_t b) { return std::min(a, b); });
          return done();
        })
        .Case([&](arith::MaxUIOp) {
          uintBinary(op, [](uint64_t a, uint64_t b) { return std::max(a, b); });
          return done();
        })
        .Case([&](arith::MinUIOp) {
          uintBinary(op, [](uint64_t a, uint64_t b) { return std::min(a, b); });
          return done();
        })
        .Case<arith::MulUIExtendedOp, arith::MulSIExtendedOp>([&](Operation *) {
          // The low and high halves of the double-width product.
          const RtValue &a = get(op->getOperand(0)),
                        &b = get(op->getOperand(1));
          unsigned bits = bitWidth(op->getOperand(0).getType());
          bool isSigned = isa<arith::MulSIExtendedOp>(op);
          std::vector<int64_t> lo(a.ints.size()), hi(a.ints.size());
          for (size_t i = 0; i < lo.size(); ++i) {
            APInt x(bits, asUnsigned(a.ints[i], bits));
            APInt y(bits, asUnsigned(at(b.ints, i), bits));
            APInt full = isSigned ? x.sext(2 * bits) * y.sext(2 * bits)
                                  : x.zext(2 * bits) * y.zext(2 * bits);
            lo[i] = wrap(int64_t(full.trunc(bits).getZExtValue()), bits);
            hi[i] =
                wrap(int64_t(full.lshr(bits).trunc(bits).getZExtValue()), bits);
          }
          set(op->getResult(0), makeInts(shape, std::move(lo)));
          set(op->getResult(1), makeInts(shape, std::move(hi)));
          return done();
        })
        .Case([&](math::AbsIOp) {
          convert(op, false, nullptr, [](const RtValue &a, int64_t i) {
            return std::abs(a.ints[i]);
          });
          return done();
        })
        // Float arithmetic.
        .Case([&](arith::AddFOp) {
          floatBinary(op, std::plus<double>());
          return done();
        })
        .Case([&](arith::SubFOp) {
          floatBinary(op, std::minus<double>());
          return done();
        })
        .Case([&](arith::MulFOp) {
          floatBinary(op, std::multiplies<double>());
          return done();
        })
        .Case([&](arith::DivFOp) {
          floatBinary(op, std::divides<double>());
          return done();
        })
        .Case([&](arith::RemFOp) {
          floatBinary(op, [](double a, double b) { return std::fmod(a, b); });
          return done();
        })
        .Case([&](arith::MaximumFOp) {
          floatBinary(op, [](double a, double b) {
            return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
          });
          return done();
        })
        .Case([&](arith::MinimumFOp) {
          floatBinary(op, [](double a, double b) {
            return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
          });
          return done();
        })
        .Case([&](arith::MaxNumFOp) {
          floatBinary(op, [](double a, double b) { return std::fmax(a, b); });
          return done();
        })
        .Case([&](arith::MinNumFOp) {
          floatBinary(op, [](double a, double b) { return std::fmin(a, b); });
          return done();
        })
        .Case([&](arith::NegFOp) {
          floatUnary(op, [](double a) { return -a; });
          return done();
        })
        .Case([&](math::FmaOp f) {
          const RtValue &a = get(f.getA()), &b = get(f.getB()),
                        &c = get(f.getC());
          auto type = cast<FloatType>(getElementTypeOrSelf(f.getType()));
          std::vector<double> r(a.floats.size());
          for (size_t i = 0; i < r.size(); ++i)
            r[i] =
                roundTo(type, std::fma(a.floats[i], b.floats[i], c.floats[i]));
          set(result, makeFloats(shape, std::move(r)));
          return done();
        })
        .Case<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op,
              math::SqrtOp, math::RsqrtOp, math::SinOp, math::CosOp,
              math::ErfOp, math::FloorOp, math::CeilOp, math::AbsFOp,
              math::TanhOp, math::TruncOp, math::RoundEvenOp, math::Log1pOp,
              math::ExpM1Op, math::TanOp, math::AtanOp, math::AsinOp,
              math::AcosOp, math::SinhOp, math::CoshOp, math::AsinhOp,
              math::AcoshOp, math::AtanhOp, math::ErfcOp, math::Log10Op,
              math::CbrtOp, math::RoundOp>([&](Operation *) {
          std::function<double(double)> fn =
              TypeSwitch<Operation *, std::function<double(double)>>(op)
                  .Case([](math::ExpOp) {
                    return [](double x) { return std::exp(x); };
                  })
                  .Case([](math::Exp2Op) {
                    return [](double x) { return std::exp2(x); };
                  })
                  .Case([](math::LogOp) {
                    return [](double x) { return std::log(x); };
                  })
                  .Case([](math::Log2Op) {
                    return [](double x) { return std::log2(x); };
                  })
                  .Case([](math::SqrtOp) {
                    return [](double x) { return std::sqrt(x); };
                  })
                  .Case([](math::RsqrtOp) {
                    return [](double x) { return 1.0 / std::sqrt(x); };
                  })
                  .Case([](math::SinOp) {
                    return [](double x) { return std::sin(x); };
                  })
                  .Case([](math::CosOp) {
                    return [](double x) { return std::cos(x); };
                  })
                  .Case([](math::ErfOp) {
                    return [](double x) { return std::erf(x); };
                  })
                  .Case([](math::FloorOp) {
                    return [](double x) { return std::floor(x); };
                  })
                  .Case([](math::CeilOp) {
                    return [](double x) { return std::ceil(x); };
                  })
                  .Case([](math::AbsFOp) {
                    return [](double x) { return std::fabs(x); };
                  })
                  .Case([](math::TanhOp) {
                    return [](double x) { return std::tanh(x); };
                  })
                  .Case([](math::TruncOp) {
                    return [](double x) { return std::trunc(x); };
                  })
                  .Case([](math::RoundEvenOp) {
                    return [](double x) { return std::nearbyint(x); };
                  })
                  .Case([](math::Log1pOp) {
                    return [](double x) { return std::log1p(x); };
                  })
                  .Case([](math::ExpM1Op) {
                    return [](double x) { return std::expm1(x); };
                  })
                  .Case([](math::TanOp) {
                    return [](double x) { return std::tan(x); };
                  })
                  .Case([](math::AtanOp) {
                    return [](double x) { return std::atan(x); };
                  })
                  .Case([](math::AsinOp) {
                    return [](double x) { return std::asin(x); };
                  })
                  .Case([](math::AcosOp) {
                    return [](double x) { return std::acos(x); };
                  })
                  .Case([](math::SinhOp) {
                    return [](double x) { return std::sinh(x); };
                  })
                  .Case([](math::CoshOp) {
                    return [](double x) { return std::cosh(x); };
                  })
                  .Case([](math::AsinhOp) {
                    return [](double x) { return std::asinh(x); };
                  })
                  .Case([](math::AcoshOp) {
                    return [](double x) { return std::acosh(x); };
                  })
                  .Case([](math::AtanhOp) {
                    return [](double x) { return std::atanh(x); };
                  })
                  .Case([](math::ErfcOp) {
                    return [](double x) { return std::erfc(x); };
                  })
                  .Case([](math::Log10Op) {
                    return [](double x) { return std::log10(x); };
                  })
                  .Case([](math::CbrtOp) {
                    return [](double x) { return std::cbrt(x); };
                  })
                  .Case([](math::RoundOp) {
                    return [](double x) { return std::round(x); };
                  });
          floatUnary(op, fn);
          return done();
        })
        .Case([&](math::PowFOp) {
          floatBinary(op, [](double a, double b) { return std::pow(a, b); });
          return done();
        })
        .Case([&](math::Atan2Op) {
          floatBinary(op, [](double a, double b) { return std::atan2(a, b); });
          return done();
        })
        // Comparisons and selection.
        .Case([&](arith::CmpIOp c) {
          unsigned bits = bitWidth(c.getLhs().getType());
          auto pred = c.getPredicate();
          intBinary(op, [&](int64_t a, int64_t b) -> int64_t {
            // Booleans are held as 0 and 1: only the low bits count.
            return arith::applyCmpPredicate(
                pred, APInt(bits, a, /*isSigned=*/true, /*implicitTrunc=*/true),
                APInt(bits, b, /*isSigned=*/true, /*implicitTrunc=*/true));
          });
          return done();
        })
        .Case([&](arith::CmpFOp c) {
          const RtValue &a = get(c.getLhs()), &b = get(c.getRhs());
          auto type = cast<FloatType>(getElementTypeOrSelf(c.getLhs()));
          std::vector<int64_t> r(a.floats.size());
          for (size_t i = 0; i < r.size(); ++i)
            r[i] = arith::applyCmpPredicate(
                c.getPredicate(), APFloat(a.floats[i]), APFloat(b.floats[i]));
          (void)type;
          set(result, makeInts(shape, std::move(r)));
          return done();
        })
        .Case([&](arith::SelectOp s) {
          const RtValue &c = get(s.getCondition()), &t = get(s.getTrueValue()),
                        &f = get(s.getFalseValue());
          RtValue v;
          v.shape = shape;
          v.isFloat = t.isFloat;
          int64_t n = t.size();
          bool pointers = !t.origins.empty() || !f.origins.empty();
          for (int64_t i = 0; i < n; ++i) {
            const RtValue &chosen = at(c.ints, i) ? t : f;
            put(v, scalarAt(chosen, i));
            if (pointers)
              v.origins.push_back(chosen.originAt(i));
          }
          set(result, std::move(v));
          return done();
        })
        // Casts.
        .Case<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(
            [&](Operation *) {
              convert(op, false, nullptr,
                      [](const RtValue &a, int64_t i) { return a.ints[i]; });
              return done();
            })
        .Case<arith::ExtUIOp, arith::IndexCastUIOp>([&](Operation *) {
          unsigned bits = bitWidth(op->getOperand(0).getType());
          convert(op, false, nullptr, [bits](const RtValue &a, int64_t i) {
            return int64_t(asUnsigned(a.ints[i], bits));
          });
          return done();
        })
        .Case([&](arith::SIToFPOp) {
          convert(
              op, true,
              [](const RtValue &a, int64_t i) { return double(a.ints[i]); },
              nullptr);
          return done();
        })
        .Case([&](arith::UIToFPOp) {
          unsigned bits = bitWidth(op->getOperand(0).getType());
          convert(
              op, true,
              [bits](const RtValue &a, int64_t i) {
                return double(asUnsigned(a.ints[i], bits));
              },
              nullptr);
          return done();
        })
        .Case<arith::FPToSIOp, arith::FPToUIOp>([&](Operation *) {
          unsigned bits = bitWidth(op->getResult(0).getType());
          bool isSigned = isa<arith::FPToSIOp>(op);
          convert(op, false, nullptr, [&](const RtValue &a, int64_t i) {
            return floatToInt(a.floats[i], bits, isSigned);
          });
          return done();
        })
        .Case<arith::ExtFOp, arith::TruncFOp>([&](Operation *) {
          convert(
              op, true, [](const RtValue &a, int64_t i) { return a.floats[i]; },
              nullptr);
          return done();
        })
        .Case([&](arith::BitcastOp b) -> llvm::Error {
          Type from = getElementTypeOrSelf(b.getIn().getType());
          Type to = getElementTypeOrSelf(b.getType());
          unsigned bits = bitWidth(from);
          const RtValue &a = get(b.getIn());
          auto rawOf = [&](int64_t i) -> uint64_t {
            if (auto f = dyn_cast<FloatType>(from)) {
              APFloat ap(a.floats[i]);
              bool lost;
              ap.convert(semanticsOf(f), APFloat::rmNearestTiesToEven, &lost);
              return ap.bitcastToAPInt().getZExtValue();
            }
            return asUnsigned(a.ints[i], bits);
          };
          RtValue v;
          v.shape = shape;
          v.isFloat = isa<FloatType>(to);
          for (int64_t i = 0; i < a.size(); ++i) {
            uint64_t raw = rawOf(i);
            if (auto f = dyn_cast<FloatType>(to)) {
              APFloat ap(semanticsOf(f), APInt(bits, raw));
              bool lost;
              ap.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                         &lost);
              v.floats.push_back(ap.convertToDouble());
            } else {
              v.ints.push_back(wrap(int64_t(raw), bits));
            }
          }
          set(result, std::move(v));
          return done();
        })
        // Structured control flow and calls.
        .Case([&](scf::ForOp f) { return forLoop(f); })
        .Case([&](scf::IfOp i) { return ifOp(i); })
        .Case([&](scf::WhileOp w) { return whileLoop(w); })
        .Case([&](func::CallOp c) { return call(c); })
        .Case([&](InlineAsmOp) {
          return error(op, "inline_asm_elementwise runs GPU assembly, which "
                           "the host interpreter cannot execute: run the "
                           "kernel on a GPU");
        })
        .Default([&](Operation *) { return unsupported(); });
  }

  ArrayRef<HostBuffer> buffers;
  std::array<int64_t, 3> grid;
  std::array<int64_t, 3> pid = {0, 0, 0};
  /// The program's records of scopes so far (tile.scope_record).
  int64_t scopeRecords = 0;
  llvm::raw_ostream &out;
  DenseMap<Value, RtValue> values;
};
} // namespace

llvm::Error mlir::tile::interpretKernel(Operation *kernelOp,
                                        std::array<int64_t, 3> grid,
                                        ArrayRef<HostArg> args,
                                        ArrayRef<HostBuffer> buffers,
                                        llvm::raw_ostream &out) {
  auto kernel = dyn_cast<func::FuncOp>(kernelOp);
  if (!kernel || kernel.isExternal())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the interpreter runs a func.func with a "
                                   "body");
  if (args.size() != kernel.getNumArguments())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "kernel '" + kernel.getSymName() +
                                       "' takes " +
                                       Twine(kernel.getNumArguments()) +
                                       " arguments, got " + Twine(args.size()));
  for (int64_t g : grid)
    if (g < 0)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the grid must not be negative");
  KernelInterpreter interpreter(buffers, grid, out);
  for (int64_t z = 0; z < grid[2]; ++z)
    for (int64_t y = 0; y < grid[1]; ++y)
      for (int64_t x = 0; x < grid[0]; ++x)
        if (llvm::Error err = interpreter.runProgram(kernel, args, {x, y, z}))
          return err;
  return llvm::Error::success();
}
