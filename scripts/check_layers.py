#!/usr/bin/python3
"""make lint: no #include runs back up the layers.

The layers are CMakeLists.txt's plaudit_layer(name dir deps...) lines: a file in src/<dir>/
may include its own directory's headers and those of the layers its layer links, directly or
through them. Linking would catch a call that runs up; an include of a header-only piece would
not, which is what this checks. Prints each offending include; exits 1 if there is any.
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
cmake = open(os.path.join(root, "CMakeLists.txt")).read()

dir_of = {"plaudit_common": "common", "plaudit_boost": "common"}
deps = {"common": set()}
for m in re.finditer(r"plaudit_layer\(\s*(\w+)\s+([\w/]+)((?:\s+[\w:]+)*)\s*\)", cmake):
    name, d, rest = m.group(1), m.group(2), m.group(3).split()
    dir_of[name] = d
    deps[d] = {r for r in rest if r.startswith("plaudit_")}
if len(deps) < 5:
    sys.exit("check_layers: found no plaudit_layer lines in CMakeLists.txt")

def closure(d, seen=None):
    seen = set() if seen is None else seen
    for lib in deps.get(d, ()):
        sub = dir_of.get(lib)  # embedded files (Lua, migrations, web files) are no layer
        if sub and sub not in seen:
            seen.add(sub)
            closure(sub, seen)
    return seen

layer_dirs = sorted(deps, key=len, reverse=True)  # redis/client before redis

def layer_of(path):
    for d in layer_dirs:
        if path == d or path.startswith(d + "/"):
            return d
    return None

bad = []
src = os.path.join(root, "src")
for dirpath, _, files in os.walk(src):
    rel = os.path.relpath(dirpath, src)
    here = layer_of(rel) if rel != "." else None
    if here is None or layer_of(rel) != rel:
        continue  # src/main.cpp, and directories that are no layer of their own
    allowed = closure(here) | {here}
    for f in files:
        if not f.endswith((".cpp", ".hpp")):
            continue
        p = os.path.join(dirpath, f)
        for n, line in enumerate(open(p, encoding="utf-8"), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            target = layer_of(os.path.dirname(m.group(1)))
            if target is not None and target not in allowed:
                bad.append(f"src/{rel}/{f}:{n}: {here}/ includes {m.group(1)} ({target}/ is not "
                           f"below it in CMakeLists.txt)")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
