# Finds LLVM/MLIR 22 and links them statically into everything we ship.
#
# Debian's exported MLIR targets name `LLVM` (libLLVM.so) in their link
# interface. Mixing that dylib with static LLVM component libraries registers
# every cl::opt twice and aborts at start-up, so every MLIR target's `LLVM` is
# replaced by the static component libraries below.

set(TESSERA_LLVM_PREFIX "/usr/lib/llvm-22" CACHE PATH "LLVM/MLIR 22 install prefix")
find_package(MLIR REQUIRED CONFIG
  HINTS "${TESSERA_LLVM_PREFIX}/lib/cmake/mlir" NO_DEFAULT_PATH)
find_package(LLVM REQUIRED CONFIG
  HINTS "${TESSERA_LLVM_PREFIX}/lib/cmake/llvm" NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "Tessera needs LLVM/MLIR 22, found ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "Using LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")
# lld as a library links AMD code objects in-process. Its LTO support names
# Polly (through LLVMExtensions), which Debian does not ship as a static
# library; nothing here uses it.
find_package(LLD REQUIRED CONFIG
  HINTS "${TESSERA_LLVM_PREFIX}/lib/cmake/lld" NO_DEFAULT_PATH)
if(TARGET LLVMExtensions)
  get_target_property(extensionLibs LLVMExtensions INTERFACE_LINK_LIBRARIES)
  list(REMOVE_ITEM extensionLibs Polly)
  set_target_properties(LLVMExtensions PROPERTIES
    INTERFACE_LINK_LIBRARIES "${extensionLibs}")
endif()

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)

# The LLVM tools (FileCheck, lit, not, ld.lld) are found beside the libraries.
set(TESSERA_LLVM_TOOLS_DIR "${LLVM_TOOLS_BINARY_DIR}")

llvm_map_components_to_libnames(TESSERA_LLVM_STATIC_LIBS
  Core Support BinaryFormat AsmParser BitReader BitWriter IRReader Linker
  Passes IPO TargetParser FrontendOpenMP FrontendOffloading MC MCParser
  Object Option TransformUtils Analysis CodeGen
  NVPTXCodeGen NVPTXDesc NVPTXInfo
  AMDGPUCodeGen AMDGPUDesc AMDGPUInfo AMDGPUAsmParser AMDGPUUtils
  LTO DTLTO Demangle DebugInfoDWARF
  X86CodeGen X86Desc X86Info X86AsmParser)

foreach(target ${MLIR_EXPORTED_TARGETS} lldCommon lldELF)
  if(NOT TARGET ${target})
    continue()
  endif()
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "STATIC_LIBRARY")
    continue()
  endif()
  get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
  if(libs AND "LLVM" IN_LIST libs)
    list(TRANSFORM libs REPLACE "^LLVM$" "${TESSERA_LLVM_STATIC_LIBS}")
    set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
  endif()
endforeach()

# lld links the static tools in about a second; GNU ld takes several.
if(EXISTS "${TESSERA_LLVM_TOOLS_DIR}/ld.lld")
  add_link_options(-fuse-ld=lld "-B${TESSERA_LLVM_TOOLS_DIR}")
endif()
