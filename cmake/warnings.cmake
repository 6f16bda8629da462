# tempo_warnings(<target>): the warning set for tempo's own code (not for
# third-party or generated code). CI configures with -DTEMPO_WERROR=ON, which
# makes them errors. CUDA sources keep nvcc's own warnings (errors under TEMPO_WERROR):
# the host pass of device code warns about #pragma unroll.
option(TEMPO_WERROR "Treat warnings in tempo's own code as errors" OFF)
function(tempo_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wshadow -Wconversion>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${TEMPO_WERROR}>>:-Werror>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${TEMPO_WERROR}>>:-Werror=all-warnings>)
  # GCC documents that sanitizer instrumentation makes -Wmaybe-uninitialized report
  # false positives; with ASan at -O2 it fires inside libstdc++'s <regex> (pulled in by
  # Catch2). The Release build keeps the warning, so real cases are still caught there.
  if(TEMPO_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wno-maybe-uninitialized>)
  endif()
endfunction()
