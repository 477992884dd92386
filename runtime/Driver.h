//===- Driver.h - one interface over the GPU drivers ----------------------===//
//
// Driver -> Module (a loaded binary) -> Kernel -> launch. Vendor libraries
// are opened with dlopen at first use, so one build runs on machines with
// either, both or neither; a missing library is an error value, not a link
// failure. This header includes only the standard library, for the Python
// bindings.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_DRIVER_H
#define TESSERA_RUNTIME_DRIVER_H

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlir::tile::runtime {

/// A failure reported by a driver, with the driver's own words.
class DriverError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct DeviceInfo {
  std::string name;
  /// "sm_90", "gfx942"...
  std::string arch;
  int multiprocessors = 0;
  int warpSize = 0;
  uint64_t totalMemory = 0;
  /// Shared memory a block may use after opting in (above 48 KiB on NVIDIA).
  int maxSharedPerBlock = 0;
  /// 32-bit registers a block may use.
  int maxRegistersPerBlock = 0;
  /// Peak clocks, in kHz, and the memory bus width, in bits.
  int clockRate = 0, memoryClockRate = 0, memoryBusWidth = 0;
};

/// A tiled view of a tensor in global memory, for bulk (TMA) copies: what
/// a CUtensorMap encodes.
struct TensorMapRequest {
  /// The element type, by Triton's name: "fp16", "bf16", "fp32", "i8"...
  std::string dtype;
  uint64_t address = 0;
  /// Elements per dimension, outermost first.
  std::vector<uint64_t> shape;
  /// Bytes between consecutive indices of each dimension but the
  /// innermost (whose elements are adjacent), outermost first.
  std::vector<uint64_t> strides;
  /// The box a copy moves, in elements per dimension, outermost first.
  std::vector<uint32_t> box;
  /// The shared-memory swizzle, in bytes: 0, 32, 64 or 128.
  unsigned swizzle = 0;
  /// Elements outside the tensor read as NaN (else zero).
  bool nanPadding = false;

  bool operator==(const TensorMapRequest &other) const {
    return dtype == other.dtype && address == other.address &&
           shape == other.shape && strides == other.strides &&
           box == other.box && swizzle == other.swizzle &&
           nanPadding == other.nanPadding;
  }
};

/// A tensor map, as kernels take it (by value).
struct alignas(64) TensorMap {
  unsigned char bytes[128];
};

/// What a loaded kernel uses per thread.
struct KernelResources {
  int registers = 0;
  /// Local memory, where registers spill.
  int localBytes = 0;
};

class Kernel {
public:
  virtual ~Kernel() = default;
  /// What the kernel uses per thread, as loaded.
  virtual KernelResources resources() = 0;
  /// Launches on `stream` (0: the default stream) with `threadsPerBlock`
  /// threads and `sharedBytes` of dynamic shared memory. `args[i]` points at
  /// the value of argument i. A `cooperative` launch has every block of the
  /// grid resident at once (or fails saying so), for kernels that wait on
  /// each other across the grid.
  virtual void launch(std::array<unsigned, 3> grid, unsigned threadsPerBlock,
                      unsigned sharedBytes, void **args, void *stream,
                      bool cooperative) = 0;
};

class Module {
public:
  virtual ~Module() = default;
  /// The kernel `name`; throws DriverError when the module has none.
  virtual std::unique_ptr<Kernel> kernel(const std::string &name) = 0;
};

class Driver {
public:
  virtual ~Driver() = default;

  /// The CUDA driver, opened on first use (libcuda.so.1, or the library
  /// TESSERA_CUDA_LIBRARY names). Throws DriverError saying why when it
  /// cannot be used.
  static Driver &cuda();
  /// The HIP runtime, opened on first use (libamdhip64.so, or the library
  /// TESSERA_HIP_LIBRARY names). Throws DriverError saying why when it
  /// cannot be used.
  static Driver &hip();
  /// The driver of `platform`: "cuda", "hip" or one a plugin registered
  /// ("cpu"). Throws DriverError saying why where it cannot be used.
  static Driver &named(const std::string &platform);
  /// Makes `driver`, which lives as long as the process, the one of
  /// `platform` (a backend plugin's, of its backend's name).
  static void registerDriver(const std::string &platform, Driver &driver);
  /// The platforms plugins registered drivers of.
  static std::vector<std::string> registeredPlatforms();

  virtual std::string name() const = 0;
  /// Whether kernels run on host memory (the CPU backend plugin's driver):
  /// host arrays are passed as they are, not staged.
  virtual bool sharesHostMemory() const { return false; }
  virtual int deviceCount() = 0;
  virtual DeviceInfo deviceInfo(int device) = 0;
  /// Makes `device` current in this thread (its primary context, which
  /// PyTorch shares).
  virtual void setDevice(int device) = 0;

  /// Loads a binary (cubin, HSACO) or assembly (PTX) for the current
  /// device.
  virtual std::unique_ptr<Module> loadModule(const std::string &image) = 0;

  // Memory and synchronisation, for tests and benchmarks.
  virtual uint64_t allocate(size_t bytes) = 0;
  virtual void release(uint64_t address) = 0;
  virtual void copyToDevice(uint64_t dst, const void *src, size_t bytes) = 0;
  virtual void copyToHost(void *dst, uint64_t src, size_t bytes) = 0;
  virtual void synchronize() = 0;

  // Timing, for do_bench: events recorded on a stream, and an asynchronous
  // fill (to flush the L2 cache between runs). An event is an opaque
  // handle, destroyed by destroyEvent.
  virtual uint64_t createEvent() = 0;
  virtual void recordEvent(uint64_t event, void *stream) = 0;
  /// Milliseconds from `start` to `end`, once `end` has happened.
  virtual float elapsedMilliseconds(uint64_t start, uint64_t end) = 0;
  virtual void destroyEvent(uint64_t event) = 0;
  /// Sets `words` 32-bit words at `address` to `value`, on `stream`.
  virtual void fill(uint64_t address, uint32_t value, size_t words,
                    void *stream) = 0;

  /// Encodes `request` for the bulk copies of a kernel; throws DriverError
  /// saying why where the driver has no tensor maps or refuses it.
  virtual TensorMap encodeTensorMap(const TensorMapRequest &request) {
    throw DriverError("the " + name() + " driver has no tensor maps (for " +
                      request.dtype + " bulk copies)");
  }
};

} // namespace mlir::tile::runtime

#endif // TESSERA_RUNTIME_DRIVER_H
