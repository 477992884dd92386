//===- LaunchSource.cpp - C launchers of kernels compiled ahead of time --===//

#include "runtime/capi/LaunchSource.h"

#include <cstdio>
#include <stdexcept>

using namespace mlir::tile::runtime;

namespace {

bool isIdentifier(const std::string &name) {
  if (name.empty() ||
      !(isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  for (char c : name)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

/// The C type of a parameter type ("*fp32:16", "i32", "fp16").
std::string cType(const std::string &type) {
  std::string base = type.substr(0, type.find(':'));
  if (!base.empty() && base[0] == '*')
    return "uint64_t"; // a device address
  static const std::map<std::string, std::string> types = {
      {"i1", "bool"},         {"i8", "int8_t"},     {"i16", "int16_t"},
      {"i32", "int32_t"},     {"i64", "int64_t"},   {"u1", "bool"},
      {"u8", "uint8_t"},      {"u16", "uint16_t"},  {"u32", "uint32_t"},
      {"u64", "uint64_t"},    {"fp16", "uint16_t"}, {"bf16", "uint16_t"},
      {"fp32", "float"},      {"fp64", "double"},   {"int1", "bool"},
      {"int32", "int32_t"},   {"int64", "int64_t"}, {"uint32", "uint32_t"},
      {"uint64", "uint64_t"}, {"float32", "float"}, {"float64", "double"}};
  auto it = types.find(base);
  if (it == types.end())
    throw std::invalid_argument("a kernel parameter of type '" + type +
                                "' cannot be passed from C");
  return it->second;
}

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string platformConstant(const LaunchSpec &spec) {
  return spec.platform == "hip" ? "TESSERA_PLATFORM_HIP"
                                : "TESSERA_PLATFORM_CUDA";
}

/// `int <prefix>(void *stream, unsigned grid_x, ..., <parameters>)`, or
/// without the grid, `int <prefix>_default(void *stream, <parameters>)`.
std::string launchSignature(const LaunchSpec &spec, bool withGrid = true) {
  std::string text = "int " + spec.prefix +
                     (withGrid ? "(void *stream, unsigned grid_x, unsigned "
                                 "grid_y, unsigned grid_z"
                               : "_default(void *stream");
  for (const LaunchParameter &p : spec.parameters)
    text += ", " + cType(p.type) + " " + p.name;
  return text + ")";
}

/// Fails unless `expression` is arithmetic on numbers and parameters.
void checkGridExpression(const LaunchSpec &spec,
                         const std::string &expression) {
  for (size_t i = 0; i < expression.size();) {
    char c = expression[i];
    if (isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t end = i;
      while (end < expression.size() &&
             (isalnum(static_cast<unsigned char>(expression[end])) ||
              expression[end] == '_'))
        ++end;
      std::string name = expression.substr(i, end - i);
      bool known = false;
      for (const LaunchParameter &p : spec.parameters)
        known |= p.name == name && p.type[0] != '*';
      if (!known)
        throw std::invalid_argument(
            "the grid expression '" + expression + "' names '" + name +
            "', which is not an integer parameter of the kernel");
      i = end;
    } else if (isdigit(static_cast<unsigned char>(c)) ||
               std::string(" +-*/%()").find(c) != std::string::npos) {
      ++i;
    } else {
      throw std::invalid_argument("the grid expression '" + expression +
                                  "' holds '" + std::string(1, c) +
                                  "': only numbers, integer parameters and "
                                  "+ - * / % ( ) may appear");
    }
  }
}

void check(const LaunchSpec &spec) {
  if (!isIdentifier(spec.prefix))
    throw std::invalid_argument("'" + spec.prefix +
                                "' cannot name C functions");
  if (spec.platform != "cuda" && spec.platform != "hip")
    throw std::invalid_argument("unknown platform '" + spec.platform + "'");
  for (const LaunchParameter &p : spec.parameters) {
    if (!isIdentifier(p.name))
      throw std::invalid_argument("parameter '" + p.name +
                                  "' is not a C identifier");
    for (const char *taken : {"stream", "grid_x", "grid_y", "grid_z"})
      if (p.name == taken)
        throw std::invalid_argument(
            "parameter '" + p.name +
            "' has the name of a launch argument (stream, grid_x, grid_y, "
            "grid_z): rename it in the kernel");
  }
  if (spec.grid.size() > 3)
    throw std::invalid_argument("a grid has at most 3 dimensions");
  for (const std::string &expression : spec.grid)
    checkGridExpression(spec, expression);
}

} // namespace

LaunchSource mlir::tile::runtime::emitLaunchSource(const LaunchSpec &spec) {
  check(spec);
  const std::string &p = spec.prefix;
  unsigned threads = spec.numWarps * spec.warpSize;
  std::string guard;
  for (char c : p)
    guard += static_cast<char>(toupper(static_cast<unsigned char>(c)));
  guard = "TESSERA_KERNEL_" + guard + "_H";

  LaunchSource out;
  std::string &h = out.header;
  h += "/* " + p + ": the kernel " + spec.kernel +
       " compiled by tessera-compile for " + spec.target + " (" + spec.arch +
       "), " + std::to_string(spec.numWarps) + " warps of " +
       std::to_string(spec.warpSize) + " lanes, " +
       std::to_string(spec.sharedBytes) + " bytes of shared memory. */\n";
  h += "#ifndef " + guard + "\n#define " + guard + "\n\n";
  h += "#include <stdbool.h>\n#include <stdint.h>\n\n#include "
       "\"tessera_runtime.h\"\n\n";
  h += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  h += "/* Loads the kernel on the current device; launches load it too. 0 on\n"
       "   success, else -1 and tessera_last_error() says why. */\n";
  h += "int " + p + "_load(void);\n";
  h += "void " + p + "_unload(void);\n";
  h +=
      "/* Launches a grid of programs on `stream` (NULL: the default stream).\n"
      "   Pointers are device addresses. */\n";
  h += launchSignature(spec) + ";\n";
  if (!spec.grid.empty()) {
    h += "/* The same on the grid (";
    for (size_t i = 0; i < spec.grid.size(); ++i)
      h += (i ? ", " : "") + spec.grid[i];
    h += ") it was compiled with. */\n" + launchSignature(spec, false) + ";\n";
  }
  h += "\n";
  h += "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " + guard + " */\n";

  std::string &c = out.source;
  c += "/* Generated by tessera-compile: " + p + " (" + spec.target + "). */\n";
  c += "#include \"" + p + ".h\"\n\n#include <stddef.h>\n\n";
  c += "static const unsigned char " + p + "_image[" +
       std::to_string(spec.image.size() + (spec.imageKind == "ptx")) + "] = {";
  for (size_t i = 0; i < spec.image.size(); ++i) {
    char byte[16];
    std::snprintf(byte, sizeof byte, "%s0x%02x,", i % 16 ? " " : "\n    ",
                  static_cast<unsigned char>(spec.image[i]));
    c += byte;
  }
  if (spec.imageKind == "ptx")
    c += " 0x00"; // PTX is loaded as a C string
  c += "\n};\n\n";
  c += "static tessera_module *" + p + "_module;\n";
  c += "static tessera_kernel *" + p + "_kernel;\n\n";
  c += "int " + p + "_load(void) {\n";
  c += "  if (" + p + "_kernel)\n    return 0;\n";
  c += "  if (tessera_module_load(" + platformConstant(spec) + ", " + p +
       "_image, sizeof " + p + "_image, &" + p + "_module))\n    return -1;\n";
  c += "  if (tessera_module_kernel(" + p + "_module, \"" + spec.kernel +
       "\", &" + p + "_kernel)) {\n";
  c += "    " + p + "_unload();\n    return -1;\n  }\n  return 0;\n}\n\n";
  c += "void " + p + "_unload(void) {\n";
  c += "  tessera_module_unload(" + p + "_module);\n";
  c += "  " + p + "_module = NULL;\n  " + p + "_kernel = NULL;\n}\n\n";
  c += launchSignature(spec) + " {\n";
  c += "  const unsigned grid[3] = {grid_x, grid_y, grid_z};\n";
  if (spec.parameters.empty()) {
    c += "  void **args = NULL;\n";
  } else {
    c += "  void *args[] = {";
    for (size_t i = 0; i < spec.parameters.size(); ++i)
      c += std::string(i ? ", " : "") + "&" + spec.parameters[i].name;
    c += "};\n";
  }
  c += "  if (" + p + "_load())\n    return -1;\n";
  c += "  return tessera_launch(" + p + "_kernel, grid, " +
       std::to_string(threads) + ", " + std::to_string(spec.sharedBytes) +
       ", args, stream);\n}\n";
  if (!spec.grid.empty()) {
    c += "\n" + launchSignature(spec, false) + " {\n  return " + p + "(stream";
    for (size_t i = 0; i < 3; ++i)
      c += ", (unsigned)(" + (i < spec.grid.size() ? spec.grid[i] : "1") + ")";
    for (const LaunchParameter &parameter : spec.parameters)
      c += ", " + parameter.name;
    c += ");\n}\n";
  }

  std::string &m = out.metadata;
  m += "{\n  \"name\": " + jsonString(p) + ",\n";
  m += "  \"kernel\": " + jsonString(spec.kernel) + ",\n";
  m += "  \"target\": " + jsonString(spec.target) + ",\n";
  m += "  \"platform\": " + jsonString(spec.platform) + ",\n";
  m += "  \"arch\": " + jsonString(spec.arch) + ",\n";
  m += "  \"num_warps\": " + std::to_string(spec.numWarps) + ",\n";
  m += "  \"warp_size\": " + std::to_string(spec.warpSize) + ",\n";
  m += "  \"threads_per_block\": " + std::to_string(threads) + ",\n";
  m += "  \"shared_bytes\": " + std::to_string(spec.sharedBytes) + ",\n";
  m += "  \"binary\": " + jsonString(p + "." + spec.imageKind) + ",\n";
  m += "  \"parameters\": [";
  for (size_t i = 0; i < spec.parameters.size(); ++i)
    m += std::string(i ? ", " : "") +
         "{\"name\": " + jsonString(spec.parameters[i].name) +
         ", \"type\": " + jsonString(spec.parameters[i].type) +
         ", \"c_type\": " + jsonString(cType(spec.parameters[i].type)) + "}";
  m += "],\n  \"grid\": [";
  for (size_t i = 0; i < spec.grid.size(); ++i)
    m += std::string(i ? ", " : "") + jsonString(spec.grid[i]);
  m += "],\n  \"constants\": {";
  bool first = true;
  for (const auto &[name, value] : spec.constants) {
    m += std::string(first ? "" : ", ") + jsonString(name) + ": " +
         jsonString(value);
    first = false;
  }
  m += "}\n}\n";
  return out;
}
