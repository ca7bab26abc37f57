#!/usr/bin/env bash
# make lint: every C++ file matches .clang-format, and clang-tidy with .clang-tidy's checks finds
# nothing in src/ (tests are formatted, not tidied: they are a third of the time for no gain in
# the shipped binary). Exits non-zero on the first kind of finding, printing each one.
#
# clang-tidy reads build/compile_commands.json, which names GCC's precompiled header (clang cannot
# read it): build/lint/ gets a copy that uses a clang-built one of the same headers instead, which
# saves ~1.5 s of the ~5 s each file costs. clang-tidy 22 skips system headers while matching;
# 14 (Debian's default) does not, and takes ~14 s a file.
set -euo pipefail
cd "$(dirname "$0")/.."
FORMAT=${CLANG_FORMAT:-clang-format-22}
TIDY=${CLANG_TIDY:-clang-tidy-22}
CLANGXX=${CLANGXX:-clang++-22}
JOBS=${JOBS:-$(nproc)}
BUILD=$(realpath "${BUILD_DIR:-build}")

echo "lint: clang-format"
git ls-files -z '*.cpp' '*.hpp' | xargs -0 "$FORMAT" --dry-run -Werror

[ -f "$BUILD/compile_commands.json" ] || { echo "lint: configure first (cmake --preset release)" >&2; exit 2; }
mkdir -p "$BUILD/lint"
PCH_SRC=$(ls "$BUILD"/CMakeFiles/plaudit_boost.dir/cmake_pch.hxx)
/usr/bin/python3 - "$BUILD" "$PCH_SRC" "$CLANGXX" <<'PY'
import json, re, shlex, subprocess, sys
build, pch_src, clangxx = sys.argv[1:4]
pch = f"{build}/lint/pch.pch"
out, flags = [], None
for e in json.load(open(f"{build}/compile_commands.json")):
    if "/src/" not in e["file"] or e["file"].startswith(build + "/"):
        continue  # tests and generated files are not tidied
    cmd = re.sub(r" -include \S+cmake_pch\.hxx", "", e["command"])
    for gcc_only in (" -Winvalid-pch", " -Wno-mismatched-new-delete"):
        cmd = cmd.replace(gcc_only, "")
    if flags is None:
        args = shlex.split(cmd)[1:]
        i = args.index("-o"); del args[i:i + 2]
        flags = [a for a in args if a not in ("-c", e["file"])]
    e["command"] = cmd.replace(" -c ", f" -include-pch {pch} -c ", 1)
    out.append(e)
# The header is #pragma GCC system_header'd for GCC; clang treats it the same in a PCH.
subprocess.run([clangxx, "-x", "c++-header", "-Wno-pragma-system-header-outside-header",
                *flags, pch_src, "-o", pch], check=True, cwd=build)
json.dump(out, open(f"{build}/lint/compile_commands.json", "w"), indent=0)
open(f"{build}/lint/files", "w").write("\n".join(e["file"] for e in out) + "\n")
PY
n=$(wc -l < "$BUILD/lint/files")
echo "lint: clang-tidy over $n files, $JOBS at a time"
# --quiet drops the "N warnings generated" chatter; WarningsAsErrors makes any finding an error.
if ! xargs -P "$JOBS" -n 1 "$TIDY" -p "$BUILD/lint" --quiet < "$BUILD/lint/files" \
     > "$BUILD/lint/tidy.out" 2> "$BUILD/lint/tidy.err"; then
  grep -E "(error|warning):" "$BUILD/lint/tidy.out" | sort -u
  echo "lint: clang-tidy found the above (full output: $BUILD/lint/tidy.out)" >&2
  exit 1
fi
echo "lint: clean"
