//===- Runtime.cpp - the C interface of Tessera's runtime ----------------===//

#include "runtime/capi/tessera_runtime.h"

#include "runtime/Driver.h"

#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using mlir::tile::runtime::Driver;
using mlir::tile::runtime::Kernel;
using mlir::tile::runtime::Module;

struct tessera_kernel {
  std::unique_ptr<Kernel> kernel;
};

struct tessera_module {
  std::unique_ptr<Module> module;
  std::vector<std::unique_ptr<tessera_kernel>> kernels;
};

namespace {

thread_local std::string lastError;

/// Runs `body`, turning a C++ exception into -1 and the last error.
template <typename Body> int guarded(Body body) {
  try {
    body();
    return 0;
  } catch (const std::exception &e) {
    lastError = e.what();
  } catch (...) {
    lastError = "unknown error";
  }
  return -1;
}

Driver &driverOf(tessera_platform platform) {
  if (platform == TESSERA_PLATFORM_HIP)
    return Driver::hip();
  if (platform == TESSERA_PLATFORM_CUDA)
    return Driver::cuda();
  throw std::invalid_argument("unknown platform " +
                              std::to_string(static_cast<int>(platform)));
}

/// Fails where a required pointer argument is null.
void require(const void *pointer, const char *what) {
  if (!pointer)
    throw std::invalid_argument(std::string(what) + " is NULL");
}

} // namespace

extern "C" {

const char *tessera_last_error(void) { return lastError.c_str(); }

int tessera_device_count(tessera_platform platform, int *count) {
  return guarded([&] {
    require(count, "count");
    *count = driverOf(platform).deviceCount();
  });
}

int tessera_set_device(tessera_platform platform, int device) {
  return guarded([&] { driverOf(platform).setDevice(device); });
}

int tessera_module_load(tessera_platform platform, const void *image,
                        size_t size, tessera_module **module) {
  return guarded([&] {
    require(image, "image");
    require(module, "module");
    auto loaded = std::make_unique<tessera_module>();
    loaded->module = driverOf(platform).loadModule(
        std::string(static_cast<const char *>(image), size));
    *module = loaded.release();
  });
}

void tessera_module_unload(tessera_module *module) { delete module; }

int tessera_module_kernel(tessera_module *module, const char *name,
                          tessera_kernel **kernel) {
  return guarded([&] {
    require(module, "module");
    require(name, "name");
    require(kernel, "kernel");
    auto found = std::make_unique<tessera_kernel>();
    found->kernel = module->module->kernel(name);
    *kernel = found.get();
    module->kernels.push_back(std::move(found));
  });
}

int tessera_launch(tessera_kernel *kernel, const unsigned grid[3],
                   unsigned threads_per_block, unsigned shared_bytes,
                   void **args, void *stream) {
  return guarded([&] {
    require(kernel, "kernel");
    require(grid, "grid");
    kernel->kernel->launch({grid[0], grid[1], grid[2]}, threads_per_block,
                           shared_bytes, args, stream, /*cooperative=*/false);
  });
}

int tessera_allocate(tessera_platform platform, size_t bytes,
                     uint64_t *address) {
  return guarded([&] {
    require(address, "address");
    *address = driverOf(platform).allocate(bytes);
  });
}

int tessera_release(tessera_platform platform, uint64_t address) {
  return guarded([&] { driverOf(platform).release(address); });
}

int tessera_copy_to_device(tessera_platform platform, uint64_t dst,
                           const void *src, size_t bytes) {
  return guarded([&] { driverOf(platform).copyToDevice(dst, src, bytes); });
}

int tessera_copy_to_host(tessera_platform platform, void *dst, uint64_t src,
                         size_t bytes) {
  return guarded([&] { driverOf(platform).copyToHost(dst, src, bytes); });
}

int tessera_synchronize(tessera_platform platform) {
  return guarded([&] { driverOf(platform).synchronize(); });
}

} // extern "C"
