# Finds the CUDA toolkit (nvcc, cudart, CUPTI, NVTX) and attaches the GPU backend to a target.
#
# The library links the CUDA runtime statically and CUPTI dynamically, and never links
# libcuda: the runtime loads the driver when first used, so kprof loads and its GPU-free
# features work on a machine without a driver.

if(NOT DEFINED CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
  set(CUDAToolkit_ROOT /usr/local/cuda)
endif()
if(NOT CMAKE_CUDA_COMPILER AND EXISTS "${CUDAToolkit_ROOT}/bin/nvcc")
  set(CMAKE_CUDA_COMPILER "${CUDAToolkit_ROOT}/bin/nvcc")
endif()

set(KPROF_HAS_CUDA OFF)
if(NOT KPROF_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Turing and later, as Nsight Compute; the PTX of the newest lets newer GPUs run the
    # demo kernels too.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 75-real 80-real 86-real 89-real 90-real 100-real 120)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    if(TARGET CUDA::cupti)
      set(KPROF_HAS_CUDA ON)
    endif()
  endif()
  if(KPROF_CUDA STREQUAL "ON" AND NOT KPROF_HAS_CUDA)
    message(FATAL_ERROR "KPROF_CUDA=ON but no CUDA toolkit with CUPTI was found "
                        "(set CUDAToolkit_ROOT)")
  endif()
endif()
message(STATUS "kprof: GPU backend ${KPROF_HAS_CUDA}")

function(kprof_add_gpu_backend target)
  if(KPROF_HAS_CUDA)
    file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cuda/*.cpp
                                     ${PROJECT_SOURCE_DIR}/src/cuda/*.cu)
    target_sources(${target} PRIVATE ${srcs})
    target_compile_definitions(${target} PRIVATE KPROF_HAS_CUDA=1)
    target_link_libraries(${target} PRIVATE CUDA::cudart_static CUDA::cupti ${CMAKE_DL_LIBS})
    target_link_options(${target} PRIVATE "LINKER:--exclude-libs,ALL")
    if(TARGET CUDA::nvtx3)
      target_link_libraries(${target} PRIVATE CUDA::nvtx3)
    endif()
    # libcupti.so.13 is found through the toolkit unless the process already holds one
    # (PyTorch loads its own at import; the loader then reuses it: same soname).
    set_property(TARGET ${target} APPEND PROPERTY BUILD_RPATH "${CUDAToolkit_LIBRARY_DIR}")
    set_property(TARGET ${target} APPEND PROPERTY INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
  else()
    file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/nocuda/*.cpp)
    target_sources(${target} PRIVATE ${srcs})
  endif()
endfunction()
