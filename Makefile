# ctensor build: the library is header-only; this Makefile builds the demo,
# the tests, the benchmarks and the examples.
#   make demo    the main demo           make test   the whole test suite
#   make bench   benchmarks vs PyTorch   make fuzz   fuzz the file loaders
#   make lib     libctensor.so/.a, ctensor.pc   make install PREFIX=... [DESTDIR=...]
#   make test-aarch64   the unit tests cross-built for aarch64, run under qemu-aarch64
#   make docs    regenerate docs/reference/ (the API reference) from the headers
#   make footprint  examples/mlp_tiny.c static, -Os, selective build: prints `<N> bytes`;
#                   the same for examples/jit_lite.c (the lite JIT interpreter running
#                   a saved 784-512-256-10 MLP)
# Missing Debian packages are installed with apt-get when run as root.

CC       ?= gcc
ifeq ($(CC),cc)
CC       := gcc
endif
CXX      ?= g++
CLANG    ?= clang
BUILD    ?= build
WARN     := -Wall -Wextra -pedantic -Werror
CSTD     := -std=c11
BASE     := $(CSTD) $(WARN) -I. -Itests
# CC's target when it is not this machine's (a cross compiler: CC=aarch64-linux-gnu-gcc
# gives aarch64-linux-gnu): no -march=native then, and that target's multiarch libraries
CC_MACHINE := $(shell $(CC) -dumpmachine 2>/dev/null)
CROSS    := $(if $(filter $(shell uname -m)%,$(CC_MACHINE)),,$(CC_MACHINE))
# aarch64 builds: ARMv8.2-A with the dot-product instructions (Jetson Xavier and Orin;
# A64_MARCH=-march=armv8-a for a Nano's Cortex-A57)
A64_MARCH ?= -march=armv8.2-a+dotprod
MARCH    := $(if $(CROSS),$(if $(filter aarch64%,$(CROSS)),$(A64_MARCH)),-march=native)
MULTIARCH := $(if $(CROSS),$(CROSS),x86_64-linux-gnu)
# the default build: optimized, OpenMP, OpenBLAS when present
OPT      := -O2 $(MARCH) -fopenmp -DCTENSOR_OPENMP
BLASLIB  := $(shell [ -e /usr/include/$(MULTIARCH)/cblas.h ] || [ -z "$(CROSS)" -a -e /usr/include/cblas.h ] || [ -e /usr/include/$(MULTIARCH)/openblas-pthread/cblas.h ] && echo yes)
ifeq ($(BLASLIB),yes)
BLAS     := -DCTENSOR_BLAS -I/usr/include/$(MULTIARCH)/openblas-pthread -lopenblas
endif
# ctensor_linalg.h needs LAPACKE and CBLAS (liblapacke-dev, libopenblas-dev)
LAPACKLIB := $(shell [ -e /usr/include/lapacke.h ] && { [ -z "$(CROSS)" ] || [ -e /usr/lib/$(CROSS)/liblapacke.so ]; } && echo yes)
ifeq ($(LAPACKLIB),yes)
LAPACK   := -llapacke -lopenblas
endif
LIBS     := -lm -lpthread $(LAPACK)
TESTFAST := -O1 -g
ASAN     := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
TSAN     := -O1 -g -fsanitize=thread
# tests that start threads; make test also runs them under ThreadSanitizer
TSAN_TESTS := test_threads

APT_PKGS := build-essential clang libclang-rt-dev libopenblas-dev liblapacke-dev zlib1g-dev libopenmpi-dev openmpi-bin libfftw3-dev
DATA_PKGS := dataset-fashion-mnist

HEADERS  := ctensor.h $(wildcard ctensor_*.h)
TESTS    := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
CONF_SRC := $(wildcard tests/conformance/*.c)
FFTWLIB  := $(shell [ -e /usr/include/fftw3.h ] && echo yes)
BENCHES  := $(patsubst bench/%.c,%,$(wildcard bench/*.c)) gemm_builtin $(if $(FFTWLIB),fft_fftw)

.PHONY: deps-bench all demo demo-run fashion fashion-run bert bert-run gpt gpt-run deps-data test test-run test-unit test-asan test-compile conformance bench bench-run fuzz fuzz-run examples examples-run deps clean
all: demo

deps-data: PKGS = $(APT_PKGS) $(DATA_PKGS)
deps-bench: PKGS = $(APT_PKGS) python3-torch python3-numpy
deps: PKGS = $(APT_PKGS)
deps deps-data deps-bench:
	@arch=$$(dpkg --print-architecture 2>/dev/null); missing=""; \
	for p in $(PKGS); do dpkg -s $$p >/dev/null 2>&1 || dpkg -s $$p:$$arch >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then echo "installing:$$missing"; \
	    (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing) >/dev/null || exit 1; \
	  else echo "missing packages; run: sudo apt-get install -y$$missing"; exit 1; fi; fi

$(BUILD) $(BUILD)/tests $(BUILD)/asan $(BUILD)/tsan $(BUILD)/opt $(BUILD)/bench $(BUILD)/examples $(BUILD)/fuzz $(BUILD)/compile:
	@mkdir -p $@

# ---- demo -------------------------------------------------------------------
# the tour of tensors and autograd, then one epoch of the Fashion-MNIST MLP
# Targets that may need packages first run `deps` (apt-get on a fresh machine),
# then make again: the library checks above (BLAS, LAPACKE) are read when make
# starts, so the second make sees what the first installed.
demo: deps-data
	@$(MAKE) --no-print-directory demo-run
demo-run: $(BUILD)/examples/demo $(BUILD)/examples/fashion_mnist
	@./$(BUILD)/examples/demo
	@echo; ./$(BUILD)/examples/fashion_mnist --model mlp --epochs 1 --out $(BUILD)

# the full run: MLP and CNN, 10 epochs each (weights and curves in build/)
EPOCHS ?= 10
fashion: deps-data
	@$(MAKE) --no-print-directory fashion-run
fashion-run: $(BUILD)/examples/fashion_mnist
	./$(BUILD)/examples/fashion_mnist --model both --epochs $(EPOCHS) --out $(BUILD)

$(BUILD)/examples/fashion_mnist: examples/fashion_mnist.c $(HEADERS) | $(BUILD)/examples
	$(CC) $(BASE) $(OPT) -DCTENSOR_ZLIB $< -o $@ $(BLAS) $(LIBS) -lz

# int8 quantization of the Fashion-MNIST CNN (ctensor_quant.h): float vs dynamic vs
# static PTQ, accuracy / file size / time. QF_ARGS="--weights build/cnn.safetensors"
# uses the CNN `make fashion` trained; otherwise it trains 2 epochs first.
QF_ARGS ?=
.PHONY: quantize-fashion quantize-fashion-run
quantize-fashion: deps-data
	@$(MAKE) --no-print-directory quantize-fashion-run
quantize-fashion-run: $(BUILD)/examples/quantize_fashion
	./$(BUILD)/examples/quantize_fashion $(QF_ARGS)
$(BUILD)/examples/quantize_fashion: examples/quantize_fashion.c $(HEADERS) | $(BUILD)/examples
	$(CC) $(BASE) $(OPT) -DCTENSOR_ZLIB $< -o $@ $(BLAS) $(LIBS) -lz

$(BUILD)/examples/%: examples/%.c $(HEADERS) | $(BUILD)/examples
	$(CC) $(BASE) $(OPT) $< -o $@ $(BLAS) $(LIBS)

examples: deps
	@$(MAKE) --no-print-directory examples-run
examples-run: $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c)) gpt-run

# ---- transformers -------------------------------------------------------------
# Weights from PyTorch models randomly initialized by a script (needs PyTorch:
# /usr/bin/python3 with torch, which `deps-bench` installs), checked against its outputs.
#   make bert   12-layer BERT-base-sized encoder: regular, fastpath and nested paths
#               (the first run exports ~340 MB of weights into build/bert)
#   make gpt    a small GPT generating greedily with and without the KV cache
#               (part of `make examples`, skipped there when PyTorch is missing)
TORCH_PY ?= /usr/bin/python3
bert gpt: deps-bench
	@$(MAKE) --no-print-directory $@-run
bert-run: $(BUILD)/examples/bert_encoder $(BUILD)/bert/io.safetensors
	$(BUILD)/examples/bert_encoder $(BUILD)/bert
gpt-run: $(BUILD)/examples/gpt_generate
	@if [ -f $(BUILD)/gpt/io.safetensors ] || $(TORCH_PY) -c 'import torch' 2>/dev/null; then \
	  $(MAKE) --no-print-directory $(BUILD)/gpt/io.safetensors && $(BUILD)/examples/gpt_generate $(BUILD)/gpt; \
	else echo "gpt: skipped: its weights come from PyTorch, and $(TORCH_PY) has no torch (make deps-bench installs it)"; fi
$(BUILD)/bert/io.safetensors: examples/torch_interop/export_encoder.py examples/torch_interop/export.py
	$(TORCH_PY) $< $(@D)
$(BUILD)/gpt/io.safetensors: examples/torch_interop/export_gpt.py examples/torch_interop/export.py
	$(TORCH_PY) $< $(@D)

# ---- tests ------------------------------------------------------------------
# Tests that use only the public API link one compiled copy of the implementation
# per build kind (tests/ct_impl.c) instead of compiling it again each: the suite
# builds in about half the time. The others compile the implementation themselves.
SHARED_TESTS := $(filter test_complex test_core test_dist test_dlpack test_index test_named test_interop test_io test_jit test_nn test_nn_conv test_nn_loss test_nn_norm test_nn_pool_property test_nn_resample test_nn_transformer test_optim test_profiler test_quant test_random test_reduce test_special test_fft test_composite,$(TESTS))
BLAS_CFLAGS  := $(filter-out -l%,$(BLAS))
BLAS_LIBS    := $(filter -l%,$(BLAS))
$(BUILD)/tests/ct_impl.o: tests/ct_impl.c $(HEADERS) | $(BUILD)/tests
	$(CC) $(BASE) $(TESTFAST) -c $< -o $@
$(BUILD)/asan/ct_impl.o: tests/ct_impl.c $(HEADERS) | $(BUILD)/asan
	$(CC) $(BASE) $(ASAN) -c $< -o $@
$(BUILD)/opt/ct_impl.o: tests/ct_impl.c $(HEADERS) | $(BUILD)/opt
	$(CC) $(BASE) $(OPT) $(BLAS_CFLAGS) -c $< -o $@
$(addprefix $(BUILD)/tests/,$(SHARED_TESTS)): $(BUILD)/tests/%: tests/%.c $(BUILD)/tests/ct_impl.o $(HEADERS) tests/ct_test.h tests/ct_replay.h tests/ct_huge.h
	$(CC) $(BASE) $(TESTFAST) -DCT_TEST_SHARED_IMPL $< $(BUILD)/tests/ct_impl.o -o $@ $(LIBS)
$(addprefix $(BUILD)/asan/,$(SHARED_TESTS)): $(BUILD)/asan/%: tests/%.c $(BUILD)/asan/ct_impl.o $(HEADERS) tests/ct_test.h tests/ct_replay.h tests/ct_huge.h
	$(CC) $(BASE) $(ASAN) -DCT_TEST_SHARED_IMPL $< $(BUILD)/asan/ct_impl.o -o $@ $(LIBS)
$(addprefix $(BUILD)/opt/,$(SHARED_TESTS)): $(BUILD)/opt/%: tests/%.c $(BUILD)/opt/ct_impl.o $(HEADERS) tests/ct_test.h tests/ct_replay.h tests/ct_huge.h
	$(CC) $(BASE) $(OPT) $(BLAS_CFLAGS) -DCT_TEST_SHARED_IMPL $< $(BUILD)/opt/ct_impl.o -o $@ $(BLAS_LIBS) $(LIBS)
$(BUILD)/tests/%: tests/%.c $(HEADERS) tests/ct_test.h tests/ct_replay.h tests/ct_huge.h | $(BUILD)/tests
	$(CC) $(BASE) $(TESTFAST) $< -o $@ $(LIBS)
$(BUILD)/asan/%: tests/%.c $(HEADERS) tests/ct_test.h tests/ct_replay.h tests/ct_huge.h | $(BUILD)/asan
	$(CC) $(BASE) $(ASAN) $< -o $@ $(LIBS)
$(BUILD)/opt/%: tests/%.c $(HEADERS) tests/ct_test.h tests/ct_replay.h tests/ct_huge.h | $(BUILD)/opt
	$(CC) $(BASE) $(OPT) $< -o $@ $(BLAS) $(LIBS)
$(BUILD)/tsan/%: tests/%.c $(HEADERS) tests/ct_test.h | $(BUILD)/tsan
	$(CC) $(BASE) $(TSAN) $< -o $@ -lm -lpthread

# test_quant.c includes its parts from tests/quant/
$(BUILD)/tests/test_quant $(BUILD)/asan/test_quant $(BUILD)/opt/test_quant: $(wildcard tests/quant/*.h) bench/quant_zoo.h bench/zoo.h
$(BUILD)/tests/test_jit $(BUILD)/asan/test_jit $(BUILD)/opt/test_jit $(BUILD)/bench/jit: bench/jit_chain.h

# ctensor_dist.h on Open MPI (libopenmpi-dev, openmpi-bin): tests/dist/test_dist_mpi.c,
# compiled with mpicc's flags and linked to the shared implementation (built without
# MPI: the test file brings the MPI backend), run by tests/dist/run.sh under mpirun
# (-np 2 and 4, as root: OMPI_ALLOW_RUN_AS_ROOT; --oversubscribe) in the plain and
# the ASan+UBSan builds. Without mpicc (not root, no packages) the part skips.
MPICC      := $(if $(CROSS),,$(shell command -v mpicc 2>/dev/null))
MPI_CFLAGS := $(if $(MPICC),$(shell $(MPICC) -showme:compile 2>/dev/null))
MPI_LIBS   := $(if $(MPICC),$(shell $(MPICC) -showme:link 2>/dev/null))
DIST_BINS  := $(if $(MPICC),$(BUILD)/dist/test_dist_mpi $(BUILD)/asan/dist/test_dist_mpi)
$(BUILD)/dist $(BUILD)/asan/dist:
	@mkdir -p $@
$(BUILD)/dist/test_dist_mpi: tests/dist/test_dist_mpi.c examples/fsdp_train.c $(BUILD)/tests/ct_impl.o $(HEADERS) tests/ct_test.h | $(BUILD)/dist
	$(CC) $(BASE) $(TESTFAST) $(MPI_CFLAGS) -DCT_TEST_SHARED_IMPL $< $(BUILD)/tests/ct_impl.o -o $@ $(LIBS) $(MPI_LIBS)
$(BUILD)/asan/dist/test_dist_mpi: tests/dist/test_dist_mpi.c examples/fsdp_train.c $(BUILD)/asan/ct_impl.o $(HEADERS) tests/ct_test.h | $(BUILD)/asan/dist
	$(CC) $(BASE) $(ASAN) $(MPI_CFLAGS) -DCT_TEST_SHARED_IMPL $< $(BUILD)/asan/ct_impl.o -o $@ $(LIBS) $(MPI_LIBS)
# examples/ddp_train.c with Open MPI when mpicc is here (mpirun -np 2 build/examples/ddp_train),
# else the single-process build
$(BUILD)/examples/ddp_train: examples/ddp_train.c $(HEADERS) | $(BUILD)/examples
	$(CC) $(BASE) $(OPT) $(if $(MPICC),$(MPI_CFLAGS) -DCTENSOR_MPI) $< -o $@ $(BLAS) $(LIBS) $(MPI_LIBS)
# examples/fsdp_train.c (minGPT under FSDP) the same way: mpirun -np 2 build/examples/fsdp_train
$(BUILD)/examples/fsdp_train: examples/fsdp_train.c $(HEADERS) | $(BUILD)/examples
	$(CC) $(BASE) $(OPT) $(if $(MPICC),$(MPI_CFLAGS) -DCTENSOR_MPI) $< -o $@ $(BLAS) $(LIBS) $(MPI_LIBS)
# bench/dist.c: with Open MPI it starts itself under mpirun -np 2 for the DDP case
$(BUILD)/bench/dist: bench/dist.c $(HEADERS) bench/bench.h | $(BUILD)/bench
	$(CC) $(BASE) $(BENCHOPT) $(if $(MPICC),$(MPI_CFLAGS) -DCTENSOR_MPI) $< -o $@ $(BLAS) $(LIBS) $(MPI_LIBS)
.PHONY: test-dist
test-dist: $(DIST_BINS)
	@for b in $(DIST_BINS); do sh tests/dist/run.sh $$b || exit 1; done

$(BUILD)/tests/conformance: $(CONF_SRC) $(wildcard tests/conformance/*.h) tests/ct_replay.h tests/ct_huge.h $(HEADERS) | $(BUILD)/tests
	$(CC) $(BASE) $(TESTFAST) $(CONF_SRC) -o $@ $(LIBS)
$(BUILD)/asan/conformance: $(CONF_SRC) $(wildcard tests/conformance/*.h) tests/ct_replay.h tests/ct_huge.h $(HEADERS) | $(BUILD)/asan
	$(CC) $(BASE) $(ASAN) $(CONF_SRC) -o $@ $(LIBS)

CASES ?= tests/fixtures
conformance: $(BUILD)/tests/conformance
	./$(BUILD)/tests/conformance $(CASES)

# The suite: unit tests (optimized+BLAS+OpenMP and ASan+UBSan; the plain -O1 -g
# build too for the tests linked to tests/ct_impl.c: the others would compile the
# implementation a third time for what the ASan build already runs), conformance,
# compile tests, fuzz smoke runs. tests/run_suite.sh sums the "N passed, N failed" lines.
# A plain `make test` builds with one job per core (at most 4: each ASan compile of the
# implementation takes 1.4 GB); a -j given on the command line is kept.
TEST_JOBS := $(shell n=$$(nproc 2>/dev/null || echo 2); [ "$$n" -gt 4 ] && n=4; echo $$n)
test: deps deps-aarch64
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(TEST_JOBS)) test-run
test-run: $(addprefix $(BUILD)/tests/,$(SHARED_TESTS)) $(addprefix $(BUILD)/opt/,$(TESTS)) $(addprefix $(BUILD)/asan/,$(TESTS)) \
      $(addprefix $(BUILD)/tsan/,$(TSAN_TESTS)) $(BUILD)/tests/conformance $(BUILD)/asan/conformance $(DIST_BINS) \
      $(BUILD)/jit_lite/jit_lite $(BUILD)/jit_lite/allocs
	@$(A64_ENV) A64_TESTS="$(A64_SUITE_TESTS)" TESTS="$(TESTS)" PLAIN_TESTS="$(SHARED_TESTS)" DIST_BINS="$(DIST_BINS)" NCCL_EMU_BIN="$(if $(MPICC),$(BUILD)/cuda/test_cuda_emu)" TSAN_TESTS="$(TSAN_TESTS)" CC="$(CC)" CXX="$(CXX)" CLANG="$(CLANG)" sh tests/run_suite.sh

test-asan: $(addprefix $(BUILD)/asan/,$(TESTS)) $(BUILD)/asan/conformance
	@for t in $(TESTS); do ./$(BUILD)/asan/$$t || exit 1; done; ./$(BUILD)/asan/conformance tests/fixtures

test-compile:
	@CC="$(CC)" CXX="$(CXX)" CLANG="$(CLANG)" BUILD=$(BUILD) sh tests/compile/run.sh

# ---- library (make lib, make install) -----------------------------------------
# The library's object is compiled with -fstack-usage: $(BUILD)/lib/ctensor.su lists
# every function's frame; tests/lib/check.sh fails when one is over 16 KB (threads
# of an RTOS have small stacks).
# make lib: $(BUILD)/lib/libctensor.so (soname libctensor.so.0) and libctensor.a from
# src/ctensor_lib.c (the implementation of ctensor.h, ctensor_nn.h, ctensor_linalg.h
# and ctensor_quant.h, compiled once), exporting only the CTENSOR_API functions
# (-fvisibility=hidden -DCTENSOR_BUILD_SHARED), and $(BUILD)/lib/ctensor.pc.
# make install [PREFIX=/usr/local] [DESTDIR=/staging]: headers to $(PREFIX)/include,
# the libraries to $(PREFIX)/lib, ctensor.pc to $(PREFIX)/lib/pkgconfig. Then:
#   cc app.c $$(pkg-config --cflags --libs ctensor)
# LIB_OPT sets the optimization (no -march=native: the library may move to another
# machine). tests/lib/check.sh (part of make test) installs into $(BUILD)/lib/stage.
PREFIX      ?= /usr/local
CT_VERSION  := 0.2.0
LIB_OPT     ?= -O2 -fopenmp -DCTENSOR_OPENMP
LIB_CFLAGS  := $(BASE) $(LIB_OPT) $(BLAS_CFLAGS) $(if $(LAPACKLIB),,-DCT_LIB_NO_LINALG) -fPIC -fvisibility=hidden -DCTENSOR_BUILD_SHARED -fstack-usage
LIB_DEPLIBS := $(if $(LAPACKLIB),-llapacke) $(if $(BLAS_LIBS)$(LAPACKLIB),-lopenblas) $(if $(findstring -fopenmp,$(LIB_OPT)),-lgomp) -lm -lpthread
LIB_HEADERS := ctensor.h ctensor_nn.h ctensor_quant.h ctensor_named.h ctensor_special.h ctensor_fft.h ctensor_composite.h $(if $(LAPACKLIB),ctensor_linalg.h)
LIBDIR_I    := $(PREFIX)/lib
INCDIR_I    := $(PREFIX)/include
.PHONY: lib install
lib: $(BUILD)/lib/libctensor.so $(BUILD)/lib/libctensor.a $(BUILD)/lib/ctensor.pc
$(BUILD)/lib:
	@mkdir -p $@
$(BUILD)/lib/ctensor.o: src/ctensor_lib.c $(LIB_HEADERS) | $(BUILD)/lib
	$(CC) $(LIB_CFLAGS) -c $< -o $@
$(BUILD)/lib/libctensor.so: $(BUILD)/lib/ctensor.o
	$(CC) -shared -Wl,-soname,libctensor.so.0 $(LIB_OPT) $< -o $@.$(CT_VERSION) $(LIB_DEPLIBS)
	ln -sf libctensor.so.$(CT_VERSION) $@.0 && ln -sf libctensor.so.0 $@
$(BUILD)/lib/libctensor.a: $(BUILD)/lib/ctensor.o
	rm -f $@ && ar rcs $@ $<
# ctensor.pc for a prefix (the build's copy names PREFIX; install writes its own)
define ct_pc
	printf 'prefix=%s\nexec_prefix=$${prefix}\nlibdir=$${prefix}/lib\nincludedir=$${prefix}/include\n\nName: ctensor\nDescription: %s\nVersion: %s\nLibs: -L$${libdir} -lctensor\nLibs.private: %s\nCflags: -I$${includedir}\n' \
	  '$(PREFIX)' "PyTorch's core in C: tensors, autograd, nn, linalg, quantization" '$(CT_VERSION)' '$(LIB_DEPLIBS)' > $(1)
endef
$(BUILD)/lib/ctensor.pc: Makefile | $(BUILD)/lib
	@$(call ct_pc,$@)
install: lib
	install -d $(DESTDIR)$(INCDIR_I) $(DESTDIR)$(LIBDIR_I)/pkgconfig
	install -m 644 $(LIB_HEADERS) $(DESTDIR)$(INCDIR_I)/
	install -m 755 $(BUILD)/lib/libctensor.so.$(CT_VERSION) $(DESTDIR)$(LIBDIR_I)/
	ln -sf libctensor.so.$(CT_VERSION) $(DESTDIR)$(LIBDIR_I)/libctensor.so.0
	ln -sf libctensor.so.0 $(DESTDIR)$(LIBDIR_I)/libctensor.so
	install -m 644 $(BUILD)/lib/libctensor.a $(DESTDIR)$(LIBDIR_I)/
	@$(call ct_pc,$(DESTDIR)$(LIBDIR_I)/pkgconfig/ctensor.pc)
test-run: $(BUILD)/lib/libctensor.so $(BUILD)/lib/libctensor.a

# ---- DLPack with PyTorch ----------------------------------------------------------
# make dlpack-torch: examples/dlpack_torch.c as a shared library on libctensor.so, loaded
# by examples/torch_interop/dlpack_torch.py (ctypes) in one process with PyTorch; tensors
# cross both ways through DLPack capsules without a copy. Skips when torch is missing.
.PHONY: dlpack-torch
$(BUILD)/lib/libdlpack_torch.so: examples/dlpack_torch.c $(BUILD)/lib/libctensor.so
	$(CC) $(BASE) -O1 -fPIC -shared -DDLPACK_TORCH_LIB $< -o $@ -L$(BUILD)/lib -lctensor -Wl,-rpath,'$$ORIGIN'
dlpack-torch: $(BUILD)/lib/libdlpack_torch.so
	@$(TORCH_PY) examples/torch_interop/dlpack_torch.py $(BUILD)/lib/libdlpack_torch.so
test-run: $(BUILD)/lib/libdlpack_torch.so

# ---- aarch64 (the CPU side of a Jetson) -------------------------------------
# make test-aarch64: every unit test cross-compiled with Debian's aarch64-linux-gnu-gcc
# (or CC, when CC is an aarch64 compiler: make CC=aarch64-linux-gnu-gcc test-aarch64),
# -O2 $(A64_MARCH), the public-API tests linked to one compiled implementation as
# above, and run under qemu-aarch64 (user mode) from the repository root;
# test_quant_armv8 is test_quant again at plain -march=armv8-a (NEON without the
# dot-product instructions). test_linalg and test_schema need arm64 LAPACKE/CBLAS
# (multiarch libopenblas-dev:arm64 liblapacke-dev:arm64) and are skipped, saying so,
# without them. make test runs the subset A64_SUITE_TESTS (it fits the CI's time).
# qemu runs the cross toolchain's loader and libc (-L, LD_LIBRARY_PATH): the arm64
# libc that multiarch OpenBLAS brings is a newer build, and the cross loader with
# that libc hangs in the first pthread_create. CT_TEST_QEMU=1 skips the one test
# qemu-user cannot run (threads started in a forked child: qemu's assertion fails).
A64       := $(BUILD)/aarch64
A64_CC    := $(if $(filter aarch64%,$(CC_MACHINE)),$(CC),aarch64-linux-gnu-gcc)
A64_OPT   ?= -O2
A64_QEMU  ?= qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib -E CT_TEST_QEMU=1
A64_PKGS  := gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
A64_LAPACK_PKGS := libopenblas-dev:arm64 liblapacke-dev:arm64
A64_APT   := dpkg --add-architecture arm64 && apt-get update && apt-get install -y $(A64_PKGS) $(A64_LAPACK_PKGS)
A64_OK    := $(shell command -v $(A64_CC) >/dev/null 2>&1 && command -v $(firstword $(A64_QEMU)) >/dev/null 2>&1 && echo yes)
A64_LAPACK := $(shell [ -e /usr/lib/aarch64-linux-gnu/liblapacke.so ] && [ -e /usr/include/lapacke.h ] && echo yes)
A64_LAPACK_TESTS := $(filter test_linalg test_schema,$(TESTS))
A64_TESTS := $(if $(A64_LAPACK),$(TESTS),$(filter-out $(A64_LAPACK_TESTS),$(TESTS))) test_quant_armv8
A64_SUITE_TESTS ?= $(SHARED_TESTS)
A64_FLAGS := $(BASE) $(A64_OPT) $(A64_MARCH)
A64_LIBS  := -lm -lpthread $(if $(A64_LAPACK),-llapacke -lopenblas)
A64_SKIP  := aarch64: skipped: no $(A64_CC) or $(firstword $(A64_QEMU)); as root: $(A64_APT)
A64_ENV    = BUILD=$(BUILD) A64_QEMU="$(A64_QEMU)" A64_SKIP="$(if $(A64_OK),,$(A64_SKIP))"
.PHONY: deps-aarch64 test-aarch64 test-aarch64-run
# installs what is missing when root (never fails: the aarch64 parts skip, saying why)
deps-aarch64:
	@missing=""; for p in $(A64_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	lmissing=""; for p in $(A64_LAPACK_PKGS); do dpkg -s $$p >/dev/null 2>&1 || lmissing="$$lmissing $$p"; done; \
	if [ -n "$$missing$$lmissing" ] && [ "$$(id -u)" = 0 ]; then echo "installing:$$missing$$lmissing"; \
	  if [ -n "$$missing" ]; then (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing) >/dev/null 2>&1 || \
	    echo "aarch64: could not install$$missing"; fi; \
	  if [ -n "$$lmissing" ]; then ({ dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64; } && \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$lmissing) >/dev/null 2>&1 || \
	    echo "aarch64: could not install$$lmissing (multiarch arm64)"; fi; \
	elif [ -n "$$missing$$lmissing" ]; then echo "aarch64: missing packages; run: sudo sh -c '$(A64_APT)'"; fi
$(A64):
	@mkdir -p $@
$(A64)/ct_impl.o: tests/ct_impl.c $(HEADERS) | $(A64)
	$(A64_CC) $(A64_FLAGS) -c $< -o $@
$(addprefix $(A64)/,$(SHARED_TESTS)): $(A64)/%: tests/%.c $(A64)/ct_impl.o $(HEADERS) tests/ct_test.h tests/ct_replay.h tests/ct_huge.h
	$(A64_CC) $(A64_FLAGS) -DCT_TEST_SHARED_IMPL $< $(A64)/ct_impl.o -o $@ $(A64_LIBS)
$(A64)/%: tests/%.c $(HEADERS) tests/ct_test.h tests/ct_replay.h tests/ct_huge.h | $(A64)
	$(A64_CC) $(A64_FLAGS) $< -o $@ $(A64_LIBS)
$(A64)/test_quant_armv8: tests/test_quant.c $(HEADERS) tests/ct_test.h tests/ct_replay.h tests/ct_huge.h | $(A64)
	$(A64_CC) $(BASE) $(A64_OPT) -march=armv8-a $< -o $@ $(A64_LIBS)
$(A64)/test_quant $(A64)/test_quant_armv8: $(wildcard tests/quant/*.h) bench/quant_zoo.h bench/zoo.h
$(A64)/test_jit: bench/jit_chain.h
test-run: $(if $(A64_OK),$(addprefix $(A64)/,$(A64_SUITE_TESTS)))
test-aarch64: deps-aarch64
	@$(MAKE) --no-print-directory test-aarch64-run
test-aarch64-run: $(if $(A64_OK),$(addprefix $(A64)/,$(A64_TESTS)))
	@[ -n "$(A64_OK)" ] || { echo "$(A64_SKIP)"; exit 1; }
	@$(if $(A64_LAPACK),,echo "aarch64: $(A64_LAPACK_TESTS) skipped: no arm64 LAPACKE/CBLAS; as root: $(A64_APT)";) \
	$(A64_ENV) A64_TESTS="$(A64_TESTS)" A64_ONLY=1 sh tests/run_suite.sh

# ---- footprint ----------------------------------------------------------------
# make footprint: examples/mlp_tiny.c (a 784-128-10 MLP, the selective build:
# CTENSOR_SELECTED_OPS) size-optimized, static and stripped, then run; prints its
# size as `<N> bytes`. Static with musl (musl-gcc, Debian's musl-tools, installed
# when root) where there is one: glibc's static libc alone is about 670 KB (a
# static printf program), so without musl it is static glibc, said so; a system
# without a static libc gets a dynamic build, said so. FOOTPRINT_CC picks the compiler.
FOOT_FLAGS := -std=c11 $(WARN) -I. -Os -ffunction-sections -fdata-sections -Wl,--gc-sections -s
FOOTPRINT_CC ?= $(shell command -v musl-gcc 2>/dev/null)
JIT_LITE := $(BUILD)/jit_lite
.PHONY: footprint footprint-run
footprint:
	@command -v musl-gcc >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q musl-tools) >/dev/null 2>&1; } || \
	  echo "footprint: no musl-gcc (sudo apt-get install musl-tools): building with $(CC)"
	@$(MAKE) --no-print-directory footprint-run
footprint-run: $(JIT_LITE)/mlp.ctjit | $(BUILD)/examples
	@fcc="$(FOOTPRINT_CC)"; [ -n "$$fcc" ] || fcc=$(CC); \
	case "$$fcc" in *musl*) how="static, musl";; *) how="static, glibc";; esac; \
	lc=$$($$fcc -print-file-name=libc.a); [ "$$lc" != libc.a ] && [ -e "$$lc" ] || how="dynamic (no static libc)"; \
	static=-static; case "$$how" in dynamic*) static=;; esac; \
	echo "$$fcc $(FOOT_FLAGS) $$static examples/mlp_tiny.c -o $(BUILD)/examples/mlp_tiny_small -lm"; \
	$$fcc $(FOOT_FLAGS) $$static examples/mlp_tiny.c -o $(BUILD)/examples/mlp_tiny_small -lm && \
	./$(BUILD)/examples/mlp_tiny_small && echo "mlp_tiny ($$how, -Os, gc-sections, stripped):" && \
	echo "$$(wc -c < $(BUILD)/examples/mlp_tiny_small) bytes" && \
	echo "$$fcc $(FOOT_FLAGS) $$static $(JIT_LITE_FLAGS) examples/jit_lite.c -o $(BUILD)/examples/jit_lite_small -lm"; \
	$$fcc $(FOOT_FLAGS) $$static $(JIT_LITE_FLAGS) examples/jit_lite.c -o $(BUILD)/examples/jit_lite_small -lm && \
	./$(BUILD)/examples/jit_lite_small $(JIT_LITE)/mlp.ctjit $(JIT_LITE)/x.npy $(JIT_LITE)/y.npy && \
	echo "jit_lite: the lite JIT interpreter running the saved 784-512-256-10 MLP ($$how, -Os, gc-sections, stripped, the graph's selective build, no autograd):" && \
	echo "$$(wc -c < $(BUILD)/examples/jit_lite_small) bytes"

# The lite JIT interpreter (ctensor_jit.h's CTENSOR_JIT_LITE): tests/jit_lite/export.c
# (linked to tests/ct_impl.o) traces and optimizes the 784-512-256-10 MLP and writes its
# graph file, its op list (ct_jit_export_selected_ops), an input and the full
# interpreter's output to $(JIT_LITE); examples/jit_lite.c built with that op list
# (selective build, no autograd, -Os, gc-sections, stripped) must reproduce the output:
# a part of make test (dynamic, $(CC)); make footprint builds it static.
JIT_LITE_FLAGS = -DJIT_LITE_OPS='"$(JIT_LITE)/mlp_ops.h"'
$(JIT_LITE):
	@mkdir -p $@
$(JIT_LITE)/export: tests/jit_lite/export.c $(BUILD)/tests/ct_impl.o $(HEADERS) | $(JIT_LITE)
	$(CC) $(BASE) $(TESTFAST) -DCT_TEST_SHARED_IMPL $< $(BUILD)/tests/ct_impl.o -o $@ $(LIBS)
$(JIT_LITE)/mlp.ctjit: $(JIT_LITE)/export
	$< $(JIT_LITE) > /dev/null
$(JIT_LITE)/jit_lite: examples/jit_lite.c $(JIT_LITE)/mlp.ctjit $(HEADERS)
	$(CC) $(FOOT_FLAGS) $(JIT_LITE_FLAGS) $< -o $@ -lm
# allocator calls of a graph run after the first (malloc wrapped at link time)
$(JIT_LITE)/allocs: tests/jit_lite/allocs.c $(BUILD)/tests/ct_impl.o $(HEADERS) bench/jit_chain.h | $(JIT_LITE)
	$(CC) $(BASE) $(TESTFAST) -DCT_TEST_SHARED_IMPL $< $(BUILD)/tests/ct_impl.o -o $@ \
	  -Wl,--wrap=malloc -Wl,--wrap=realloc -Wl,--wrap=calloc $(LIBS)

# ---- benchmarks -------------------------------------------------------------
# make bench [BENCH="overhead elementwise"] [CT_BENCH_SECONDS=0.05]: builds every
# bench/*.c, runs the named ones (default all) and their PyTorch twins; tables
# go to $(BUILD)/bench/. Not part of `make test`.
# (gcc 12 at -O3 gives false -Wmaybe-uninitialized reports on loops over dims.)
BENCHOPT := -O3 -march=native -fopenmp -DCTENSOR_OPENMP -Wno-maybe-uninitialized
# cases for ops that other branches are still adding switch on once the op is declared
BENCHOPT += $(shell grep -qE '[*]ct_softmax\b' $(HEADERS) 2>/dev/null && echo -DCT_BENCH_HAVE_SOFTMAX)
$(BUILD)/bench/%: bench/%.c $(HEADERS) bench/bench.h bench/zoo.h bench/quant_zoo.h | $(BUILD)/bench
	$(CC) $(BASE) $(BENCHOPT) $< -o $@ $(BLAS) $(LIBS)
$(BUILD)/bench/%_builtin: bench/%.c $(HEADERS) bench/bench.h bench/zoo.h bench/quant_zoo.h | $(BUILD)/bench
	$(CC) $(BASE) $(BENCHOPT) $< -o $@ $(LIBS)
# bench/fft.c on ctensor_fft.h's FFTW backend (libfftw3-dev), run beside the built-in engine
$(BUILD)/bench/fft_fftw: bench/fft.c $(HEADERS) bench/bench.h | $(BUILD)/bench
	$(CC) $(BASE) $(BENCHOPT) -DCTENSOR_FFTW $< -o $@ $(LIBS) -lfftw3 -lfftw3f

bench: deps-bench
	@$(MAKE) --no-print-directory bench-run
bench-run: $(addprefix $(BUILD)/bench/,$(BENCHES))
	@BUILD=$(BUILD) sh bench/run.sh $(BENCH)

# ---- fuzzing ----------------------------------------------------------------
# make fuzz [FUZZ_SECONDS=60] [FUZZ=idx]: builds every tests/fuzz/<name>.c (or the
# named ones) as a libFuzzer target and runs it from its seed corpus (copied to
# $(BUILD)/fuzz/corpus_<name>, which keeps what the run found); the full log is
# $(BUILD)/fuzz/<name>.log, and libFuzzer's final statistics are printed per target
# and collected in $(BUILD)/fuzz/stats.tsv. tests/fuzz/<name>.flags holds a
# target's extra compiler flags (idx: -DCTENSOR_ZLIB -lz).
FUZZ_SECONDS ?= 60
FUZZ ?= $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/*.c))
# (every target links one implementation object, tests/fuzz/shared/impl.c)
$(BUILD)/fuzz/impl.o: tests/fuzz/shared/impl.c $(HEADERS) | $(BUILD)/fuzz
	$(CLANG) -std=c11 -g -O1 -I. -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -c $< -o $@
$(BUILD)/fuzz/%: tests/fuzz/%.c $(BUILD)/fuzz/impl.o $(wildcard tests/fuzz/*.h tests/fuzz/*.flags) $(HEADERS) | $(BUILD)/fuzz
	$(CLANG) -std=c11 -g -O1 -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -DCT_FUZZ_SHARED_IMPL $< $(BUILD)/fuzz/impl.o -o $@ -lm -lz $(shell cat tests/fuzz/$*.flags 2>/dev/null)
fuzz: deps
	@$(MAKE) --no-print-directory fuzz-run
fuzz-run: $(addprefix $(BUILD)/fuzz/,$(FUZZ))
	@printf 'target\truns\tseconds\texec_per_s\tcoverage\tfeatures\tcorpus\tcorpus_bytes\tnew_units\tpeak_rss_mb\n' > $(BUILD)/fuzz/stats.tsv; \
	for f in $(FUZZ); do \
	  mkdir -p $(BUILD)/fuzz/corpus_$$f; cp tests/fuzz/corpus/$$f/* $(BUILD)/fuzz/corpus_$$f/ 2>/dev/null; \
	  echo "fuzzing $$f for $(FUZZ_SECONDS)s"; \
	  dict=""; [ -f tests/fuzz/$$f.dict ] && dict=-dict=tests/fuzz/$$f.dict; \
	  ./$(BUILD)/fuzz/$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $$dict $(BUILD)/fuzz/corpus_$$f >/dev/null 2>$(BUILD)/fuzz/$$f.log; \
	  rc=$$?; sh tests/fuzz/stats.sh $$f $(BUILD)/fuzz/$$f.log >> $(BUILD)/fuzz/stats.tsv; \
	  if [ $$rc != 0 ]; then tail -40 $(BUILD)/fuzz/$$f.log; echo "fuzz: $$f failed (log: $(BUILD)/fuzz/$$f.log)"; exit 1; fi; \
	done; echo; column -t -s '	' $(BUILD)/fuzz/stats.tsv 2>/dev/null || cat $(BUILD)/fuzz/stats.tsv; echo "fuzz: no crashes"

# ---- CUDA (ctensor_cuda.h) ---------------------------------------------------
# Two builds of tests/cuda/test_cuda.c, both run by `make test` (tests/run_suite.sh
# reads CUDA_TESTS) and by `make cuda-test`:
#   $(BUILD)/cuda/test_cuda      nvcc, the real thing: it runs on a GPU and, without
#                                one, reports every test as skipped and passes
#                                (built when nvcc is on PATH or in /usr/local/cuda/bin)
#   $(BUILD)/cuda/test_cuda_emu  g++: the same tests with the kernels run on the host
#                                by tests/cuda/emu (logic, not a GPU; always built);
#                                its device memory is PROT_NONE outside kernels, copies
#                                and cuBLAS calls, so a host read of it segfaults as on
#                                a GPU (CT_EMU_GUARD=0 turns that off)
# CUDA=1 makes nvcc required (an error when it is missing), CUDA=0 leaves it out;
# CUDA_ARCH picks the GPU code (make cuda-test CUDA_ARCH=-arch=native). The compile
# tests (tests/compile/run.sh) build ctensor_cuda.h under nvcc themselves.
# tests/cuda/gpu_check.sh is the script for a machine with a GPU (one build, the
# tests, then compute-sanitizer runs, within a time budget). Both programs name
# each test before it runs ("run  test_x"; cuda-test hides those lines) and print
# the test and a stack when they crash.
NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA ?=
CUDA_ARCH ?=
ifeq ($(CUDA),0)
NVCC_FOUND :=
else
NVCC_FOUND := $(NVCC)
endif
ifeq ($(CUDA),1)
ifeq ($(NVCC_FOUND),)
$(error CUDA=1: nvcc not found on PATH or in /usr/local/cuda/bin (set NVCC=/path/to/nvcc))
endif
endif
NVCCFLAGS := -O2 -x cu -DCTENSOR_CUDA -I. -Itests -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror $(CUDA_ARCH)
CUDA_SRC  := tests/cuda/test_cuda.c $(HEADERS) tests/ct_test.h tests/ct_replay.h tests/ct_huge.h $(wildcard tests/cuda/*.h)
export CUDA_TESTS := test_cuda_emu $(if $(NVCC_FOUND),test_cuda)
.PHONY: cuda-test
$(BUILD)/cuda:
	@mkdir -p $@
$(BUILD)/cuda/test_cuda: $(CUDA_SRC) | $(BUILD)/cuda
	$(NVCC_FOUND) $(NVCCFLAGS) $< -o $@ -lcusolver -lcublas -lcublasLt -lpthread -llapacke -lopenblas
# With Open MPI here the emulator build also holds ctensor_dist.h's NCCL group and its
# tests (tests/dist/test_dist_nccl.h; NCCL emulated over MPI by tests/dist/emu/nccl.h),
# run as `mpirun -np 2 test_cuda_emu --nccl` by tests/dist/run_nccl.sh in the suite.
NCCL_EMU := $(if $(MPICC),-DCT_TEST_NCCL -DCTENSOR_NCCL -Itests/dist/emu $(MPI_CFLAGS))
$(BUILD)/cuda/test_cuda_emu: $(CUDA_SRC) $(wildcard tests/cuda/emu/*.h) examples/fsdp_train.c tests/dist/test_dist_nccl.h tests/dist/emu/nccl.h | $(BUILD)/cuda
	$(CXX) -std=c++17 -x c++ -O1 -g -D__CUDACC__ -DCTENSOR_CUDA -Itests/cuda/emu $(NCCL_EMU) -I. -Itests -Wall -Wextra -Werror $< -o $@ -lm -lpthread -llapacke -lopenblas $(if $(MPICC),$(MPI_LIBS))
test-run: $(addprefix $(BUILD)/cuda/,$(CUDA_TESTS))
cuda-test: $(addprefix $(BUILD)/cuda/,$(CUDA_TESTS))
	@for t in $(CUDA_TESTS); do echo "== $$t"; out=$$(./$(BUILD)/cuda/$$t 2>&1); rc=$$?; \
	  printf '%s\n' "$$out" | grep -Ev '^(ok|run) '; [ $$rc = 0 ] || exit 1; done
	@echo "== test_cuda_emu with an H100's grids (CT_EMU_SMS=132) and two devices (CT_EMU_DEVICES=2)"; \
	  out=$$(CT_EMU_SMS=132 CT_EMU_DEVICES=2 ./$(BUILD)/cuda/test_cuda_emu 2>&1); rc=$$?; \
	  printf '%s\n' "$$out" | grep -Ev '^(ok|run) |^  the GPU step'; [ $$rc = 0 ]
# examples/fashion_mnist.c trained on the GPU (--device cuda): make fashion-cuda
# (nvcc build; the run needs a GPU). fashion_mnist_emu is the same program on the
# host emulation of tests/cuda/emu (slow; a few steps prove the kernels' wiring).
.PHONY: fashion-cuda fashion-cuda-run
fashion-cuda: deps-data
	@$(MAKE) --no-print-directory fashion-cuda-run
fashion-cuda-run: $(BUILD)/cuda/fashion_mnist
	./$(BUILD)/cuda/fashion_mnist --model both --epochs $(EPOCHS) --device cuda --out $(BUILD)
$(BUILD)/cuda/fashion_mnist: examples/fashion_mnist.c $(HEADERS) | $(BUILD)/cuda
	@[ -n "$(NVCC_FOUND)" ] || { echo "fashion-cuda: nvcc not found (install the CUDA toolkit, or set NVCC=/path/to/nvcc)"; exit 1; }
	$(NVCC_FOUND) -O2 -x cu -DCTENSOR_CUDA -DCTENSOR_ZLIB -I. -Werror all-warnings -Xcompiler -Wall,-Wextra $(CUDA_ARCH) $< -o $@ -lcublas -lz
$(BUILD)/cuda/fashion_mnist_emu: examples/fashion_mnist.c $(HEADERS) $(wildcard tests/cuda/emu/*.h) | $(BUILD)/cuda
	$(CXX) -std=c++17 -x c++ -O1 -g -D__CUDACC__ -DCTENSOR_CUDA -DCTENSOR_ZLIB -Itests/cuda/emu -I. -Wall -Wextra -Werror $< -o $@ -lm -lpthread -lz
# make bench-cuda: bench/cuda/cuda_ops.c (nvcc) beside its twin bench/torch/cuda_ops.py
# on a machine with a GPU (and PyTorch with CUDA for the twin); table in build/bench/.
.PHONY: bench-cuda
$(BUILD)/bench/cuda_ops: bench/cuda/cuda_ops.c bench/bench.h $(HEADERS) | $(BUILD)/bench
	@[ -n "$(NVCC_FOUND)" ] || { echo "bench-cuda: nvcc not found (install the CUDA toolkit, or set NVCC=/path/to/nvcc)"; exit 1; }
	$(NVCC_FOUND) -O2 -x cu -DCTENSOR_CUDA -I. -Ibench -Werror all-warnings -Xcompiler -Wall,-Wextra $(CUDA_ARCH) $< -o $@ -lcusolver -lcublasLt -lcublas -llapacke -lopenblas
bench-cuda: $(BUILD)/bench/cuda_ops
	@BUILD=$(BUILD) sh bench/run.sh cuda_ops
# ---- end CUDA ------------------------------------------------------------------

# ---- API reference -------------------------------------------------------------
# make docs: docs/reference/<header>.md, one page per header, from the headers'
# declarations and comments, each public function with its PyTorch counterpart
# (tools/gen_docs.py, standard-library python3). make test runs
# tools/gen_docs.py --check (tests/run_suite.sh): it fails on stale pages or a public
# function without a description or a counterpart, and imports every named
# counterpart with $(TORCH_PY) when that has torch.
DOCS_PY ?= python3
.PHONY: docs
docs:
	@$(DOCS_PY) tools/gen_docs.py

clean:
	rm -rf $(BUILD)
