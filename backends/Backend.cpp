//===- Backend.cpp - the registry of backends -----------------------------===//

#include "backends/Backend.h"

#include "ir/Layout/LayoutBuilders.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <mutex>
#include <vector>

using namespace mlir::tile;

namespace {
std::mutex registryMutex;

llvm::StringMap<std::unique_ptr<Backend>> &registry() {
  static llvm::StringMap<std::unique_ptr<Backend>> backends;
  return backends;
}

/// The name of each registration, in order.
std::vector<std::string> &registrations() {
  static std::vector<std::string> names;
  return names;
}

llvm::Error targetError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}
} // namespace

char MissingAssemblerError::ID;

void MissingAssemblerError::log(llvm::raw_ostream &os) const { os << text; }

llvm::Error mlir::tile::verifyOptions(const CompileOptions &options) {
  if (options.matrixInstrNonKDim != 0 && options.matrixInstrNonKDim != 16 &&
      options.matrixInstrNonKDim != 32)
    return targetError("matrix_instr_nonkdim must be 0, 16 or 32, got " +
                       llvm::Twine(options.matrixInstrNonKDim));
  if (options.kpack != 1 && options.kpack != 2)
    return targetError("kpack must be 1 or 2, got " +
                       llvm::Twine(options.kpack));
  return verifyNumWarps(options.numWarps);
}

CompileOptions mlir::tile::adaptCommonOptions(const Target &target,
                                              CompileOptions options,
                                              bool amdOptions) {
  // verifyOptions has checked the portable range; a wavefront of 64 lanes
  // halves what fits in a block.
  options.numWarps =
      std::min(options.numWarps, kMaxThreadsPerBlock / target.warpSize);
  options.numStages = std::max(1u, options.numStages);
  if (!amdOptions) {
    options.wavesPerEU = 0;
    options.matrixInstrNonKDim = 0;
    options.kpack = 1;
  }
  return options;
}

void mlir::tile::registerBackend(std::unique_ptr<Backend> backend) {
  // A replaced backend stays alive: resolveTarget's callers may hold it.
  static std::vector<std::unique_ptr<Backend>> replaced;
  std::lock_guard<std::mutex> lock(registryMutex);
  std::string name = backend->name().str();
  std::unique_ptr<Backend> &slot = registry()[name];
  if (slot)
    replaced.push_back(std::move(slot));
  slot = std::move(backend);
  registrations().push_back(name);
}

std::vector<std::string> mlir::tile::backendRegistrations() {
  std::lock_guard<std::mutex> lock(registryMutex);
  return registrations();
}

Backend *mlir::tile::lookupBackend(llvm::StringRef name) {
  std::lock_guard<std::mutex> lock(registryMutex);
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
}

llvm::Expected<std::pair<Backend *, Target>>
mlir::tile::resolveTarget(llvm::StringRef spec) {
  llvm::StringRef arch = spec;
  llvm::StringRef backendName;
  if (arch.consume_front("cuda:"))
    backendName = "nvidia";
  else if (arch.consume_front("hip:"))
    backendName = "amd";
  else if (arch.starts_with("sm_"))
    backendName = "nvidia";
  else if (arch.starts_with("gfx"))
    backendName = "amd";
  else if (auto [name, rest] = spec.split(':');
           !rest.empty() && lookupBackend(name)) {
    backendName = name;
    arch = rest;
  } else
    return targetError("unknown target '" + spec +
                       "': expected cuda:<arch> (cuda:90, cuda:sm_90a), "
                       "hip:<arch> (hip:gfx942), sm_<N>, gfx<N> or "
                       "<backend>:<arch> for a backend a plugin registers");
  Backend *backend = lookupBackend(backendName);
  if (!backend)
    return targetError("target '" + spec + "' needs the " + backendName +
                       " backend, which this build does not have");
  llvm::Expected<Target> target = backend->parseTarget(arch);
  if (!target)
    return target.takeError();
  return std::make_pair(backend, *target);
}
