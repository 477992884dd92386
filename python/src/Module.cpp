//===- Module.cpp - the tessera._tessera Python extension -----------------===//
//
// Binds the IR builder of frontend/ and the host runtime. Compiled with RTTI
// (pybind11 needs it), so it includes only headers free of LLVM classes.
//
//===----------------------------------------------------------------------===//

#include "backends/common/Stages.h"
#include "frontend/Builder.h"
#include "runtime/host/HostModule.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using mlir::tile::HostArg;
using mlir::tile::HostBuffer;
using mlir::tile::HostModule;
using mlir::tile::frontend::Builder;
using mlir::tile::frontend::FrontendError;
using mlir::tile::frontend::Handle;

PYBIND11_MODULE(_tessera, m) {
  m.doc() = "Tessera's compiler and runtime, for the tessera package";
  py::register_exception<FrontendError>(m, "FrontendError");
  py::register_exception<mlir::tile::HostError>(m, "HostError");
  py::register_exception<mlir::tile::StageError>(m, "StageError");
  m.def("assign_layouts", &mlir::tile::assignLayouts, py::arg("tile_ir"),
        py::arg("num_warps"), py::arg("warp_size"),
        py::call_guard<py::gil_scoped_release>(),
        "The tile-layout stage: every tensor given a GPU layout.");

  py::class_<Handle>(m, "Handle")
      .def_readonly("dtype", &Handle::dtype)
      .def_readonly("shape", &Handle::shape)
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
      .def("arange", &Builder::arange)
      .def("full", &Builder::full)
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
      .def("fma", &Builder::fma)
      .def("mulhi", &Builder::mulhi)
      .def("cast", &Builder::cast)
      .def("bitcast", &Builder::bitcast)
      .def("where", &Builder::where, py::arg("condition"), py::arg("a"),
           py::arg("b"), py::arg("weak_a") = false, py::arg("weak_b") = false)
      .def("load", &Builder::load)
      .def("store", &Builder::store)
      .def("atomic_rmw", &Builder::atomicRMW)
      .def("atomic_cas", &Builder::atomicCAS)
      .def("dot", &Builder::dot)
      .def("reduce", &Builder::reduce)
      .def("scan", &Builder::scan)
      .def("begin_combiner", &Builder::beginCombiner)
      .def("end_combiner", &Builder::endCombiner)
      .def("begin_for", &Builder::beginFor)
      .def("end_for", &Builder::endFor)
      .def("begin_if", &Builder::beginIf)
      .def("begin_else", &Builder::beginElse)
      .def("end_if", &Builder::endIf)
      .def("begin_while", &Builder::beginWhile)
      .def("begin_while_body", &Builder::beginWhileBody)
      .def("end_while", &Builder::endWhile)
      .def("print", &Builder::print)
      .def("device_assert", &Builder::deviceAssert)
      .def("hint", &Builder::hint)
      .def("verify", &Builder::verify)
      .def("optimize", &Builder::optimize,
           py::call_guard<py::gil_scoped_release>())
      .def("text", &Builder::text, py::arg("with_locations") = false);

  py::class_<HostModule>(m, "HostModule")
      .def(py::init<const std::string &>())
      .def("run",
           [](HostModule &self, const std::string &name,
              std::array<int64_t, 3> grid, const py::list &args,
              const std::vector<std::tuple<uint64_t, uint64_t, std::string>>
                  &buffers) {
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
             std::vector<HostBuffer> hostBuffers;
             for (const auto &[address, bytes, name] : buffers)
               hostBuffers.push_back({address, bytes, name});
             py::gil_scoped_release release;
             self.run(name, grid, hostArgs, hostBuffers);
           });
}
