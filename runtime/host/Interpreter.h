//===- Interpreter.h - execute tile IR on the host ------------------------===//
//
// The host interpreter runs a kernel in `tile` IR one program instance at a
// time over a launch grid, on memory the caller owns (numpy arrays, torch CPU
// tensors). It is how kernels are debugged without a GPU and the reference
// GPU backends are checked against. Every access is checked against the
// buffers the caller declared: a pointer derived from an argument stays in
// that argument's buffer, stores go to writable buffers only, and anything
// else is an error naming the kernel's source line, never an access to stray
// memory.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_HOST_INTERPRETER_H
#define TESSERA_RUNTIME_HOST_INTERPRETER_H

#include "runtime/host/HostModule.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::tile {

/// Runs `kernel` (a func.func in tile IR) for every program id of `grid`.
/// Device prints go to `out`. Fails, with the kernel's source location, on
/// an out-of-bounds access, a store to a read-only buffer, a failed device
/// assert, or an op the interpreter does not know.
llvm::Error interpretKernel(Operation *kernel, std::array<int64_t, 3> grid,
                            llvm::ArrayRef<HostArg> args,
                            llvm::ArrayRef<HostBuffer> buffers,
                            llvm::raw_ostream &out = llvm::outs());

} // namespace mlir::tile

#endif // TESSERA_RUNTIME_HOST_INTERPRETER_H
