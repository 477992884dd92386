# lit configuration for Tessera's FileCheck tests.
import os

import lit.formats

config.name = "Tessera"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tessera_obj_root, "test")

# Our tools first, then LLVM's FileCheck, not and count.
config.environment["PATH"] = os.pathsep.join(
    [config.tessera_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

# The tools read Python (kernels, layouts) through the tessera package.
if config.tessera_python.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("python")

config.substitutions.append(("%tessera_src_root", config.tessera_src_root))
config.substitutions.append(("%tessera_tools_dir", config.tessera_tools_dir))
config.substitutions.append(("%tessera_compiler_library", config.tessera_compiler_library))
for name, path in config.tessera_plugins.items():
    config.substitutions.append((f"%{name}_plugin", path))
