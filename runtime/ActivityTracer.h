//===- ActivityTracer.h - what the CUPTI and roctracer tracers share ------===//
//
// The op each launch belongs to, kept by the launch's correlation id (the
// number the vendor gives an API call and the kernel it launches), and the
// kernels reported so far.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_ACTIVITYTRACER_H
#define TESSERA_RUNTIME_ACTIVITYTRACER_H

#include "runtime/Library.h"
#include "runtime/Tracer.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <mutex>
#include <unordered_map>

namespace mlir::tile::runtime {

class ActivityTracer : public Tracer {
public:
  const std::string &library() const override { return path; }

protected:
  explicit ActivityTracer(std::string path) : path(std::move(path)) {}

  /// On the launching thread, as a launch with `correlation` begins.
  void launching(uint64_t correlation);
  /// A kernel record: the kernel launched by `correlation` ran from `start`
  /// to `end` (records with no time between are dropped).
  void finished(uint64_t correlation, const char *name, uint64_t start,
                uint64_t end, int device, uint64_t stream);
  /// The kernels reported so far, which are forgotten.
  std::vector<KernelActivity> take();
  /// Forgets the launches and kernels seen so far.
  void reset();

private:
  std::string path;
  std::mutex mutex;
  std::unordered_map<uint64_t, uint64_t> ops;
  std::vector<KernelActivity> kernels;
};

/// The tracer in `slot`, which `open` fills (or says why not) the first time
/// it can; throws DriverError with `open`'s reason until then.
Tracer &openOnce(
    std::unique_ptr<ActivityTracer> &slot,
    llvm::function_ref<std::unique_ptr<ActivityTracer>(std::string &whyNot)>
        open);

/// Opens the first of `libraries` that opens, or returns null with the
/// reasons in `whyNot`.
std::unique_ptr<Library> openFirst(const std::vector<std::string> &libraries,
                                   std::string &whyNot);

} // namespace mlir::tile::runtime

#endif // TESSERA_RUNTIME_ACTIVITYTRACER_H
