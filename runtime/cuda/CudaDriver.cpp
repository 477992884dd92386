//===- CudaDriver.cpp - the CUDA driver, opened with dlopen ---------------===//
//
// Declares the few driver API types and entry points it uses instead of
// including cuda.h, so that building needs no CUDA toolkit and running needs
// libcuda only where a GPU is used.
//
//===----------------------------------------------------------------------===//

#include "runtime/Driver.h"
#include "runtime/Library.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

using namespace mlir::tile::runtime;

namespace {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUevent = void *;

constexpr int kAttrWarpSize = 10;
constexpr int kAttrMultiprocessors = 16;
constexpr int kAttrCapabilityMajor = 75;
constexpr int kAttrCapabilityMinor = 76;
constexpr int kAttrMaxSharedOptin = 97;
constexpr int kAttrMaxRegistersPerBlock = 12;
constexpr int kAttrClockRate = 13;
constexpr int kAttrMemoryClockRate = 36;
constexpr int kAttrMemoryBusWidth = 37;
constexpr int kFuncAttrLocalBytes = 3;
constexpr int kFuncAttrRegisters = 4;
constexpr int kFuncAttrMaxDynamicShared = 8;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSize = 6;
constexpr unsigned kStaticSharedLimit = 48 * 1024;

/// The entry points, resolved from the library.
struct Api {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxGetDevice)(CUdevice *);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuLaunchCooperativeKernel)(CUfunction, unsigned, unsigned,
                                        unsigned, unsigned, unsigned, unsigned,
                                        unsigned, CUstream, void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  /// CUDA 12 and later; null before.
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *,
                                     const uint64_t *, const uint64_t *,
                                     const unsigned *, const unsigned *, int,
                                     int, int, int);
};

class CudaDriver;

class CudaKernel : public Kernel {
public:
  CudaKernel(CudaDriver &driver, CUcontext context, CUfunction function,
             std::string name)
      : driver(driver), context(context), function(function),
        name(std::move(name)) {}
  void launch(std::array<unsigned, 3> grid, unsigned threadsPerBlock,
              unsigned sharedBytes, void **args, void *stream,
              bool cooperative) override;
  KernelResources resources() override;

private:
  CudaDriver &driver;
  /// The context the kernel was loaded in, made current for its launches.
  CUcontext context;
  CUfunction function;
  std::string name;
  /// Dynamic shared memory this kernel was allowed so far.
  unsigned sharedAllowed = kStaticSharedLimit;
};

class CudaModule : public Module {
public:
  CudaModule(CudaDriver &driver, CUcontext context, CUmodule module)
      : driver(driver), context(context), module(module) {}
  ~CudaModule() override;
  std::unique_ptr<Kernel> kernel(const std::string &name) override;

private:
  CudaDriver &driver;
  CUcontext context;
  CUmodule module;
};

class CudaDriver : public Driver {
public:
  explicit CudaDriver(const Api &api) : api(api) {}

  std::string name() const override { return "cuda"; }

  /// Throws DriverError naming the call and the driver's message.
  void check(CUresult result, const char *call) const {
    if (result == 0)
      return;
    const char *name = "?", *text = "?";
    api.cuGetErrorName(result, &name);
    api.cuGetErrorString(result, &text);
    throw DriverError(std::string(call) + " failed: " + name + " (" + text +
                      ")");
  }

  int deviceCount() override {
    int count = 0;
    check(api.cuDeviceGetCount(&count), "cuDeviceGetCount");
    return count;
  }

  CUdevice device(int index) {
    int count = deviceCount();
    if (index < 0 || index >= count)
      throw DriverError("no CUDA device " + std::to_string(index) + " (" +
                        std::to_string(count) + " present)");
    CUdevice device;
    check(api.cuDeviceGet(&device, index), "cuDeviceGet");
    return device;
  }

  DeviceInfo deviceInfo(int index) override {
    CUdevice d = device(index);
    DeviceInfo info;
    char name[256] = {0};
    check(api.cuDeviceGetName(name, sizeof(name) - 1, d), "cuDeviceGetName");
    info.name = name;
    int major = 0, minor = 0;
    check(api.cuDeviceGetAttribute(&major, kAttrCapabilityMajor, d),
          "cuDeviceGetAttribute");
    check(api.cuDeviceGetAttribute(&minor, kAttrCapabilityMinor, d),
          "cuDeviceGetAttribute");
    info.arch = "sm_" + std::to_string(major * 10 + minor);
    check(api.cuDeviceGetAttribute(&info.multiprocessors, kAttrMultiprocessors,
                                   d),
          "cuDeviceGetAttribute");
    check(api.cuDeviceGetAttribute(&info.warpSize, kAttrWarpSize, d),
          "cuDeviceGetAttribute");
    check(api.cuDeviceGetAttribute(&info.maxSharedPerBlock, kAttrMaxSharedOptin,
                                   d),
          "cuDeviceGetAttribute");
    for (auto [value, attribute] :
         {std::pair(&info.maxRegistersPerBlock, kAttrMaxRegistersPerBlock),
          std::pair(&info.clockRate, kAttrClockRate),
          std::pair(&info.memoryClockRate, kAttrMemoryClockRate),
          std::pair(&info.memoryBusWidth, kAttrMemoryBusWidth)})
      check(api.cuDeviceGetAttribute(value, attribute, d),
            "cuDeviceGetAttribute");
    size_t bytes = 0;
    check(api.cuDeviceTotalMem(&bytes, d), "cuDeviceTotalMem");
    info.totalMemory = bytes;
    return info;
  }

  void setDevice(int index) override {
    CUcontext context;
    check(api.cuDevicePrimaryCtxRetain(&context, device(index)),
          "cuDevicePrimaryCtxRetain");
    check(api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  }

  /// Kernels run in the current context; without one, device 0's primary
  /// context (the one PyTorch uses) becomes current.
  void ensureContext() {
    CUcontext current = nullptr;
    check(api.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
    if (!current)
      setDevice(0);
  }

  std::unique_ptr<Module> loadModule(const std::string &image) override {
    ensureContext();
    // PTX must end with a NUL; a cubin is passed as it is.
    std::string data = image;
    data.push_back('\0');
    char log[8192] = {0};
    int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
    CUmodule module;
    CUresult result =
        api.cuModuleLoadDataEx(&module, data.data(), 2, options, values);
    if (result != 0) {
      try {
        check(result, "cuModuleLoadDataEx");
      } catch (const DriverError &e) {
        throw DriverError(std::string(e.what()) +
                          (log[0] ? std::string("\n") + log : ""));
      }
    }
    CUcontext context = nullptr;
    check(api.cuCtxGetCurrent(&context), "cuCtxGetCurrent");
    return std::make_unique<CudaModule>(*this, context, module);
  }

  uint64_t allocate(size_t bytes) override {
    ensureContext();
    CUdeviceptr address;
    check(api.cuMemAlloc(&address, bytes), "cuMemAlloc");
    return address;
  }
  void release(uint64_t address) override {
    check(api.cuMemFree(address), "cuMemFree");
  }
  void copyToDevice(uint64_t dst, const void *src, size_t bytes) override {
    check(api.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
  }
  void copyToHost(void *dst, uint64_t src, size_t bytes) override {
    check(api.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
  }
  void synchronize() override {
    check(api.cuCtxSynchronize(), "cuCtxSynchronize");
  }

  uint64_t createEvent() override {
    ensureContext();
    CUevent event;
    check(api.cuEventCreate(&event, 0), "cuEventCreate");
    return reinterpret_cast<uint64_t>(event);
  }
  void recordEvent(uint64_t event, void *stream) override {
    check(api.cuEventRecord(reinterpret_cast<CUevent>(event),
                            static_cast<CUstream>(stream)),
          "cuEventRecord");
  }
  float elapsedMilliseconds(uint64_t start, uint64_t end) override {
    check(api.cuEventSynchronize(reinterpret_cast<CUevent>(end)),
          "cuEventSynchronize");
    float ms = 0;
    check(api.cuEventElapsedTime(&ms, reinterpret_cast<CUevent>(start),
                                 reinterpret_cast<CUevent>(end)),
          "cuEventElapsedTime");
    return ms;
  }
  void destroyEvent(uint64_t event) override {
    check(api.cuEventDestroy(reinterpret_cast<CUevent>(event)),
          "cuEventDestroy");
  }
  void fill(uint64_t address, uint32_t value, size_t words,
            void *stream) override {
    check(api.cuMemsetD32Async(address, value, words,
                               static_cast<CUstream>(stream)),
          "cuMemsetD32Async");
  }

  TensorMap encodeTensorMap(const TensorMapRequest &request) override {
    if (!api.cuTensorMapEncodeTiled)
      throw DriverError("this CUDA driver has no cuTensorMapEncodeTiled: "
                        "TMA copies need CUDA 12 or later");
    // CUtensorMapDataType, by element type.
    static const std::pair<const char *, int> kTypes[] = {
        {"fp16", 6}, {"bf16", 9},    {"fp32", 7}, {"i8", 0},
        {"u8", 0},   {"fp8e4nv", 0}, {"fp8e5", 0}, {"i16", 1},
        {"i32", 3}};
    int type = -1;
    for (auto [dtype, code] : kTypes)
      if (request.dtype == dtype)
        type = code;
    unsigned rank = request.shape.size();
    // CUtensorMapSwizzle: none, 32, 64, 128 bytes.
    int swizzle = request.swizzle == 128  ? 3
                  : request.swizzle == 64 ? 2
                  : request.swizzle == 32 ? 1
                                          : 0;
    if (type < 0 || rank < 1 || rank > 5 ||
        request.strides.size() + 1 != rank || request.box.size() != rank)
      throw DriverError("cannot describe a tensor map of " + request.dtype +
                        " with " + std::to_string(rank) + " dimensions");
    // The driver takes every list innermost first.
    uint64_t shape[5], strides[4];
    unsigned box[5], elementStrides[5];
    for (unsigned d = 0; d < rank; ++d) {
      shape[d] = request.shape[rank - 1 - d];
      box[d] = request.box[rank - 1 - d];
      elementStrides[d] = 1;
      if (d + 1 < rank)
        strides[d] = request.strides[rank - 2 - d];
    }
    TensorMap map;
    CUresult result = api.cuTensorMapEncodeTiled(
        &map, type, rank, reinterpret_cast<void *>(request.address), shape,
        strides, box, elementStrides, /*interleave=*/0, swizzle,
        /*l2Promotion=128B*/ 2, /*oobFill=*/request.nanPadding ? 1 : 0);
    if (result != 0) {
      std::string what = "a tensor map of " + request.dtype + " at 0x";
      char address[17];
      std::snprintf(address, sizeof address, "%llx",
                    static_cast<unsigned long long>(request.address));
      what += address;
      auto list = [&](const auto &values) {
        std::string text;
        for (auto v : values)
          text += (text.empty() ? "" : ", ") + std::to_string(v);
        return "[" + text + "]";
      };
      what += ", shape " + list(request.shape) + ", byte strides " +
              list(request.strides) + ", box " + list(request.box) +
              " (bases and strides must be multiples of 16 bytes)";
      check(result, ("cuTensorMapEncodeTiled(" + what + ")").c_str());
    }
    return map;
  }

  Api api;
};

KernelResources CudaKernel::resources() {
  KernelResources used;
  driver.check(driver.api.cuFuncGetAttribute(&used.registers,
                                             kFuncAttrRegisters, function),
               "cuFuncGetAttribute");
  driver.check(driver.api.cuFuncGetAttribute(&used.localBytes,
                                             kFuncAttrLocalBytes, function),
               "cuFuncGetAttribute");
  return used;
}

void CudaKernel::launch(std::array<unsigned, 3> grid, unsigned threadsPerBlock,
                        unsigned sharedBytes, void **args, void *stream,
                        bool cooperative) {
  CUcontext current = nullptr;
  driver.api.cuCtxGetCurrent(&current);
  if (current != context)
    driver.check(driver.api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  // Above 48 KiB, dynamic shared memory must be allowed explicitly, up to
  // what the device has for a block.
  if (sharedBytes > sharedAllowed) {
    CUdevice device;
    driver.check(driver.api.cuCtxGetDevice(&device), "cuCtxGetDevice");
    int limit = 0;
    driver.check(driver.api.cuDeviceGetAttribute(&limit, kAttrMaxSharedOptin,
                                                 device),
                 "cuDeviceGetAttribute");
    if (sharedBytes > static_cast<unsigned>(limit))
      throw DriverError("out of resources: kernel '" + name + "' needs " +
                        std::to_string(sharedBytes) +
                        " bytes of shared memory, the GPU has " +
                        std::to_string(limit) +
                        " for a block (smaller blocks or fewer num_stages "
                        "need less)");
    driver.check(driver.api.cuFuncSetAttribute(
                     function, kFuncAttrMaxDynamicShared, sharedBytes),
                 "cuFuncSetAttribute");
    sharedAllowed = sharedBytes;
  }
  if (cooperative) {
    driver.check(driver.api.cuLaunchCooperativeKernel(
                     function, grid[0], grid[1], grid[2], threadsPerBlock, 1, 1,
                     sharedBytes, stream, args),
                 "cuLaunchCooperativeKernel");
    return;
  }
  driver.check(driver.api.cuLaunchKernel(function, grid[0], grid[1], grid[2],
                                         threadsPerBlock, 1, 1, sharedBytes,
                                         stream, args, nullptr),
               "cuLaunchKernel");
}

CudaModule::~CudaModule() { driver.api.cuModuleUnload(module); }

std::unique_ptr<Kernel> CudaModule::kernel(const std::string &name) {
  CUfunction function;
  driver.check(driver.api.cuModuleGetFunction(&function, module, name.c_str()),
               ("cuModuleGetFunction(" + name + ")").c_str());
  return std::make_unique<CudaKernel>(driver, context, function, name);
}

/// Opens the library and resolves every entry point, or says why not.
std::unique_ptr<CudaDriver> openCuda(std::string &whyNot) {
  const char *override = std::getenv("TESSERA_CUDA_LIBRARY");
  std::string path = override ? override : "libcuda.so.1";
  Library library(path);
  if (!library.opened()) {
    whyNot = "the CUDA driver library " + path + " cannot be opened (" +
             library.whyNot() +
             "); is there an NVIDIA GPU and driver on this machine?";
    return nullptr;
  }
  Api api;
  library.bind(api.cuInit, "cuInit");
  library.bind(api.cuGetErrorName, "cuGetErrorName");
  library.bind(api.cuGetErrorString, "cuGetErrorString");
  library.bind(api.cuDeviceGetCount, "cuDeviceGetCount");
  library.bind(api.cuDeviceGet, "cuDeviceGet");
  library.bind(api.cuDeviceGetName, "cuDeviceGetName");
  library.bind(api.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  library.bind(api.cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  library.bind(api.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  library.bind(api.cuCtxSetCurrent, "cuCtxSetCurrent");
  library.bind(api.cuCtxGetCurrent, "cuCtxGetCurrent");
  library.bind(api.cuCtxGetDevice, "cuCtxGetDevice");
  library.bind(api.cuCtxSynchronize, "cuCtxSynchronize");
  library.bind(api.cuModuleLoadDataEx, "cuModuleLoadDataEx");
  library.bind(api.cuModuleUnload, "cuModuleUnload");
  library.bind(api.cuModuleGetFunction, "cuModuleGetFunction");
  library.bind(api.cuFuncSetAttribute, "cuFuncSetAttribute");
  library.bind(api.cuFuncGetAttribute, "cuFuncGetAttribute");
  library.bind(api.cuLaunchKernel, "cuLaunchKernel");
  library.bind(api.cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel");
  library.bind(api.cuMemAlloc, "cuMemAlloc_v2");
  library.bind(api.cuMemFree, "cuMemFree_v2");
  library.bind(api.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  library.bind(api.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  library.bind(api.cuEventCreate, "cuEventCreate");
  library.bind(api.cuEventRecord, "cuEventRecord");
  library.bind(api.cuEventSynchronize, "cuEventSynchronize");
  library.bind(api.cuEventElapsedTime, "cuEventElapsedTime");
  library.bind(api.cuEventDestroy, "cuEventDestroy_v2");
  library.bind(api.cuMemsetD32Async, "cuMemsetD32Async");
  library.bindIfPresent(api.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
  if (!library.complete()) {
    whyNot = library.whyNot() + "; the driver is too old";
    return nullptr;
  }
  CUresult result = api.cuInit(0);
  if (result != 0) {
    const char *text = "?";
    api.cuGetErrorString(result, &text);
    whyNot = std::string("cuInit failed: ") + text;
    return nullptr;
  }
  return std::make_unique<CudaDriver>(api);
}
} // namespace

Driver &Driver::cuda() {
  static std::once_flag once;
  static std::unique_ptr<CudaDriver> driver;
  static std::string whyNot;
  std::call_once(once, [] { driver = openCuda(whyNot); });
  if (!driver)
    throw DriverError(whyNot);
  return *driver;
}
