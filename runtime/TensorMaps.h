//===- TensorMaps.h - the tensor maps a kernel takes, from its arguments --===//
//
// A kernel whose descriptor blocks are copied in bulk (TMA) takes, after
// its own parameters, one 128-byte tensor map per descriptor and box. The
// compiler describes each in a line of text; at every launch the tensor map
// is encoded from the arguments it names:
//
//   base=arg0 shape=arg3/32,arg4/32 strides=arg5/64 box=128,64 dtype=fp16
//   swizzle=128 nan=0
//
// `argN/B` is parameter N, a B-bit integer; a number is a constant. The
// strides, in elements, are all but the innermost (1); lists go outermost
// first. Standard library only.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_TENSORMAPS_H
#define TESSERA_RUNTIME_TENSORMAPS_H

#include "runtime/Driver.h"

#include <cstdlib>
#include <cstring>
#include <sstream>

namespace mlir::tile::runtime {

class TensorMapSpec {
public:
  /// Reads a description; throws DriverError for one it cannot read.
  explicit TensorMapSpec(const std::string &text) {
    std::istringstream in(text);
    std::string field;
    bool ok = true;
    while (in >> field) {
      size_t eq = field.find('=');
      std::string key = field.substr(0, eq), value = field.substr(eq + 1);
      if (eq == std::string::npos)
        ok = false;
      else if (key == "base")
        ok &= parseList(value, bases) && bases.size() == 1;
      else if (key == "shape")
        ok &= parseList(value, shape);
      else if (key == "strides")
        ok &= parseList(value, strides);
      else if (key == "box")
        ok &= parseList(value, box);
      else if (key == "dtype")
        request.dtype = value;
      else if (key == "swizzle")
        ok &= parseNumber(value, request.swizzle);
      else if (key == "nan")
        request.nanPadding = value == "1";
    }
    bytes = elementBytes(request.dtype);
    if (!ok || bases.empty() || !bytes || shape.size() != box.size() ||
        strides.size() + 1 != shape.size())
      throw DriverError("the kernel's tensor map '" + text +
                        "' cannot be read");
    for (const Source &b : box)
      request.box.push_back(static_cast<uint32_t>(b.value));
  }

  /// The request for a launch whose parameter i is at `args[i]`.
  TensorMapRequest requestFor(void *const *args) const {
    TensorMapRequest r = request;
    r.address = read(bases.front(), args);
    r.shape.clear();
    r.strides.clear();
    for (const Source &s : shape)
      r.shape.push_back(read(s, args));
    for (const Source &s : strides)
      r.strides.push_back(read(s, args) * bytes);
    return r;
  }

private:
  /// A parameter (`argument` >= 0, of `bits` bits) or a constant.
  struct Source {
    int argument = -1;
    unsigned bits = 64;
    uint64_t value = 0;
  };

  static bool parseNumber(const std::string &text, unsigned &out) {
    char *end = nullptr;
    out = std::strtoul(text.c_str(), &end, 10);
    return !text.empty() && !*end;
  }

  static bool parseList(const std::string &text, std::vector<Source> &out) {
    std::istringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
      Source s;
      char *end = nullptr;
      if (item.rfind("arg", 0) == 0) {
        s.argument = std::strtol(item.c_str() + 3, &end, 10);
        if (*end == '/')
          s.bits = std::strtoul(end + 1, &end, 10);
      } else {
        s.value = std::strtoull(item.c_str(), &end, 10);
      }
      if (!end || *end || (s.bits != 32 && s.bits != 64))
        return false;
      out.push_back(s);
    }
    return !out.empty();
  }

  static uint64_t read(const Source &s, void *const *args) {
    if (s.argument < 0)
      return s.value;
    if (s.bits == 32) {
      uint32_t v;
      std::memcpy(&v, args[s.argument], sizeof v);
      return v;
    }
    uint64_t v;
    std::memcpy(&v, args[s.argument], sizeof v);
    return v;
  }

  static unsigned elementBytes(const std::string &dtype) {
    if (dtype == "fp32" || dtype == "i32")
      return 4;
    if (dtype == "fp16" || dtype == "bf16" || dtype == "i16")
      return 2;
    if (dtype == "i8" || dtype == "u8" || dtype.rfind("fp8", 0) == 0)
      return 1;
    return 0;
  }

  TensorMapRequest request;
  std::vector<Source> bases, shape, strides, box;
  unsigned bytes = 0;
};

} // namespace mlir::tile::runtime

#endif // TESSERA_RUNTIME_TENSORMAPS_H
