//===- Plugin.h - backends in shared libraries of their own ---------------===//
//
// A backend plugin is a shared library, built against an installed Tessera
// (find_package(Tessera)) and linked to libTesseraCompiler.so like the tools,
// that registers backends through the Backend interface. It says so once:
//
//   TESSERA_BACKEND_PLUGIN() {
//     mlir::tile::registerBackend(std::make_unique<MyBackend>());
//   }
//
// The macro emits an ELF note (section .note.tessera, owner "Tessera")
// holding the ABI tag of the Tessera it was built against, and the C
// function tesseraRegisterBackends_v1, which the loader (loadPlugin in
// Compiler.h) calls once. The
// loader reads the note before it opens the library, so that a plugin built
// against another Tessera or LLVM is refused with both tags named instead
// of failing inside dlopen. A plugin may register a backend of a built-in's
// name, which it then replaces.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_PLUGIN_H
#define TESSERA_BACKENDS_PLUGIN_H

#include "backends/PluginAbi.h"

#include <cstdint>

#define TESSERA_PLUGIN_STRING_(x) #x
#define TESSERA_PLUGIN_STRING(x) TESSERA_PLUGIN_STRING_(x)

/// What a plugin and the library loading it must agree on: Tessera's
/// release, LLVM's, and the C++ library's string ABI. Any two builds of a
/// release are not promised to be compatible beyond that.
#define TESSERA_ABI_TAG                                                        \
  "tessera " TESSERA_VERSION_STRING "; llvm " TESSERA_LLVM_VERSION_STRING      \
  "; cxx11abi " TESSERA_PLUGIN_STRING(_GLIBCXX_USE_CXX11_ABI)

/// The tag a plugin's note holds (a test may give another).
#ifndef TESSERA_PLUGIN_ABI_TAG
#define TESSERA_PLUGIN_ABI_TAG TESSERA_ABI_TAG
#endif

namespace mlir::tile::plugin {

/// The ELF note of a plugin: owner "Tessera", type kNoteType, the ABI tag.
constexpr uint32_t kNoteType = 1;
template <unsigned TagBytes> struct AbiNote {
  uint32_t ownerBytes, tagBytes, type;
  char owner[8];
  char tag[(TagBytes + 3) / 4 * 4];
};

} // namespace mlir::tile::plugin

#define TESSERA_BACKEND_PLUGIN()                                               \
  static void tesseraRegisterThisPlugin();                                     \
  extern "C" __attribute__((section(".note.tessera"), used, aligned(4),        \
                            visibility("default")))                            \
  const ::mlir::tile::plugin::AbiNote<sizeof(TESSERA_PLUGIN_ABI_TAG)>          \
      tesseraPluginNote = {8, sizeof(TESSERA_PLUGIN_ABI_TAG),                  \
                           ::mlir::tile::plugin::kNoteType, "Tessera",         \
                           TESSERA_PLUGIN_ABI_TAG};                            \
  extern "C" __attribute__((visibility("default"))) void                       \
  tesseraRegisterBackends_v1() {                                               \
    tesseraRegisterThisPlugin();                                               \
  }                                                                            \
  static void tesseraRegisterThisPlugin()

#endif // TESSERA_BACKENDS_PLUGIN_H
