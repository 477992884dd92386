//===- Tracer.h - kernels' device time from the vendor's activity tracing -===//
//
// CUPTI (NVIDIA) and roctracer (AMD) report every kernel that runs on the
// GPU, whichever library launched it (Tessera, cuBLAS, PyTorch), with its
// start and end on the device. A tracer is opened with dlopen at first use,
// like the drivers. The launching thread names what a launch belongs to (an
// "op", the profiler's number for a scope or a launch of its own) before
// launching; the tracer keeps that op with each kernel it reports. This
// header includes only the standard library, for the Python bindings.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_TRACER_H
#define TESSERA_RUNTIME_TRACER_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tile::runtime {

/// A kernel that ran, as the tracer saw it.
struct KernelActivity {
  /// Demangled.
  std::string name;
  /// Nanoseconds on the tracer's clock (Tracer::timestamp).
  uint64_t start = 0, end = 0;
  /// The device's index in its runtime (CUDA, HIP).
  int device = 0;
  uint64_t stream = 0;
  /// The op the launching thread had set when it launched (0: none).
  uint64_t op = 0;
};

class Tracer {
public:
  virtual ~Tracer() = default;

  /// CUPTI, from the first of `libraries` (paths or names for dlopen) that
  /// opens. Throws DriverError saying why where none can be used.
  static Tracer &cupti(const std::vector<std::string> &libraries);
  /// roctracer, from the first of `libraries` that opens. Throws
  /// DriverError saying why where none can be used.
  static Tracer &roctracer(const std::vector<std::string> &libraries);

  /// "cupti", "roctracer".
  virtual std::string name() const = 0;
  /// The library it was opened from.
  virtual const std::string &library() const = 0;

  /// Starts reporting the kernels launched from now on. Throws DriverError
  /// where the vendor refuses (another profiler attached, for one).
  virtual void start() = 0;
  /// Stops reporting; what was reported stays for flush().
  virtual void stop() = 0;
  /// The kernels reported since the last flush that have finished, in no
  /// particular order; the caller first waits for the devices.
  virtual std::vector<KernelActivity> flush() = 0;
  /// Now, on the clock of the activities' times.
  virtual uint64_t timestamp() = 0;

  /// Kernels launched from this thread from now on belong to `op`.
  static void setOp(uint64_t op);
};

} // namespace mlir::tile::runtime

#endif // TESSERA_RUNTIME_TRACER_H
