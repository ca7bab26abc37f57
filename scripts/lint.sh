#!/usr/bin/env bash
# make lint: no include runs back up the layers (scripts/check_layers.py), no co_await is an
# operand of ?: (scripts/check_coroutines.py: GCC 12 destroys its temporaries twice), every C++ file
# matches .clang-format, and clang-tidy with .clang-tidy's checks finds
# nothing in src/ (tests are formatted, not tidied: they would add two thirds to the time for no
# gain in the shipped binary). Exits non-zero on the first kind of finding, printing each one.
# clang-tidy 22 skips system headers while matching; 14 (Debian's default) does not, and takes
# ~14 s a file against ~5 s. How files are tidied and remembered: scripts/lint_tidy.py.
set -euo pipefail
cd "$(dirname "$0")/.."
FORMAT=${CLANG_FORMAT:-clang-format-22}
TIDY=${CLANG_TIDY:-clang-tidy-22}
CLANGXX=${CLANGXX:-clang++-22}
JOBS=${JOBS:-$(nproc)}
BUILD=$(realpath "${BUILD_DIR:-build}")

echo "lint: layers"
/usr/bin/python3 scripts/check_layers.py "$PWD"

echo "lint: co_await inside ?:"
/usr/bin/python3 scripts/check_coroutines.py "$PWD"

echo "lint: clang-format"
git ls-files -z '*.cpp' '*.hpp' | xargs -0 "$FORMAT" --dry-run -Werror

[ -f "$BUILD/compile_commands.json" ] || { echo "lint: configure first (cmake --preset release)" >&2; exit 2; }
/usr/bin/python3 scripts/lint_tidy.py "$PWD" "$BUILD" "$TIDY" "$CLANGXX" "$JOBS"
echo "lint: clean"
