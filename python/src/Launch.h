//===- Launch.h - kernel launches from Python -----------------------------===//

#ifndef TESSERA_PYTHON_LAUNCH_H
#define TESSERA_PYTHON_LAUNCH_H

#include <pybind11/pybind11.h>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mlir::tile::runtime {
class Driver;
class Kernel;
struct KernelResources;
class Module;
class TensorMapSpec;
struct TensorMap;
struct TensorMapRequest;
} // namespace mlir::tile::runtime

/// A kernel loaded on the driver's current device, with what its launches
/// need.
class GpuKernel {
public:
  /// `tensorMaps`: the tensor maps the kernel takes after `parameters`
  /// parameters (CompiledKernel::tensorMaps).
  GpuKernel(mlir::tile::runtime::Driver &driver, const std::string &image,
            const std::string &name, unsigned threadsPerBlock,
            unsigned sharedBytes, unsigned parameters,
            const std::vector<std::string> &tensorMaps, bool cooperative);
  ~GpuKernel();

  /// Launches with `args[i]` pointing at parameter i, on `stream`; the
  /// tensor maps are encoded from them.
  void launch(std::array<unsigned, 3> grid, void **args, uint64_t stream);
  /// Registers and local (spill) bytes per thread.
  mlir::tile::runtime::KernelResources resources();

private:
  mlir::tile::runtime::Driver &driver;
  std::unique_ptr<mlir::tile::runtime::Module> module;
  std::unique_ptr<mlir::tile::runtime::Kernel> kernel;
  unsigned threadsPerBlock, sharedBytes, parameters;
  /// Launched with every block resident (launch_cooperative_grid).
  bool cooperative;
  std::vector<mlir::tile::runtime::TensorMapSpec> tensorMaps;
  /// The tensor maps of the last launch and what they encode: encoding
  /// takes microseconds, and launches repeat their arguments.
  std::vector<mlir::tile::runtime::TensorMapRequest> lastRequests;
  std::vector<mlir::tile::runtime::TensorMap> lastMaps;
  std::mutex mapsMutex;
};

/// Binds GpuKernel and Launcher (the launch path of @jit functions).
void bindLaunch(pybind11::module_ &m);

#endif // TESSERA_PYTHON_LAUNCH_H
