# FASTMU_SANITIZERS=address,undefined: every C/C++ target is built with those
# sanitizers, -O1 -gline-tables-only (file:line in reports, a fraction of
# -g's compile time) and no recovery (the first report fails the test), as
# tools/test.sh's second build does. With FASTMU_BUILD_FUZZERS the code is also
# instrumented for libFuzzer's coverage (fuzzer-no-link), so the fuzz targets
# and the sanitizer test suite share one build.
if(FASTMU_SANITIZERS)
  set(_fastmu_san "-fsanitize=${FASTMU_SANITIZERS}")
  if(FASTMU_BUILD_FUZZERS)
    string(APPEND _fastmu_san ",fuzzer-no-link")
  endif()
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:${_fastmu_san}> $<$<COMPILE_LANGUAGE:C,CXX>:-O1>
                      $<$<COMPILE_LANGUAGE:C,CXX>:-gline-tables-only> $<$<COMPILE_LANGUAGE:C,CXX>:-fno-omit-frame-pointer>
                      $<$<COMPILE_LANGUAGE:C,CXX>:-fno-sanitize-recover=all>)
  add_link_options(-fsanitize=${FASTMU_SANITIZERS})
  if(FASTMU_HAVE_CUDA)
    message(FATAL_ERROR "FASTMU_SANITIZERS needs -DFASTMU_ENABLE_CUDA=OFF")
  endif()
endif()
