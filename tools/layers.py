"""layers.py — what tools/check-layers.py and tools/check-os-access.py read:
the folders of src/ in their declared order (src/LAYERS), the quoted
#include lines of every file, and the symbols each object file defines and
uses (nm).  Python's standard library and binutils' nm only.
"""
import os
import re
import subprocess

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_layers(src):
    """The folder names of src/LAYERS, top layer first."""
    names = []
    with open(os.path.join(src, "LAYERS")) as f:
        for line in f:
            m = re.match(r"([a-z]+)\b", line)
            if m:
                names.append(m.group(1))
    return names


def source_files(src, layers):
    """(folder, path) of every .c, .h and .def file in the layer folders."""
    for layer in layers:
        d = os.path.join(src, layer)
        for name in sorted(os.listdir(d)):
            if name.endswith((".c", ".h", ".def")):
                yield layer, os.path.join(d, name)


def includes(path):
    """(line number, quoted name) of each #include "..." in path."""
    with open(path, errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE_RE.match(line)
            if m:
                yield n, m.group(1)


def resolve(name, path, src, layers, extra_dirs=()):
    """The file an #include "name" in path reaches, searched as the
    compiler does with the build's -I list: the including file's folder,
    then include/ and the layer folders (Makefile CG_INC).  None when it
    is none of ours (a system header)."""
    dirs = [os.path.dirname(path)] + list(extra_dirs) + [os.path.join(src, l) for l in layers]
    for d in dirs:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(p):
            return p
    return None


def layer_of(path, src, layers):
    """The layer folder path lies in, or None outside src/<layer>/."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(src))
    top = rel.split(os.sep)[0]
    return top if top in layers else None


def object_symbols(obj):
    """(defined, undefined): the global symbols obj defines and those it
    uses from elsewhere, as nm lists them."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in ("U", "w"):
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRVWGSCu":
            defined.add(parts[2])
    return defined, undefined


def objects_by_layer(objdir, src, layers):
    """{object path: layer} for the objects of objdir built from src/<layer>/
    (objects are named after their source file, unique across folders)."""
    where = {}
    for layer, path in source_files(src, layers):
        if path.endswith(".c"):
            where[os.path.splitext(os.path.basename(path))[0]] = layer
    found = {}
    for name in sorted(os.listdir(objdir)):
        stem = os.path.splitext(name)[0]
        if name.endswith(".o") and stem in where:
            found[os.path.join(objdir, name)] = where[stem]
    return found
