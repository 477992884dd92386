//===- Launch.cpp - kernel launches from Python ---------------------------===//
//
// The launch path of `kernel[grid](*args)`. For arguments it knows (torch
// CUDA tensors, Python ints, floats, bools, None, constexprs), one C++ call
// computes the specialisation key, finds the loaded kernel, packs the
// arguments and launches on PyTorch's current stream. Anything else, and
// every first call of a specialisation, goes to the Python path (which
// compiles, checks, reports errors, and registers the kernel here).
//
//===----------------------------------------------------------------------===//

#include "python/src/Launch.h"

#include "runtime/Driver.h"
#include "runtime/TensorMaps.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <unordered_map>

namespace py = pybind11;
namespace runtime = mlir::tile::runtime;

GpuKernel::GpuKernel(runtime::Driver &driver, const std::string &image,
                     const std::string &name, unsigned threadsPerBlock,
                     unsigned sharedBytes, unsigned parameters,
                     const std::vector<std::string> &tensorMaps,
                     bool cooperative)
    : driver(driver), module(driver.loadModule(image)),
      kernel(module->kernel(name)), threadsPerBlock(threadsPerBlock),
      sharedBytes(sharedBytes), parameters(parameters),
      cooperative(cooperative) {
  for (const std::string &text : tensorMaps)
    this->tensorMaps.emplace_back(text);
}

GpuKernel::~GpuKernel() = default;

runtime::KernelResources GpuKernel::resources() { return kernel->resources(); }

void GpuKernel::launch(std::array<unsigned, 3> grid, void **args,
                       uint64_t stream) {
  if (tensorMaps.empty()) {
    kernel->launch(grid, threadsPerBlock, sharedBytes, args,
                   reinterpret_cast<void *>(stream), cooperative);
    return;
  }
  // Launches from several threads take turns with the last maps.
  std::lock_guard<std::mutex> lock(mapsMutex);
  lastRequests.resize(tensorMaps.size());
  lastMaps.resize(tensorMaps.size());
  std::vector<void *> all(args, args + parameters);
  for (size_t i = 0; i < tensorMaps.size(); ++i) {
    runtime::TensorMapRequest request = tensorMaps[i].requestFor(args);
    if (!(request == lastRequests[i])) {
      lastMaps[i] = driver.encodeTensorMap(request);
      lastRequests[i] = std::move(request);
    }
    all.push_back(&lastMaps[i]);
  }
  kernel->launch(grid, threadsPerBlock, sharedBytes, all.data(),
                 reinterpret_cast<void *>(stream), cooperative);
}

namespace {

/// `args`: (kind, value) with kind "i1", "i32", "i64", "f32", "f64" or "p"
/// (a device address), in the kernel's parameter order.
void launchFromList(GpuKernel &kernel, std::array<unsigned, 3> grid,
                    const py::list &args, uint64_t stream) {
  size_t n = args.size();
  std::vector<uint64_t> storage(n);
  std::vector<void *> pointers(n);
  for (size_t i = 0; i < n; ++i) {
    auto item = args[i].cast<py::tuple>();
    std::string kind = item[0].cast<std::string>();
    void *slot = &storage[i];
    if (kind == "f32") {
      float v = item[1].cast<float>();
      std::memcpy(slot, &v, sizeof v);
    } else if (kind == "f64") {
      double v = item[1].cast<double>();
      std::memcpy(slot, &v, sizeof v);
    } else if (kind == "i1") {
      uint8_t v = item[1].cast<bool>();
      std::memcpy(slot, &v, sizeof v);
    } else if (kind == "i32") {
      // Unsigned 32-bit values arrive as Python ints above 2**31.
      uint32_t v = static_cast<uint32_t>(item[1].cast<int64_t>());
      std::memcpy(slot, &v, sizeof v);
    } else {
      // Two's complement for negative 64-bit values.
      uint64_t v = PyLong_AsUnsignedLongLongMask(item[1].ptr());
      std::memcpy(slot, &v, sizeof v);
    }
    pointers[i] = slot;
  }
  py::gil_scoped_release release;
  kernel.launch(grid, pointers.data(), stream);
}

/// How a parameter of a @jit function is treated.
enum class Role { Specialised = 0, NotSpecialised = 1, Constexpr = 2 };

/// A value a kernel was compiled against, which must still be the same
/// object: an item of a dict (a module's globals), a closure cell's
/// contents, or an attribute (a @jit function's source).
struct Watch {
  enum Kind { DictItem = 0, Cell = 1, Attribute = 2 };
  Kind kind;
  py::object container, key, expected;

  bool holds() const {
    switch (kind) {
    case DictItem:
      return PyDict_GetItemWithError(container.ptr(), key.ptr()) ==
             expected.ptr();
    case Cell:
      return PyCell_GET(container.ptr()) == expected.ptr();
    case Attribute: {
      PyObject *value = PyObject_GetAttr(container.ptr(), key.ptr());
      if (!value) {
        PyErr_Clear();
        return false;
      }
      Py_DECREF(value);
      return value == expected.ptr();
    }
    }
    return false;
  }
};

struct Entry {
  py::object kernel; // a GpuKernel
  GpuKernel *loaded;
  py::object result; // what the launch returns
  std::vector<Watch> watches;
};

/// The arguments of one launch, packed as the kernel's parameters.
class Parameters {
public:
  template <typename T> void add(T value) {
    static_assert(sizeof(T) <= 8);
    std::memcpy(&slots[count], &value, sizeof(T));
    ++count;
  }
  bool full() const { return count == kMax; }
  void **pointers() {
    for (size_t i = 0; i < count; ++i)
      addresses[i] = &slots[i];
    return addresses;
  }

private:
  static constexpr size_t kMax = 64;
  uint64_t slots[kMax];
  void *addresses[kMax];
  size_t count = 0;
};

class Launcher {
public:
  Launcher(py::object slowPath, std::vector<std::string> names,
           std::vector<int> roles, py::dict defaults)
      : slowPath(std::move(slowPath)), defaults(std::move(defaults)) {
    for (const std::string &name : names)
      this->names.push_back(py::str(name));
    for (int role : roles)
      this->roles.push_back(static_cast<Role>(role));
  }

  /// Launches `grid` with `args` (a tuple) and `kwargs` (a dict or null);
  /// the compiled kernel is returned.
  py::object launch(py::handle grid, py::handle args, py::handle kwargs) {
    Call call;
    auto slow = [&](bool keyed) {
      PyErr_Clear(); // what prepare() met on the way: the slow path judges
      py::dict named =
          kwargs ? py::reinterpret_borrow<py::dict>(kwargs) : py::dict();
      return slowPath(grid,
                      keyed ? py::object(py::bytes(call.key))
                            : py::object(py::none()),
                      args, named);
    };
    if (!prepare(grid, args.ptr(), kwargs.ptr(), call))
      return slow(call.keyed);
    auto it = entries.find(call.key);
    if (it == entries.end() ||
        !std::all_of(it->second.watches.begin(), it->second.watches.end(),
                     [](const Watch &w) { return w.holds(); })) {
      if (it != entries.end())
        entries.erase(it);
      PyErr_Clear();
      return slow(true);
    }
    Entry &entry = it->second;
    std::optional<uint64_t> stream = currentStream(call.device);
    if (!stream)
      return slow(false);
    try {
      py::gil_scoped_release release;
      entry.loaded->launch(call.grid, call.parameters.pointers(), *stream);
    } catch (const runtime::DriverError &) {
      // The Python path launches again and reports the failure.
      return slow(false);
    }
    return entry.result;
  }

  /// Registers the loaded kernel of a key the Python path launched.
  /// `watches`: (kind, container, key, expected) tuples (Watch).
  void add(py::bytes key, py::object kernel, py::object result,
           py::list watches) {
    Entry entry{kernel, kernel.cast<GpuKernel *>(), std::move(result), {}};
    for (py::handle item : watches) {
      auto t = item.cast<py::tuple>();
      entry.watches.push_back({static_cast<Watch::Kind>(t[0].cast<int>()),
                               t[1], t[2], t[3]});
    }
    entries[std::string(key)] = std::move(entry);
  }

  void clear() { entries.clear(); }
  size_t size() const { return entries.size(); }

private:
  struct Call {
    std::string key;
    bool keyed = false;
    Parameters parameters;
    std::array<unsigned, 3> grid = {1, 1, 1};
    int device = -1;
  };

  /// Binds the arguments, computes the key and packs the parameters; false
  /// where the Python path must run (`call.keyed` says whether the key is
  /// whole all the same).
  bool prepare(py::handle grid, PyObject *args, PyObject *kwargs, Call &call) {
    size_t n = names.size();
    size_t given = PyTuple_GET_SIZE(args);
    if (given > n || n > kMaxArguments)
      return false;
    PyObject *values[kMaxArguments] = {};
    for (size_t i = 0; i < given; ++i)
      values[i] = PyTuple_GET_ITEM(args, i);
    long options[kOptions] = {4, 3, 1, 0, 1, 0, 0, 0, 1};
    static const char *optionNames[kOptions] = {"num_warps",
                                                "num_stages",
                                                "num_ctas",
                                                "waves_per_eu",
                                                "enable_fp_fusion",
                                                "maxnreg",
                                                "launch_cooperative_grid",
                                                "matrix_instr_nonkdim",
                                                "kpack"};
    PyObject *name, *value;
    for (Py_ssize_t pos = 0;
         kwargs && PyDict_Next(kwargs, &pos, &name, &value);) {
      bool matched = false;
      for (int o = 0; o < kOptions && !matched; ++o)
        if (PyUnicode_CompareWithASCIIString(name, optionNames[o]) == 0) {
          // Integers, flags, and None (maxnreg: no limit) as 0; the
          // Python path judges the rest (integers beyond a long too).
          int overflow = 0;
          if (value == Py_None)
            options[o] = 0;
          else if (PyLong_CheckExact(value) || PyBool_Check(value))
            options[o] = PyLong_AsLongAndOverflow(value, &overflow);
          else
            return false;
          if (overflow)
            return false;
          matched = true;
        }
      for (size_t i = 0; i < n && !matched; ++i)
        if (PyUnicode_Compare(name, names[i].ptr()) == 0) {
          if (values[i])
            return false; // given twice: Python says so
          values[i] = value;
          matched = true;
        }
      if (!matched)
        return false;
    }
    for (size_t i = 0; i < n; ++i)
      if (!values[i] &&
          !(values[i] = PyDict_GetItemWithError(defaults.ptr(),
                                                 names[i].ptr())))
        return false;

    std::string &key = call.key;
    key.clear();
    for (long option : options)
      key += std::to_string(option) + ",";
    key += "|";
    for (size_t i = 0; i < n; ++i)
      if (!addArgument(values[i], roles[i], call))
        return false;
    key += "@" + std::to_string(call.device);
    call.keyed = true;
    if (call.device < 0)
      return false; // no tensor on a GPU: the Python path decides
    return gridOf(grid, values, options, call.grid);
  }

  static constexpr size_t kMaxArguments = 64;
  /// Launch options: num_warps, num_stages, num_ctas, waves_per_eu,
  /// enable_fp_fusion, maxnreg, launch_cooperative_grid,
  /// matrix_instr_nonkdim, kpack.
  static constexpr int kOptions = 9;

  bool addArgument(PyObject *value, Role role, Call &call) {
    std::string &key = call.key;
    if (role == Role::Constexpr)
      return addConstant(value, key);
    if (call.parameters.full())
      return false;
    bool specialised = role == Role::Specialised;
    PyTypeObject *tensorClass = tensorType();
    if (tensorClass && PyObject_TypeCheck(value, tensorClass)) {
      // Interned once, never released (they outlive the interpreter).
      static py::handle getDevice = PyUnicode_InternFromString("get_device"),
                        dtypeName = PyUnicode_InternFromString("dtype"),
                        dataPtr = PyUnicode_InternFromString("data_ptr");
      long device = callForLong(value, getDevice);
      if (device < 0 || (call.device >= 0 && device != call.device))
        return false; // host memory, or tensors on two devices
      call.device = device;
      PyObject *dtype = PyObject_GetAttr(value, dtypeName.ptr());
      if (!dtype)
        return false;
      Py_DECREF(dtype); // torch keeps its dtypes: the address is a name
      PyObject *pointer = PyObject_CallMethodNoArgs(value, dataPtr.ptr());
      uint64_t address = pointer ? PyLong_AsUnsignedLongLong(pointer) : 0;
      Py_XDECREF(pointer);
      if (!pointer || PyErr_Occurred())
        return false;
      key += 'T';
      key.append(reinterpret_cast<const char *>(&dtype), sizeof dtype);
      key += specialised && address % 16 == 0 ? 'a' : 'u';
      call.parameters.add(address);
      return true;
    }
    if (PyBool_Check(value)) {
      key += 'b';
      call.parameters.add<uint8_t>(value == Py_True);
      return true;
    }
    if (PyLong_CheckExact(value)) {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
      if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(value);
        if (PyErr_Occurred()) {
          PyErr_Clear();
          return false; // beyond 64 bits: Python says so
        }
        key += specialised && u % 16 == 0 ? "Ud" : "U-";
        call.parameters.add(u);
        return true;
      }
      if (overflow < 0)
        return false;
      if (specialised && v == 1) {
        key += '1'; // a compile-time 1, like Triton
        return true;
      }
      char kind = v >= -(1ll << 31) && v < (1ll << 31) ? 'i'
                  : v >= 0 && v < (1ll << 32)          ? 'u'
                                                       : 'l';
      key += kind;
      key += specialised && v % 16 == 0 ? 'd' : '-';
      if (kind == 'l')
        call.parameters.add<int64_t>(v);
      else
        call.parameters.add<uint32_t>(static_cast<uint32_t>(v));
      return true;
    }
    if (PyFloat_CheckExact(value)) {
      key += 'f';
      call.parameters.add(static_cast<float>(PyFloat_AS_DOUBLE(value)));
      return true;
    }
    if (value == Py_None) {
      key += 'n';
      return true;
    }
    return false;
  }

  /// `object.method()` as a C long; -1 where it fails or is not an int.
  static long callForLong(PyObject *object, py::handle method) {
    PyObject *result = PyObject_CallMethodNoArgs(object, method.ptr());
    long value = result && PyLong_Check(result) ? PyLong_AsLong(result) : -1;
    Py_XDECREF(result);
    return value;
  }

  /// A compile-time value's part of the key.
  static bool addConstant(PyObject *value, std::string &key) {
    py::handle v(value);
    if (py::hasattr(v, "value") && !PyLong_Check(value))
      v = v.attr("value"); // tl.constexpr
    key += 'k';
    if (PyLong_CheckExact(v.ptr()) || PyBool_Check(v.ptr()) ||
        v.ptr() == Py_None)
      key += py::str(v).cast<std::string>();
    else
      key += py::repr(v).cast<std::string>();
    key += '\0';
    return true;
  }

  bool gridOf(py::handle grid, PyObject *const *values, const long *options,
              std::array<unsigned, 3> &dims) {
    py::object resolved = py::reinterpret_borrow<py::object>(grid);
    if (PyCallable_Check(grid.ptr())) {
      py::dict meta;
      for (size_t i = 0; i < names.size(); ++i)
        meta[names[i]] = py::handle(values[i]);
      meta["num_warps"] = options[0];
      meta["num_stages"] = options[1];
      resolved = grid(meta);
    }
    if (PyLong_CheckExact(resolved.ptr()))
      resolved = py::make_tuple(resolved);
    bool tuple = PyTuple_Check(resolved.ptr());
    if (!tuple && !PyList_Check(resolved.ptr()))
      return false;
    Py_ssize_t size = Py_SIZE(resolved.ptr());
    if (size < 1 || size > 3)
      return false;
    for (Py_ssize_t d = 0; d < size; ++d) {
      PyObject *item = tuple ? PyTuple_GET_ITEM(resolved.ptr(), d)
                             : PyList_GET_ITEM(resolved.ptr(), d);
      if (!PyLong_CheckExact(item))
        return false;
      long long g = PyLong_AsLongLong(item);
      // Past CUDA's limits (jit.GRID_LIMITS) the Python path says so.
      long long limit = d == 0 ? 0x7fffffff : 0xffff;
      if (g < 1 || g > limit) {
        PyErr_Clear();
        return false; // empty or invalid grids: the Python path
      }
      dims[d] = static_cast<unsigned>(g);
    }
    return true;
  }

  /// torch.Tensor, once torch is imported.
  PyTypeObject *tensorType() {
    if (!tensor) {
      py::object torch =
          py::module_::import("sys").attr("modules").attr("get")("torch");
      if (torch.is_none())
        return nullptr;
      tensor = torch.attr("Tensor");
      // Absent from builds of torch without CUDA (whose tensors are on the
      // host, and never reach currentStream).
      py::object native = torch.attr("_C");
      if (py::hasattr(native, "_cuda_getCurrentRawStream"))
        rawStream = native.attr("_cuda_getCurrentRawStream");
    }
    return reinterpret_cast<PyTypeObject *>(tensor.ptr());
  }

  std::optional<uint64_t> currentStream(int device) {
    if (!rawStream)
      return std::nullopt;
    return rawStream(device).cast<uint64_t>();
  }

  py::object slowPath;
  std::vector<py::str> names;
  std::vector<Role> roles;
  py::dict defaults;
  py::object tensor, rawStream;
  std::unordered_map<std::string, Entry> entries;
};

/// `kernel[grid]`: a callable that launches through the kernel's Launcher,
/// called by CPython directly (no argument conversion on the way in).
struct BoundLaunch {
  PyObject_HEAD Launcher *launcher;
  PyObject *owner; // the Launcher's Python object, kept alive
  PyObject *grid;

  static PyObject *call(PyObject *self, PyObject *args, PyObject *kwargs) {
    auto *bound = reinterpret_cast<BoundLaunch *>(self);
    try {
      return bound->launcher->launch(bound->grid, args, kwargs).release().ptr();
    } catch (py::error_already_set &e) {
      e.restore();
    } catch (const std::exception &e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
    return nullptr;
  }

  static void dealloc(PyObject *self) {
    auto *bound = reinterpret_cast<BoundLaunch *>(self);
    Py_XDECREF(bound->owner);
    Py_XDECREF(bound->grid);
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free(self);
    Py_DECREF(type);
  }

  static PyTypeObject *type() {
    static PyType_Slot slots[] = {
        {Py_tp_call, reinterpret_cast<void *>(&BoundLaunch::call)},
        {Py_tp_dealloc, reinterpret_cast<void *>(&BoundLaunch::dealloc)},
        {0, nullptr}};
    static PyType_Spec spec = {"tessera._tessera.BoundLaunch",
                               sizeof(BoundLaunch), 0, Py_TPFLAGS_DEFAULT,
                               slots};
    static PyObject *made = PyType_FromSpec(&spec);
    return reinterpret_cast<PyTypeObject *>(made);
  }

  static py::object make(py::object owner, py::object grid) {
    PyTypeObject *boundType = type();
    if (!boundType)
      throw py::error_already_set();
    PyObject *self = boundType->tp_alloc(boundType, 0);
    if (!self)
      throw py::error_already_set();
    auto *bound = reinterpret_cast<BoundLaunch *>(self);
    bound->launcher = owner.cast<Launcher *>();
    bound->owner = owner.release().ptr();
    bound->grid = grid.release().ptr();
    return py::reinterpret_steal<py::object>(self);
  }
};

} // namespace

void bindLaunch(py::module_ &m) {
  py::class_<GpuKernel>(m, "GpuKernel")
      .def(py::init<runtime::Driver &, const std::string &, const std::string &,
                    unsigned, unsigned, unsigned,
                    const std::vector<std::string> &, bool>(),
           py::arg("driver"), py::arg("image"), py::arg("name"),
           py::arg("threads_per_block"), py::arg("shared_bytes"),
           py::arg("parameters") = 0,
           py::arg("tensor_maps") = std::vector<std::string>(),
           py::arg("cooperative") = false)
      .def("launch", &launchFromList, py::arg("grid"), py::arg("args"),
           py::arg("stream") = 0)
      .def_property_readonly(
          "n_regs", [](GpuKernel &k) { return k.resources().registers; })
      .def_property_readonly("n_spills", [](GpuKernel &k) {
        // As Triton counts them: 4-byte words of local memory.
        return k.resources().localBytes / 4;
      });
  py::class_<Launcher>(m, "Launcher")
      .def(py::init<py::object, std::vector<std::string>, std::vector<int>,
                    py::dict>(),
           py::arg("slow_path"), py::arg("names"), py::arg("roles"),
           py::arg("defaults"))
      .def("bind", &BoundLaunch::make, py::arg("grid"),
           "the launches of `grid`: call it with the kernel's arguments")
      .def("add", &Launcher::add, py::arg("key"), py::arg("kernel"),
           py::arg("result"), py::arg("watches"))
      .def("clear", &Launcher::clear)
      .def("__len__", &Launcher::size);
}
