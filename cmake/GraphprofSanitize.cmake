# GRAPHPROF_SANITIZE=ON: AddressSanitizer + UndefinedBehaviorSanitizer for the host C++ code.
# Only C++ compiles and C++-linked executables get the flags; nvcc compiles and links nothing with
# them, so the sanitizer runtime is linked once (a -fsanitize in CMAKE_EXE_LINKER_FLAGS reached the
# CUDA links too and put the ASan runtime in twice). UB aborts (no recovery), so a test fails on it.
# The preset "sanitize" builds with clang and runs the host-only CPU tests (ctest -L core);
# scripts/sanitize.sh is what CI runs. On a GPU machine ASan needs ASAN_OPTIONS=protect_shadow_gap=0
# for CUDA to map its memory.
option(GRAPHPROF_SANITIZE "Build host C++ with -fsanitize=address,undefined (CUDA code stays uninstrumented)" OFF)
if(GRAPHPROF_SANITIZE)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=undefined>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>)
  add_link_options($<$<LINK_LANGUAGE:CXX>:-fsanitize=address,undefined>)
endif()
