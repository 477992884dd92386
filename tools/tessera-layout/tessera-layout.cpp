//===- tessera-layout.cpp - show which thread holds which element ---------===//
//
// Prints a layout attribute for a tensor type: for each element, the
// (warp, lane, register) holding it (or its shared-memory offset), or, with
// --view=hardware, for each warp and lane the elements its registers hold.
//
//   tessera-layout -l '#tile.blocked<{...}>' -t 'tensor<16x16xf16>'
//
// With --to, it instead plans the conversion from -l to another distributed
// layout: how data moves, and for a trip through shared memory its size,
// swizzle and bank traffic.
//
// Layouts may be spelt as a Gluon kernel spells them, read through the
// tessera package:
//
//   tessera-layout -l 'gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])' ...
//
//===----------------------------------------------------------------------===//

#include "backends/amd/IR/AmdDialect.h"
#include "backends/nvidia/IR/NvidiaDialect.h"
#include "ir/Layout/ConversionPlan.h"
#include "ir/Layout/LayoutAttrs.h"
#include "ir/Tile/TileDialect.h"
#include "tools/common/Python.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;

namespace {
llvm::cl::opt<std::string>
    layoutText("l",
               llvm::cl::desc("the layout attribute, e.g. "
                              "'#tile.blocked<{...}>'"),
               llvm::cl::value_desc("attribute"), llvm::cl::Required);
llvm::cl::opt<std::string>
    typeText("t", llvm::cl::desc("the tensor type, e.g. 'tensor<16x16xf16>'"),
             llvm::cl::value_desc("type"), llvm::cl::Required);
llvm::cl::opt<std::string>
    targetText("to",
               llvm::cl::desc("plan the conversion to this distributed layout"),
               llvm::cl::value_desc("attribute"));
enum class View { Tensor, Hardware };
llvm::cl::opt<View>
    view("view", llvm::cl::desc("what to list"), llvm::cl::init(View::Tensor),
         llvm::cl::values(
             clEnumValN(View::Tensor, "tensor",
                        "for each element, who holds it (default)"),
             clEnumValN(View::Hardware, "hardware",
                        "for each warp and lane (or offset), what it holds")));

std::string coordText(const LinearLayout::Point &point) {
  std::string text = "(";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(point, os, [&](const auto &p) { os << p.second; });
  os << ")";
  return text;
}

/// Evaluates a layout spelt in Python (`gl.BlockedLayout(...)`, `gl.` and
/// `amd.` optional) with the tessera package: its attribute text, or an
/// error saying why not.
llvm::Expected<std::string> layoutFromPython(const char *argv0,
                                             llvm::StringRef spelling) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  std::string python = tessera::tools::preparePython(
      argv0, reinterpret_cast<void *>(&layoutFromPython));
  if (python.empty())
    return error("this tessera-layout was built without Python: give the "
                 "layout as an attribute ('#tile.blocked<{...}>')");
  llvm::SmallString<128> output;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tessera-layout", "txt", output))
    return error("cannot make a temporary file: " + ec.message());
  llvm::FileRemover remover(output);
  static constexpr const char *script =
      "import sys\n"
      "from tessera.experimental.gluon import language as gl\n"
      "from tessera.experimental.gluon.language import amd\n"
      "names = dict(vars(gl), gl=gl, amd=amd, "
      "AMDMFMALayout=amd.AMDMFMALayout,\n"
      "             AMDWMMALayout=amd.AMDWMMALayout)\n"
      "layout = eval(sys.argv[1], names)\n"
      "if not isinstance(layout, (gl.DistributedLayout, gl.SharedLayout)):\n"
      "    sys.exit(f'{sys.argv[1]} is not a layout')\n"
      "print(layout._to_ir())\n";
  llvm::StringRef args[] = {python, "-c", script, spelling};
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(output), std::nullopt};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(python, args, std::nullopt, redirects,
                                         0, 0, &message);
  if (status != 0)
    return error("cannot read the layout '" + spelling + "' in Python" +
                 (message.empty() ? "" : ": " + message));
  auto text = llvm::MemoryBuffer::getFile(output);
  if (!text)
    return error("cannot read what Python printed: " +
                 text.getError().message());
  return (*text)->getBuffer().trim().str();
}

/// Flattens a tensor coordinate, row-major.
int64_t flatIndex(const LinearLayout::Point &point, ArrayRef<int64_t> shape) {
  int64_t index = 0;
  for (auto [d, p] : llvm::enumerate(point))
    index = index * shape[d] + p.second;
  return index;
}

/// Prints one entry per element in row-major order, a row per line.
void printTensor(ArrayRef<int64_t> shape,
                 const std::vector<std::vector<std::string>> &holders) {
  int64_t rowLength = shape.back();
  for (int64_t i = 0; i < int64_t(holders.size()); ++i) {
    if (i % rowLength == 0) {
      // Leading coordinates of the row, for tensors of rank 3 and more.
      if (shape.size() > 2 && i % (rowLength * shape[shape.size() - 2]) == 0) {
        llvm::outs() << "[";
        int64_t rest = i;
        SmallVector<int64_t> lead;
        for (size_t d = shape.size(); d-- > 0;) {
          lead.push_back(rest % shape[d]);
          rest /= shape[d];
        }
        for (size_t d = shape.size() - 1; d-- > 2;)
          llvm::outs() << lead[d] << ", ";
        llvm::outs() << lead[2] << ", :, :]\n";
      }
      llvm::outs() << "[";
    }
    llvm::outs() << llvm::join(holders[i], "|");
    llvm::outs() << ((i + 1) % rowLength == 0 ? "]\n" : ", ");
  }
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "Tessera layout viewer: which (warp, lane, register) holds each "
      "element of a tensor\n");
  MLIRContext context;
  context.loadDialect<TileDialect, nvidia::TileNvidiaDialect,
                      amd::TileAmdDialect>();
  auto fail = [](const llvm::Twine &message) {
    llvm::WithColor::error(llvm::errs(), "tessera-layout") << message << "\n";
    return 1;
  };
  // Layouts spelt in Python (a call: `gl.BlockedLayout(...)`) become
  // attribute text first.
  for (llvm::cl::opt<std::string> *text : {&layoutText, &targetText}) {
    llvm::StringRef callee =
        llvm::StringRef(*text).trim().split('(').first.rtrim();
    bool isCall = llvm::StringRef(*text).contains('(') && !callee.empty() &&
                  (llvm::isAlpha(callee.front()) || callee.front() == '_') &&
                  llvm::all_of(callee, [](char c) {
                    return llvm::isAlnum(c) || c == '_' || c == '.';
                  });
    if (!isCall)
      continue;
    llvm::Expected<std::string> attribute = layoutFromPython(argv[0], *text);
    if (!attribute)
      return fail(llvm::toString(attribute.takeError()));
    *text = *attribute;
  }
  // Parse errors are reported by the handler; it keeps the process alive.
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  Attribute layout = parseAttribute(layoutText, &context);
  if (!layout)
    return fail("cannot parse the layout '" + layoutText + "': " + diagnostics);
  auto type =
      dyn_cast_if_present<RankedTensorType>(parseType(typeText, &context));
  if (!type)
    return fail("'" + typeText + "' is not a ranked tensor type " +
                diagnostics);
  auto emitLayoutError = [&] {
    return mlir::emitError(UnknownLoc::get(&context));
  };
  if (auto encoding = dyn_cast<VerifiableTensorEncoding>(layout))
    if (failed(encoding.verifyEncoding(type.getShape(), type.getElementType(),
                                       emitLayoutError)))
      return fail(diagnostics);
  ArrayRef<int64_t> shape = type.getShape();
  int64_t elements = type.getNumElements();
  std::vector<std::vector<std::string>> holders(elements);

  if (auto shared = dyn_cast<SharedLayoutAttrInterface>(layout)) {
    LinearLayout ll = shared.toLinearLayout(shape);
    // Offsets where the elements are, the layout's padding included.
    SharedPadding padding = getSharedPadding(layout);
    llvm::outs() << "Shared layout " << layout << " of " << type << "\n";
    for (int32_t offset = 0; offset < ll.getInDimSize(kOffset); ++offset) {
      LinearLayout::Point element = ll.apply({{kOffset, offset}});
      int64_t place = padding.apply(offset);
      if (view == View::Hardware)
        llvm::outs() << "offset " << place << ": " << coordText(element)
                     << "\n";
      else
        holders[flatIndex(element, shape)].push_back(std::to_string(place));
    }
    if (view == View::Tensor)
      printTensor(shape, holders);
    return 0;
  }
  if (isa<CoalescedLayoutAttr>(layout))
    return fail("'" + layoutText +
                "' is chosen by the backend for the memory accesses of a "
                "kernel: it places no elements by itself");
  auto distributed = dyn_cast<DistributedLayoutAttrInterface>(layout);
  if (!distributed)
    return fail("'" + layoutText + "' is not a layout attribute");
  LinearLayout ll = distributed.toLinearLayout(shape);
  if (!targetText.empty()) {
    auto target = dyn_cast_if_present<DistributedLayoutAttrInterface>(
        parseAttribute(targetText, &context));
    if (!target)
      return fail("'" + targetText + "' is not a distributed layout " +
                  diagnostics);
    if (failed(cast<VerifiableTensorEncoding>(Attribute(target))
                   .verifyEncoding(shape, type.getElementType(),
                                   emitLayoutError)))
      return fail(diagnostics);
    unsigned bits = type.getElementType().getIntOrFloatBitWidth();
    std::optional<ConversionPlan> plan =
        planConversion(ll, target.toLinearLayout(shape), bits);
    if (!plan)
      return fail("the target layout holds elements the source does not");
    llvm::outs() << "conversion: " << stringifyConversionKind(plan->kind)
                 << "\n";
    if (plan->kind != ConversionKind::SharedMemory)
      return 0;
    const BankTraffic &t = plan->traffic;
    llvm::outs() << "shared memory: " << plan->sharedBytes << " bytes\n";
    if (plan->swizzle) {
      llvm::outs() << "swizzle: vec = " << plan->swizzle->vec
                   << ", perPhase = " << plan->swizzle->perPhase
                   << ", maxPhase = " << plan->swizzle->maxPhase
                   << ", order = [";
      llvm::interleaveComma(plan->swizzle->order, llvm::outs());
      llvm::outs() << "]\n";
    } else
      llvm::outs() << "swizzle: linear\n" << plan->shared << "\n";
    llvm::outs() << "store: " << t.storeVec << " elements per access, "
                 << t.storeWavefronts << " wavefronts per warp ("
                 << t.idealStoreWavefronts << " without conflicts)\n"
                 << "load: " << t.loadVec << " elements per access, "
                 << t.loadWavefronts << " wavefronts per warp ("
                 << t.idealLoadWavefronts << " without conflicts)\n";
    return 0;
  }
  int32_t lanes = ll.getInDimSize(kLane);
  llvm::outs() << "Distributed layout " << layout << " of " << type << "\n"
               << ll.getInDimSize(kWarp) << " warps of " << lanes << " lanes, "
               << ll.getInDimSize(kRegister)
               << " registers each; T<thread>:<register>, thread = warp * "
               << lanes << " + lane\n";
  for (int32_t w = 0; w < ll.getInDimSize(kWarp); ++w) {
    if (view == View::Hardware)
      llvm::outs() << "Warp " << w << ":\n";
    for (int32_t l = 0; l < lanes; ++l) {
      if (view == View::Hardware)
        llvm::outs() << "  T" << w * lanes + l << ":";
      for (int32_t r = 0; r < ll.getInDimSize(kRegister); ++r) {
        LinearLayout::Point element =
            ll.apply({{kRegister, r}, {kLane, l}, {kWarp, w}});
        if (view == View::Hardware)
          llvm::outs() << " " << coordText(element);
        else
          holders[flatIndex(element, shape)].push_back(
              "T" + std::to_string(w * lanes + l) + ":" + std::to_string(r));
      }
      if (view == View::Hardware)
        llvm::outs() << "\n";
    }
  }
  if (view == View::Tensor)
    printTensor(shape, holders);
  return 0;
}
