# Third-party dependencies, all from Debian packages (see README).
find_package(Threads REQUIRED)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(ZLIB REQUIRED)  # tables' compressed chunks inflated on all cores (io/Hdf5Chunks)
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json 3.10 CONFIG REQUIRED)
find_package(fmt CONFIG REQUIRED)
find_package(pugixml CONFIG REQUIRED)  # GDML geometry (libpugixml-dev)

# Random123 is header-only; the installed package (cmake/fastmuConfig.cmake.in)
# finds it again the same way.
find_path(RANDOM123_INCLUDE_DIR Random123/philox.h REQUIRED)
add_library(fastmu_random123 INTERFACE)
target_include_directories(fastmu_random123 SYSTEM INTERFACE $<BUILD_INTERFACE:${RANDOM123_INCLUDE_DIR}>)
set_target_properties(fastmu_random123 PROPERTIES EXPORT_NAME random123)

# HDF5 through FindHDF5's variables in the build tree, through its imported
# target hdf5::hdf5 in an installed fastmu package (no build machine paths).
add_library(fastmu_hdf5 INTERFACE)
set_target_properties(fastmu_hdf5 PROPERTIES EXPORT_NAME hdf5)
foreach(_dir IN LISTS HDF5_C_INCLUDE_DIRS HDF5_INCLUDE_DIRS)
  target_include_directories(fastmu_hdf5 SYSTEM INTERFACE $<BUILD_INTERFACE:${_dir}>)
endforeach()
foreach(_lib IN LISTS HDF5_C_LIBRARIES HDF5_LIBRARIES)
  target_link_libraries(fastmu_hdf5 INTERFACE $<BUILD_INTERFACE:${_lib}>)
endforeach()
foreach(_def IN LISTS HDF5_C_DEFINITIONS HDF5_DEFINITIONS)
  target_compile_definitions(fastmu_hdf5 INTERFACE $<BUILD_INTERFACE:${_def}>)
endforeach()
target_link_libraries(fastmu_hdf5 INTERFACE $<INSTALL_INTERFACE:hdf5::hdf5>)

if(FASTMU_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(FASTMU_BUILD_BENCH)
  find_package(benchmark CONFIG QUIET)
endif()
if(FASTMU_BUILD_PYTHON)
  if(EXISTS /usr/bin/python3 AND NOT Python3_EXECUTABLE AND NOT Python_EXECUTABLE)
    # Debian's interpreter, where python3-numpy and friends live.
    set(Python_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python COMPONENTS Interpreter Development.Module QUIET)
  if(Python_FOUND)
    set(PYBIND11_FINDPYTHON ON)
    find_package(pybind11 CONFIG QUIET)
  endif()
endif()

# MPI for `mpirun -np N fastmu ...` (the command line only; the library and
# the Python module never call MPI).
set(FASTMU_HAVE_MPI OFF)
if(NOT FASTMU_ENABLE_MPI STREQUAL "OFF")
  if(FASTMU_ENABLE_MPI STREQUAL "ON")
    find_package(MPI REQUIRED COMPONENTS C)
  else()
    find_package(MPI QUIET COMPONENTS C)
  endif()
  if(MPI_C_FOUND)
    set(FASTMU_HAVE_MPI ON)
    find_program(FASTMU_MPIEXEC NAMES mpirun mpiexec HINTS ${MPIEXEC_EXECUTABLE})
  endif()
endif()
message(STATUS "fastmu: MPI support ${FASTMU_HAVE_MPI}")

# libdeflate inflates a whole chunk about three times as fast as zlib: the alias
# tables of a ladder are rebuilt from its inflated histograms at each load
# (io/Hdf5Inflate). Optional: zlib inflates where it is missing. Debian's
# package (1.14) has no CMake package, only the header and the library.
set(FASTMU_HAVE_LIBDEFLATE OFF)
if(NOT FASTMU_ENABLE_LIBDEFLATE STREQUAL "OFF")
  find_path(FASTMU_LIBDEFLATE_INCLUDE_DIR libdeflate.h)
  find_library(FASTMU_LIBDEFLATE_LIBRARY NAMES deflate)
  if(FASTMU_LIBDEFLATE_INCLUDE_DIR AND FASTMU_LIBDEFLATE_LIBRARY)
    set(FASTMU_HAVE_LIBDEFLATE ON)
    # Its path in the build tree, its name in an installed package (no
    # build machine paths), as for HDF5 above.
    add_library(fastmu_libdeflate INTERFACE)
    set_target_properties(fastmu_libdeflate PROPERTIES EXPORT_NAME libdeflate)
    target_include_directories(fastmu_libdeflate SYSTEM INTERFACE
      $<BUILD_INTERFACE:${FASTMU_LIBDEFLATE_INCLUDE_DIR}>)
    target_link_libraries(fastmu_libdeflate INTERFACE
      $<BUILD_INTERFACE:${FASTMU_LIBDEFLATE_LIBRARY}> $<INSTALL_INTERFACE:deflate>)
  elseif(FASTMU_ENABLE_LIBDEFLATE STREQUAL "ON")
    message(FATAL_ERROR "FASTMU_ENABLE_LIBDEFLATE=ON but libdeflate was not found (Debian: libdeflate-dev)")
  endif()
endif()
message(STATUS "fastmu: libdeflate ${FASTMU_HAVE_LIBDEFLATE}")
