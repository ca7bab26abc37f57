# Thin wrappers over CMake presets; see README.md.
.PHONY: deps build run test test-debug bench clean format

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

clean:
	rm -rf build build-debug

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')
