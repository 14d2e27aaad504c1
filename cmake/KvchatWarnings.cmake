# Strict warnings for project code only (not for third-party headers).
function(kvchat_strict_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>)
    # The GPU check builds with the device machine's compiler, whatever its version:
    # its new warnings are read in the log there, not fatal.
    if(NOT KVCHAT_GPU_CHECK)
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
    endif()
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 reports false -Wrestrict/-Wstringop-overflow on std::string operator+ at -O3
    # (GCC bug 105329): -Wrestrict is off, -Wstringop-overflow stays a warning.
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict -Wno-error=stringop-overflow>)
  endif()
endfunction()

# The sanitizer flags of the debug test preset (ASan + UBSan, abort on the first report).
set(KVCHAT_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all
    -fno-omit-frame-pointer -g -O1)
