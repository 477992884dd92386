//===- Module.cpp - the tessera._tessera Python extension -----------------===//
//
// Binds the IR builder of frontend/ and the host runtime. Compiled with RTTI
// (pybind11 needs it), so it includes only headers free of LLVM classes.
//
//===----------------------------------------------------------------------===//

#include "backends/Backend.h"
#include "backends/Compiler.h"
#include "frontend/Builder.h"
#include "frontend/Layouts.h"
#include "python/src/Launch.h"
#include "runtime/Driver.h"
#include "runtime/KernelCache.h"
#include "runtime/Tracer.h"
#include "runtime/capi/LaunchSource.h"
#include "runtime/host/HostModule.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>

namespace py = pybind11;
using mlir::tile::CompiledKernel;
using mlir::tile::CompileOptions;
using mlir::tile::HostArg;
using mlir::tile::HostBuffer;
using mlir::tile::HostModule;
using mlir::tile::frontend::Builder;
using mlir::tile::frontend::FrontendError;
using mlir::tile::frontend::Handle;
namespace runtime = mlir::tile::runtime;

namespace {
CompileOptions optionsOf(unsigned numWarps, unsigned numStages,
                         bool enableFpFusion, bool debug, unsigned wavesPerEU,
                         bool bulkCopies = true, unsigned maxRegisters = 0,
                         bool mmaV3 = true, unsigned matrixInstrNonKDim = 0,
                         unsigned kpack = 1) {
  CompileOptions options;
  options.matrixInstrNonKDim = matrixInstrNonKDim;
  options.kpack = kpack;
  options.mmaV3 = mmaV3;
  options.maxRegisters = maxRegisters;
  options.bulkCopies = bulkCopies;
  options.wavesPerEU = wavesPerEU;
  options.numWarps = numWarps;
  options.numStages = numStages;
  options.enableFpFusion = enableFpFusion;
  options.debug = debug;
  return options;
}
} // namespace

PYBIND11_MODULE(_tessera, m) {
  m.doc() = "Tessera's compiler and runtime, for the tessera package";
  py::register_exception<FrontendError>(m, "FrontendError");
  py::register_exception<mlir::tile::HostError>(m, "HostError");
  auto stageError =
      py::register_exception<mlir::tile::StageError>(m, "StageError");
  py::register_exception<mlir::tile::OutOfResourcesError>(m, "OutOfResources",
                                                          stageError.ptr());
  py::register_exception<runtime::DriverError>(m, "DriverError");
  py::register_exception<mlir::tile::BackendPluginError>(m,
                                                         "BackendPluginError");
  // Their dialects (the layouts an explicit-level kernel names) join every
  // context that reads a kernel. A plugin TESSERA_BACKEND_PLUGINS names that
  // cannot be loaded fails the import, saying why.
  mlir::tile::registerBuiltinBackends();
  mlir::tile::loadEnvironmentPlugins();
  m.def("load_backend", &mlir::tile::loadPlugin, py::arg("path"),
        "Loads a backend plugin; the names of the backends it registered.");

  py::class_<CompiledKernel>(m, "CompiledBinary")
      .def_readonly("name", &CompiledKernel::name)
      .def_readonly("backend", &CompiledKernel::backend)
      .def_readonly("assembly_kind", &CompiledKernel::assemblyKind)
      .def_readonly("binary_kind", &CompiledKernel::binaryKind)
      .def_readonly("arch", &CompiledKernel::arch)
      .def_readonly("warp_size", &CompiledKernel::warpSize)
      .def_readonly("num_warps", &CompiledKernel::numWarps)
      .def_readonly("shared_bytes", &CompiledKernel::sharedBytes)
      .def_readonly("parameter_types", &CompiledKernel::parameterTypes)
      .def_readonly("tensor_maps", &CompiledKernel::tensorMaps)
      .def_readonly("tile_layout", &CompiledKernel::tileLayout)
      .def_readonly("llvm_ir", &CompiledKernel::llvmIR)
      .def_readonly("assembly", &CompiledKernel::assembly)
      .def_property_readonly(
          "binary", [](const CompiledKernel &k) { return py::bytes(k.binary); })
      .def_readonly("binary_note", &CompiledKernel::binaryNote);
  m.def(
      "compile",
      [](const std::string &tileIR, const std::string &target,
         unsigned numWarps, unsigned numStages, bool enableFpFusion, bool debug,
         unsigned wavesPerEU, unsigned maxRegisters, bool mmaV3,
         unsigned matrixInstrNonKDim, unsigned kpack) {
        return mlir::tile::compileKernel(
            tileIR, target,
            optionsOf(numWarps, numStages, enableFpFusion, debug, wavesPerEU,
                      true, maxRegisters, mmaV3, matrixInstrNonKDim, kpack));
      },
      py::arg("tile_ir"), py::arg("target"), py::arg("num_warps") = 4,
      py::arg("num_stages") = 3, py::arg("enable_fp_fusion") = true,
      py::arg("debug") = false, py::arg("waves_per_eu") = 0,
      py::arg("maxnreg") = 0, py::arg("mma_v3") = true,
      py::arg("matrix_instr_nonkdim") = 0, py::arg("kpack") = 1,
      py::call_guard<py::gil_scoped_release>(),
      "Compiles one kernel's tile IR for a target (\"cuda:90\", ...).");
  m.def(
      "options_for_target",
      [](const std::string &target, unsigned numWarps, unsigned numStages,
         unsigned wavesPerEU, unsigned matrixInstrNonKDim, unsigned kpack) {
        CompileOptions options = mlir::tile::optionsForTarget(
            target, optionsOf(numWarps, numStages, true, false, wavesPerEU,
                              true, 0, true, matrixInstrNonKDim, kpack));
        return py::make_tuple(options.numWarps, options.numStages,
                              options.wavesPerEU, options.matrixInstrNonKDim,
                              options.kpack);
      },
      py::arg("target"), py::arg("num_warps"), py::arg("num_stages"),
      py::arg("waves_per_eu") = 0, py::arg("matrix_instr_nonkdim") = 0,
      py::arg("kpack") = 1,
      "(num_warps, num_stages, waves_per_eu, matrix_instr_nonkdim, kpack) "
      "as `target` compiles them.");
  m.def(
      "launch_source",
      [](const std::string &prefix, const CompiledKernel &kernel,
         const std::string &target,
         const std::vector<std::pair<std::string, std::string>> &parameters,
         const std::map<std::string, std::string> &constants,
         const std::vector<std::string> &grid) {
        runtime::LaunchSpec spec;
        spec.prefix = prefix;
        spec.kernel = kernel.name;
        spec.platform = kernel.backend == "amd" ? "hip" : "cuda";
        spec.arch = kernel.arch;
        spec.target = target;
        spec.numWarps = kernel.numWarps;
        spec.warpSize = kernel.warpSize;
        spec.sharedBytes = kernel.sharedBytes;
        spec.image = kernel.binary.empty() ? kernel.assembly : kernel.binary;
        spec.imageKind = !kernel.binary.empty()
                             ? (kernel.backend == "amd" ? "hsaco" : "cubin")
                             : "ptx";
        for (const auto &[name, type] : parameters)
          spec.parameters.push_back({name, type});
        spec.constants = constants;
        spec.grid = grid;
        runtime::LaunchSource source;
        try {
          source = runtime::emitLaunchSource(spec);
        } catch (const std::invalid_argument &e) {
          throw py::value_error(e.what());
        }
        return py::make_tuple(source.header, source.source, source.metadata,
                              py::bytes(spec.image), spec.imageKind);
      },
      py::arg("prefix"), py::arg("kernel"), py::arg("target"),
      py::arg("parameters"), py::arg("constants"),
      py::arg("grid") = std::vector<std::string>(),
      "(header, source, JSON, binary, binary kind) of a C launcher "
      "(runtime/capi/LaunchSource.h).");
  m.def("compiler_build", &mlir::tile::compilerBuild,
        "what identifies this build of the compiler");
  m.def(
      "compile_cached",
      [](const std::string &tileIR, const std::string &target,
         unsigned numWarps, unsigned numStages, bool enableFpFusion, bool debug,
         unsigned wavesPerEU, bool bulkCopies, unsigned maxRegisters,
         bool mmaV3, unsigned matrixInstrNonKDim, unsigned kpack) {
        CompileOptions options = optionsOf(
            numWarps, numStages, enableFpFusion, debug, wavesPerEU, bulkCopies,
            maxRegisters, mmaV3, matrixInstrNonKDim, kpack);
        std::optional<mlir::tile::KernelCache> cache =
            mlir::tile::KernelCache::fromEnvironment();
        if (!cache)
          return std::pair(mlir::tile::compileKernel(tileIR, target, options),
                           std::string("off"));
        std::string note;
        CompiledKernel kernel = mlir::tile::compileKernelCached(
            tileIR, target, options, *cache, note);
        return std::pair(std::move(kernel), note);
      },
      py::arg("tile_ir"), py::arg("target"), py::arg("num_warps") = 4,
      py::arg("num_stages") = 3, py::arg("enable_fp_fusion") = true,
      py::arg("debug") = false, py::arg("waves_per_eu") = 0,
      py::arg("bulk_copies") = true, py::arg("maxnreg") = 0,
      py::arg("mma_v3") = true, py::arg("matrix_instr_nonkdim") = 0,
      py::arg("kpack") = 1, py::call_guard<py::gil_scoped_release>(),
      "compile through the on-disk cache (TESSERA_CACHE_DIR, else "
      "~/.cache/tessera): (binary, note), the note \"hit\", \"stored\", "
      "\"off\", \"no binary\" (no assembler here; not stored) or what went "
      "wrong with the cache.");

  // The GPU runtimes, "cuda" and "hip", opened on first use.
  py::class_<runtime::Driver, std::unique_ptr<runtime::Driver, py::nodelete>>(
      m, "Driver")
      .def_property_readonly("name", &runtime::Driver::name)
      .def_property_readonly("shares_host_memory",
                             &runtime::Driver::sharesHostMemory)
      .def("device_count", &runtime::Driver::deviceCount)
      .def("arch", [](runtime::Driver &d,
                      int device) { return d.deviceInfo(device).arch; })
      .def("device_name", [](runtime::Driver &d,
                             int device) { return d.deviceInfo(device).name; })
      .def("device_properties",
           [](runtime::Driver &d, int device) {
             runtime::DeviceInfo info = d.deviceInfo(device);
             py::dict properties;
             properties["max_shared_mem"] = info.maxSharedPerBlock;
             properties["max_num_regs"] = info.maxRegistersPerBlock;
             properties["multiprocessor_count"] = info.multiprocessors;
             properties["warpSize"] = info.warpSize;
             properties["sm_clock_rate"] = info.clockRate;
             properties["mem_clock_rate"] = info.memoryClockRate;
             properties["mem_bus_width"] = info.memoryBusWidth;
             properties["total_memory"] = info.totalMemory;
             return properties;
           })
      .def("set_device", &runtime::Driver::setDevice)
      .def("allocate", &runtime::Driver::allocate)
      .def("release", &runtime::Driver::release)
      .def("copy_to_device",
           [](runtime::Driver &d, uint64_t dst, uint64_t src, size_t bytes) {
             d.copyToDevice(dst, reinterpret_cast<const void *>(src), bytes);
           })
      .def("copy_to_host",
           [](runtime::Driver &d, uint64_t dst, uint64_t src, size_t bytes) {
             d.copyToHost(reinterpret_cast<void *>(dst), src, bytes);
           })
      .def("synchronize", &runtime::Driver::synchronize,
           py::call_guard<py::gil_scoped_release>())
      .def("create_event", &runtime::Driver::createEvent)
      .def("record_event",
           [](runtime::Driver &d, uint64_t event, uint64_t stream) {
             d.recordEvent(event, reinterpret_cast<void *>(stream));
           })
      .def("elapsed_ms", &runtime::Driver::elapsedMilliseconds,
           py::call_guard<py::gil_scoped_release>())
      .def("destroy_event", &runtime::Driver::destroyEvent)
      .def("fill", [](runtime::Driver &d, uint64_t address, uint32_t value,
                      size_t words, uint64_t stream) {
        d.fill(address, value, words, reinterpret_cast<void *>(stream));
      });
  m.def(
      "driver",
      [](const std::string &platform) -> runtime::Driver & {
        return runtime::Driver::named(platform);
      },
      py::arg("platform"), py::return_value_policy::reference,
      "The runtime of a platform (\"cuda\", \"hip\", or one a backend "
      "plugin registers); DriverError says why where it cannot be opened.");
  m.def("drivers", &runtime::Driver::registeredPlatforms,
        "The platforms backend plugins registered drivers of.");
  // The vendors' activity tracers, for the profiler.
  py::class_<runtime::Tracer, std::unique_ptr<runtime::Tracer, py::nodelete>>(
      m, "Tracer")
      .def_property_readonly("name", &runtime::Tracer::name)
      .def_property_readonly("library", &runtime::Tracer::library)
      .def("start", &runtime::Tracer::start)
      .def("stop", &runtime::Tracer::stop,
           py::call_guard<py::gil_scoped_release>())
      .def(
          "flush",
          [](runtime::Tracer &t) {
            std::vector<runtime::KernelActivity> kernels;
            {
              py::gil_scoped_release release;
              kernels = t.flush();
            }
            py::list out;
            for (const runtime::KernelActivity &k : kernels)
              out.append(py::make_tuple(k.op, k.name, k.start, k.end, k.device,
                                        k.stream));
            return out;
          },
          "The kernels that finished since the last flush: (op, name, start, "
          "end, device, stream).")
      .def("timestamp", &runtime::Tracer::timestamp);
  m.def(
      "tracer",
      [](const std::string &platform,
         const std::vector<std::string> &libraries) -> runtime::Tracer & {
        if (platform == "cuda")
          return runtime::Tracer::cupti(libraries);
        if (platform == "hip")
          return runtime::Tracer::roctracer(libraries);
        throw py::value_error("unknown GPU platform '" + platform +
                              "': expected cuda or hip");
      },
      py::arg("platform"), py::arg("libraries"),
      py::return_value_policy::reference,
      "The activity tracer of a platform (CUPTI, roctracer), opened from the "
      "first of `libraries` that opens; DriverError says why where none can "
      "be used.");
  m.def("set_trace_op", &runtime::Tracer::setOp, py::arg("op"),
        "Kernels this thread launches from now on belong to `op`.");
  bindLaunch(m);
  m.def("assign_layouts", &mlir::tile::assignLayouts, py::arg("tile_ir"),
        py::arg("num_warps"), py::arg("warp_size"),
        py::call_guard<py::gil_scoped_release>(),
        "The tile-layout stage: every tensor given a GPU layout.");

  m.def("linear_layout_bases", &mlir::tile::frontend::linearLayoutBases,
        py::arg("layout"), py::arg("shape"),
        "The linear form of a layout (attribute text) over a shape: "
        "[(input dimension, bases)].");
  m.def("bank_conflicts", &mlir::tile::frontend::bankConflicts,
        py::arg("layout"), py::arg("shared"), py::arg("shape"),
        py::arg("element_bitwidth"),
        "Extra shared-memory wavefronts of a warp's store of a tensor in "
        "`layout` into a buffer laid out by `shared`.");

  py::class_<Handle>(m, "Handle")
      .def_readonly("dtype", &Handle::dtype)
      .def_readonly("shape", &Handle::shape)
      .def_readonly("layout", &Handle::layout)
      .def("__repr__", [](const Handle &h) {
        std::string s = "Handle(" + h.dtype + ", [";
        for (size_t i = 0; i < h.shape.size(); ++i)
          s += (i ? ", " : "") + std::to_string(h.shape[i]);
        return s + "])";
      });

  py::class_<Builder>(m, "Builder")
      .def(py::init<>())
      .def("set_location", &Builder::setLocation)
      .def("begin_function", &Builder::beginFunction)
      .def("end_function", &Builder::endFunction)
      .def("int_constant", &Builder::intConstant)
      .def("float_constant", &Builder::floatConstant)
      .def("program_id", &Builder::programId)
      .def("num_programs", &Builder::numPrograms)
      .def("arange", &Builder::arange, py::arg("start"), py::arg("end"),
           py::arg("layout") = "")
      .def("full", &Builder::full, py::arg("shape"), py::arg("value"),
           py::arg("layout") = "")
      .def("broadcast_to", &Builder::broadcastTo)
      .def("broadcast_pair", &Builder::broadcastPair)
      .def("expand_dims", &Builder::expandDims)
      .def("reshape", &Builder::reshape)
      .def("permute", &Builder::permute)
      .def("cat", &Builder::cat)
      .def("join", &Builder::join)
      .def("split", &Builder::split)
      .def("binary", &Builder::binary, py::arg("op"), py::arg("a"),
           py::arg("b"), py::arg("weak_a") = false, py::arg("weak_b") = false)
      .def("unary", &Builder::unary)
      .def("math_binary", &Builder::mathBinary)
      .def("fma", &Builder::fma)
      .def("mulhi", &Builder::mulhi)
      .def("cast", &Builder::cast)
      .def("bitcast", &Builder::bitcast)
      .def("inline_asm", &Builder::inlineAsm)
      .def("gather", &Builder::gather)
      .def("histogram", &Builder::histogram)
      .def("where", &Builder::where, py::arg("condition"), py::arg("a"),
           py::arg("b"), py::arg("weak_a") = false, py::arg("weak_b") = false)
      .def("load", &Builder::load)
      .def("store", &Builder::store)
      .def("atomic_rmw", &Builder::atomicRMW)
      .def("atomic_cas", &Builder::atomicCAS)
      .def("make_tensor_descriptor", &Builder::makeTensorDescriptor,
           py::arg("base"), py::arg("shape"), py::arg("strides"),
           py::arg("block_shape"), py::arg("nan_padding"),
           py::arg("aligned") = false)
      .def("descriptor_load", &Builder::descriptorLoad)
      .def("descriptor_store", &Builder::descriptorStore)
      .def("descriptor_reduce", &Builder::descriptorReduce)
      .def("dot", &Builder::dot)
      .def("reduce", &Builder::reduce)
      .def("scan", &Builder::scan)
      .def("begin_combiner", &Builder::beginCombiner)
      .def("end_combiner", &Builder::endCombiner)
      .def("begin_for", &Builder::beginFor, py::arg("lower"), py::arg("upper"),
           py::arg("step"), py::arg("carried"), py::arg("num_stages") = 0,
           py::arg("flatten") = false, py::arg("warp_specialize") = false)
      .def("end_for", &Builder::endFor)
      .def("begin_if", &Builder::beginIf)
      .def("begin_else", &Builder::beginElse)
      .def("end_if", &Builder::endIf)
      .def("begin_while", &Builder::beginWhile)
      .def("begin_while_body", &Builder::beginWhileBody)
      .def("end_while", &Builder::endWhile)
      .def("print", &Builder::print)
      .def("device_assert", &Builder::deviceAssert)
      .def("barrier", &Builder::barrier)
      .def("scope_record", &Builder::scopeRecord)
      .def("hint", &Builder::hint)
      .def("set_explicit_layouts", &Builder::setExplicitLayouts)
      .def("convert_layout", &Builder::convertLayout)
      .def("set_auto_layout", &Builder::setAutoLayout)
      .def("local_alloc", &Builder::localAlloc)
      .def("local_load", &Builder::localLoad)
      .def("local_store", &Builder::localStore)
      .def("local_dealloc", &Builder::localDealloc)
      .def("memdesc_index", &Builder::memdescIndex)
      .def("memdesc_slice", &Builder::memdescSlice)
      .def("memdesc_permute", &Builder::memdescPermute)
      .def("memdesc_reshape", &Builder::memdescReshape)
      .def("memdesc_reinterpret", &Builder::memdescReinterpret)
      .def("async_copy_global_to_local", &Builder::asyncCopyGlobalToLocal)
      .def("async_commit_group", &Builder::asyncCommitGroup)
      .def("async_wait", &Builder::asyncWait)
      .def("verify", &Builder::verify)
      .def("optimize", &Builder::optimize,
           py::call_guard<py::gil_scoped_release>())
      .def("text", &Builder::text, py::arg("with_locations") = false);

  py::class_<HostModule>(m, "HostModule")
      .def(py::init<const std::string &>())
      .def("run",
           [](HostModule &self, const std::string &name,
              std::array<int64_t, 3> grid, const py::list &args,
              const py::list &buffers) {
             // args: ("i", int) | ("f", float) | ("p", address)
             std::vector<HostArg> hostArgs;
             for (py::handle item : args) {
               auto t = item.cast<py::tuple>();
               std::string kind = t[0].cast<std::string>();
               if (kind == "i")
                 hostArgs.push_back(HostArg::ofInt(t[1].cast<int64_t>()));
               else if (kind == "f")
                 hostArgs.push_back(HostArg::ofFloat(t[1].cast<double>()));
               else
                 hostArgs.push_back(HostArg::ofPointer(t[1].cast<uint64_t>()));
             }
             // buffers: (address, bytes, name[, writable])
             std::vector<HostBuffer> hostBuffers;
             for (py::handle item : buffers) {
               auto t = item.cast<py::tuple>();
               hostBuffers.push_back(
                   {t[0].cast<uint64_t>(), t[1].cast<uint64_t>(),
                    t[2].cast<std::string>(),
                    t.size() < 4 || t[3].cast<bool>()});
             }
             py::gil_scoped_release release;
             self.run(name, grid, hostArgs, hostBuffers);
           });
}
