# The emulated cuBLAS (issue 41 point 2): cublasGemmEx and the handle calls by their
# documented meaning, for the host build of the CUDA backend. Included by
# tests/cuda_host/CMakeLists.txt; defines
#   KVCHAT_CUBLAS_EMULATION_SOURCES  the emulation's sources (the host plugin's emulator objects
#                                    already take them through their src/*.cpp glob)
#   test_cublas_emulation            its unit test: a test double of the emulated device
#                                    (kvchat_emu::submit/is_device_range/fault), so it links
#                                    neither the emulated runtime nor the engine; no nvcc, no GPU.
set(KVCHAT_CUBLAS_EMULATION_SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/cublas_emulation.cpp)

add_executable(test_cublas_emulation ${CMAKE_CURRENT_LIST_DIR}/test_cublas_emulation.cpp
               ${KVCHAT_CUBLAS_EMULATION_SOURCES})
target_include_directories(test_cublas_emulation BEFORE PRIVATE ${CMAKE_CURRENT_LIST_DIR}/include)
target_include_directories(test_cublas_emulation PRIVATE ${PROJECT_SOURCE_DIR}/engine/src
                           ${PROJECT_SOURCE_DIR}/engine/include)
target_link_libraries(test_cublas_emulation PRIVATE GTest::gtest GTest::gtest_main)
kvchat_strict_warnings(test_cublas_emulation)
add_test(NAME test_cublas_emulation COMMAND test_cublas_emulation)
set_tests_properties(test_cublas_emulation PROPERTIES LABELS engine TIMEOUT 900)
