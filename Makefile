# Thin wrappers over CMake presets; see README.md.
.PHONY: deps build run test test-debug bench soak soak-content soak-all clean format lint deb fuzz

JOBS ?= $(shell nproc)
ARGS ?=

deps:
	@bash scripts/install-deps.sh

build: deps
	@test -f build/build.ninja || cmake --preset release >/dev/null
	cmake --build build -j $(JOBS)

run: build
	./build/plauditd serve $(ARGS)

test: build
	ctest --test-dir build --output-on-failure -j $(JOBS)

test-debug: deps
	@test -f build-debug/build.ninja || cmake --preset debug >/dev/null
	cmake --build build-debug -j $(JOBS)
	ctest --test-dir build-debug --output-on-failure -j $(JOBS)

bench: build
	bash bench/run.sh

# The libFuzzer targets (fuzz/, clang 22 with ASan + UBSan in build-fuzz/), each for
# FUZZ_SECONDS (default 30): make fuzz [FUZZ_SECONDS=600] [FUZZ_TARGETS="http resp"]
FUZZ_SECONDS ?= 30
FUZZ_TARGETS ?=
FUZZ_JOBS ?= 2
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)" FUZZ_JOBS=$(FUZZ_JOBS) \
	  JOBS=$(JOBS) bash fuzz/run.sh

# The model-based fault test (tests/integration/app/fault_test.cpp) alone, for longer:
#   make soak SEED=1234 MINUTES=10 [FAULTS=flushall,redis-kill] [DB=sqlite|postgresql|mariadb]
# MINUTES of faults per database (default 5); no SEED: one derived from the time (printed).
SEED ?=
MINUTES ?= 5
FAULTS ?= all
DB ?= *
soak: deps
	@test -f build/build.ninja || cmake --preset release >/dev/null
	cmake --build build -j $(JOBS) --target app_tests plauditd
	PLAUDIT_FAULT_SEED=$(SEED) PLAUDIT_FAULT_SECONDS=$$(( $(MINUTES) * 60 )) \
	  PLAUDIT_FAULTS=$(FAULTS) ./build/tests/app_tests --gtest_filter='Databases/FaultTest.*/$(DB)'

# Its sibling for articles and comments (tests/integration/app/content_fault_test.cpp):
#   make soak-content SEED=1234 MINUTES=10 [FAULTS=flushall,redis-rollback] [DB=sqlite|postgresql|mariadb]
soak-content: deps
	@test -f build/build.ninja || cmake --preset release >/dev/null
	cmake --build build -j $(JOBS) --target app_tests plauditd
	PLAUDIT_CONTENT_SEED=$(SEED) PLAUDIT_CONTENT_SECONDS=$$(( $(MINUTES) * 60 )) \
	  PLAUDIT_CONTENT_FAULTS=$(FAULTS) ./build/tests/app_tests --gtest_filter='Databases/ContentFaultTest.*/$(DB)'

# Both fault tests at once on one database (default postgresql, with a server of their own that
# they restart), the plauditd RSS sampled and plotted into docs/soak-rss.png (scripts/soak_all.sh):
#   make soak-all MINUTES=30 [DB=postgresql|mariadb|sqlite] [SEED=1234]
soak-all: deps
	@test -f build/build.ninja || cmake --preset release >/dev/null
	cmake --build build -j $(JOBS) --target app_tests plauditd
	MINUTES=$(MINUTES) SEED=$(SEED) DB=$(if $(filter *,$(DB)),postgresql,$(DB)) bash scripts/soak_all.sh

# The Debian package (cmake/Package.cmake): build/plaudit_<version>_<arch>.deb.
deb: build
	cd build && cpack -G DEB

clean:
	rm -rf build build-debug

# The formatter and the lint gate are clang 22's (scripts/install-deps.sh installs them).
format:
	clang-format-22 -i $$(git ls-files '*.cpp' '*.hpp')

# clang-format --dry-run -Werror over the tree, then clang-tidy (.clang-tidy) over src/: 0 findings.
lint: deps
	@test -f build/build.ninja || cmake --preset release >/dev/null
	JOBS=$(JOBS) bash scripts/lint.sh
