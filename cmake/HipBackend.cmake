# The native HIP backend (kernels/hip/), written against the HIP API and compiled
#   - for NVIDIA by nvcc as CUDA, with kernels/hip/hip_nvidia.hpp mapping the HIP names
#     onto the CUDA runtime and CUB for reductions (preset hip-nvidia);
#   - for AMD by hipcc (see below) and rocPRIM for reductions (preset hip-amd).
set(_hc_hip_sources kernels/hip/hip_backend.cpp kernels/hip/probe.cpp)

if(HALOCLINE_HIP_PLATFORM STREQUAL "nvidia")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)  # H100 / H200
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set_source_files_properties(${_hc_hip_sources} PROPERTIES LANGUAGE CUDA)
  # halocline_core exists already: its CUDA properties are set here, not from the defaults.
  set_target_properties(halocline_core PROPERTIES
    CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}" CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  target_sources(halocline_core PRIVATE ${_hc_hip_sources})
  target_compile_definitions(halocline_core PUBLIC HALOCLINE_HAVE_HIP PRIVATE HALOCLINE_HIP_NVIDIA)
  if(HALOCLINE_STRICT_FP)
    target_compile_options(halocline_core PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--fmad=false>)
  endif()
  # -Xptxas -v prints registers and spills per kernel: the first thing to read when a
  # kernel is slow (HALOCLINE_PTXAS_VERBOSE=ON).
  option(HALOCLINE_PTXAS_VERBOSE "Print register use of the CUDA kernels" OFF)
  if(HALOCLINE_PTXAS_VERBOSE)
    target_compile_options(halocline_core PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-v>)
  endif()
  target_link_libraries(halocline_core PUBLIC CUDA::cudart)
elseif(HALOCLINE_HIP_PLATFORM STREQUAL "amd")
  # hipcc compiles every C++ file as HIP, which the host-only code (Kokkos Serial among it)
  # does not survive; and CMake's HIP language does not find Debian's ROCm layout. So the
  # project keeps its C++ compiler, and hipcc compiles each of the backend's sources into
  # an object that the library links like any other.
  find_package(hip REQUIRED)
  find_package(rocprim REQUIRED)
  find_program(HALOCLINE_HIPCC hipcc REQUIRED)
  set(_hc_flags -std=c++17 -O3 -fPIC -DNDEBUG -I${PROJECT_SOURCE_DIR})
  foreach(_arch IN LISTS GPU_TARGETS)
    list(APPEND _hc_flags --offload-arch=${_arch})
  endforeach()
  if(HALOCLINE_STRICT_FP)
    list(APPEND _hc_flags -ffp-contract=off)
  endif()
  foreach(_hc_source IN LISTS _hc_hip_sources)
    get_filename_component(_hc_name ${_hc_source} NAME_WE)
    set(_hc_obj ${CMAKE_CURRENT_BINARY_DIR}/hip_${_hc_name}.o)
    add_custom_command(
      OUTPUT ${_hc_obj}
      COMMAND ${HALOCLINE_HIPCC} ${_hc_flags} -MD -MF ${_hc_obj}.d
              -c ${PROJECT_SOURCE_DIR}/${_hc_source} -o ${_hc_obj}
      DEPENDS ${PROJECT_SOURCE_DIR}/${_hc_source}
      DEPFILE ${_hc_obj}.d
      COMMENT "hipcc: ${_hc_source} for ${GPU_TARGETS}"
      VERBATIM)
    set_source_files_properties(${_hc_obj} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    target_sources(halocline_core PRIVATE ${_hc_obj})
  endforeach()
  target_compile_definitions(halocline_core PUBLIC HALOCLINE_HAVE_HIP)
  target_link_libraries(halocline_core PUBLIC hip::host)
else()
  message(FATAL_ERROR "HALOCLINE_HIP_PLATFORM must be nvidia or amd, not '${HALOCLINE_HIP_PLATFORM}'")
endif()
message(STATUS "HIP backend for ${HALOCLINE_HIP_PLATFORM}")
