//===- Tracer.cpp - what the CUPTI and roctracer tracers share ------------===//

#include "runtime/ActivityTracer.h"
#include "runtime/Driver.h"

#include "llvm/Demangle/Demangle.h"

#include <utility>

using namespace mlir::tile::runtime;

namespace {
thread_local uint64_t currentOp = 0;
} // namespace

void Tracer::setOp(uint64_t op) { currentOp = op; }

void ActivityTracer::launching(uint64_t correlation) {
  if (currentOp == 0)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  ops[correlation] = currentOp;
}

void ActivityTracer::finished(uint64_t correlation, const char *name,
                              uint64_t start, uint64_t end, int device,
                              uint64_t stream) {
  if (end <= start)
    return;
  KernelActivity kernel;
  kernel.name = name ? llvm::demangle(name) : "<unnamed kernel>";
  kernel.start = start;
  kernel.end = end;
  kernel.device = device;
  kernel.stream = stream;
  std::lock_guard<std::mutex> lock(mutex);
  auto op = ops.find(correlation);
  if (op != ops.end())
    kernel.op = op->second;
  kernels.push_back(std::move(kernel));
}

std::vector<KernelActivity> ActivityTracer::take() {
  std::lock_guard<std::mutex> lock(mutex);
  return std::exchange(kernels, {});
}

void ActivityTracer::reset() {
  std::lock_guard<std::mutex> lock(mutex);
  ops.clear();
  kernels.clear();
}

Tracer &mlir::tile::runtime::openOnce(
    std::unique_ptr<ActivityTracer> &slot,
    llvm::function_ref<std::unique_ptr<ActivityTracer>(std::string &)> open) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (!slot) {
    std::string whyNot;
    slot = open(whyNot);
    if (!slot)
      throw DriverError(whyNot);
  }
  return *slot;
}

std::unique_ptr<Library>
mlir::tile::runtime::openFirst(const std::vector<std::string> &libraries,
                               std::string &whyNot) {
  for (const std::string &path : libraries) {
    auto library = std::make_unique<Library>(path);
    if (library->opened())
      return library;
    whyNot += (whyNot.empty() ? "" : "; ") + library->whyNot();
  }
  if (libraries.empty())
    whyNot = "no library was named";
  return nullptr;
}
