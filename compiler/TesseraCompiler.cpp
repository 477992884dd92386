//===- TesseraCompiler.cpp - libTesseraCompiler.so's own entry point ------===//
//
// The library is made of Tessera's static libraries (compiler/CMakeLists.txt
// links them whole); this file gives it the one symbol of its own.
//
//===----------------------------------------------------------------------===//

/// The Tessera release the library is: "0.1.0".
extern "C" const char *tesseraCompilerVersion() { return TESSERA_VERSION; }
