"""Tessera's build backend (PEP 517): `pip install .` and `pip wheel .`
configure and build the source tree with CMake, as tools/quickstart.sh does,
then pack the package the build puts in <build>/python/tessera (the
_tessera extension, the C runtime and its header, the Python sources) into
a wheel for the Python running pip.

The build uses the CMake preset TESSERA_PRESET, else `ci` where CI=true,
else `release`, in build/<preset>; for a Python other than the one the
presets name, in build/<preset>-<python tag>, configured for it. Where
TESSERA_BUILD_DIR names a configured build tree, the package is built there
instead.
"""

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import tomllib
import zipfile
from importlib.machinery import EXTENSION_SUFFIXES

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRESETS_PYTHON = "/usr/bin/python3"  # CMakePresets.json's Python3_EXECUTABLE


def _project():
    with open(os.path.join(SOURCE, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _python_tag():
    return f"cp{sys.version_info.major}{sys.version_info.minor}"


def _build():
    """Configures and builds the package; returns <build>/python/tessera."""
    python = getattr(sys, "_base_executable", None) or sys.executable
    commands = []
    build_dir = os.environ.get("TESSERA_BUILD_DIR")
    if not build_dir:
        preset = os.environ.get("TESSERA_PRESET") or (
            "ci" if os.environ.get("CI") == "true" else "release")
        build_dir = os.path.join(SOURCE, "build", preset)
        commands.append(["cmake", "--preset", preset])
        if os.path.realpath(python) != os.path.realpath(PRESETS_PYTHON):
            build_dir += "-" + _python_tag()
            commands[0] += ["-B", build_dir, f"-DPython3_EXECUTABLE={python}"]
    commands.append(["cmake", "--build", build_dir, "--target", "_tessera", "tessera_runtime"])
    for command in commands:
        print("tessera:", " ".join(command), file=sys.stderr, flush=True)
        subprocess.run(command, cwd=SOURCE, check=True, stdout=sys.stderr)
    package = os.path.join(build_dir, "python", "tessera")
    suffix = EXTENSION_SUFFIXES[0]
    if not os.path.exists(os.path.join(package, "_tessera" + suffix)):
        raise RuntimeError(f"the build in {build_dir} made no _tessera{suffix} for "
                           f"{python}: its CMake cache names another Python")
    return package


def _files(package):
    """(path in the wheel, path on disk) of the package's files, through
    the build tree's links to the sources."""
    for root, dirs, names in os.walk(package, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if not name.endswith(".pyc"):
                path = os.path.join(root, name)
                yield "tessera/" + os.path.relpath(path, package).replace(os.sep, "/"), path


def _metadata(project):
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}",
             f"Version: {project['version']}", f"Summary: {project['description']}",
             f"Requires-Python: {project['requires-python']}"]
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    package = _build()
    tag = f"{_python_tag()}-{_python_tag()}-" + \
        sysconfig.get_platform().replace("-", "_").replace(".", "_")
    name = f"{project['name']}-{project['version']}"
    dist_info = f"{name}.dist-info"
    wheel = os.path.join(wheel_directory, f"{name}-{tag}.whl")
    scripts = "".join(f"{script} = {target}\n"
                      for script, target in project.get("scripts", {}).items())
    generated = {
        "METADATA": _metadata(project),
        "WHEEL": f"Wheel-Version: 1.0\nGenerator: tessera_build\nRoot-Is-Purelib: false\n"
                 f"Tag: {tag}\n",
        "entry_points.txt": f"[console_scripts]\n{scripts}",
    }
    record = []
    strip = shutil.which("strip")
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive, \
            tempfile.TemporaryDirectory() as scratch:
        for arcname, path in _files(package):
            if strip and path.endswith(".so"):
                # Debug information would make the wheel several times larger.
                stripped = os.path.join(scratch, os.path.basename(path))
                subprocess.run([strip, "--strip-debug", "-o", stripped, path], check=True)
                path = stripped
            with open(path, "rb") as f:
                data = f.read()
            info = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (os.stat(path).st_mode & 0o777 | 0o100000) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
            record.append(_record_line(arcname, data))
        for file, text in generated.items():
            arcname = f"{dist_info}/{file}"
            archive.writestr(arcname, text)
            record.append(_record_line(arcname, text.encode()))
        record.append(f"{dist_info}/RECORD,,")
        archive.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return os.path.basename(wheel)
