# kvchat_add_engine_library(NAME): a static library of every engine source (engine/src,
# without the CUDA backend), with the engine's include dirs, warnings and the per-file
# flags of the AVX2 kernels. Used for kvchat_engine and for its sanitized twin.
function(kvchat_add_engine_library name)
  set(src_dir ${PROJECT_SOURCE_DIR}/engine/src)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${src_dir}/*.cpp)
  list(FILTER sources EXCLUDE REGEX "/src/backend/cuda/")
  set(x86 OFF)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    set(x86 ON)
  else()
    list(FILTER sources EXCLUDE REGEX "_avx2\\.cpp$")
  endif()
  add_library(${name} STATIC ${sources})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/engine/include PRIVATE ${src_dir})
  target_link_libraries(${name} PUBLIC Threads::Threads)
  kvchat_strict_warnings(${name})
  if(x86)
    # AVX2/FMA/F16C kernels live in files named *_avx2.cpp, called only after a run-time
    # CPU check. Source properties are directory-scoped: set for the calling directory.
    set(avx2_sources ${sources})
    list(FILTER avx2_sources INCLUDE REGEX "_avx2\\.cpp$")
    set_source_files_properties(${avx2_sources} PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma;-mf16c")
    target_compile_definitions(${name} PRIVATE KVCHAT_HAVE_AVX2_TU=1)
  endif()
endfunction()
