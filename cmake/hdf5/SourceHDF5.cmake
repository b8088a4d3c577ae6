# HDF5 1.14.5, built from Debian trixie's source package as a static,
# C-only library with nothing but the deflate filter: bookworm's 1.10.8
# is end of life and crashes on corrupt global heaps and B-trees that 1.14
# rejects (docs/robustness.md has the measurement). One fix of ours is
# applied on top (patch-source.cmake: a corrupt global heap made it spin). The sources come through
# apt (cmake/hdf5/fetch-debian-source), the build is cached in the build
# folder, and -DH5AD_SIZER_HDF5_PREFIX=DIR reuses one installed before
# (CI's sanitizer and fuzzer builds reuse build/'s).
#
# Defines the imported target h5ad_sizer::hdf5.

set(H5AD_SIZER_HDF5_DEBIAN_VERSION 1.14.5+repack-3)
set(H5AD_SIZER_HDF5_SOURCE_DIRNAME hdf5-1.14.5+repack)
set(H5AD_SIZER_HDF5_PREFIX "" CACHE PATH
    "An HDF5 installed by an earlier build of this project (its build/hdf5/install)")

if(H5AD_SIZER_HDF5_PREFIX)
  set(hdf5_install ${H5AD_SIZER_HDF5_PREFIX})
  if(NOT EXISTS ${hdf5_install}/lib/libhdf5.a OR NOT EXISTS ${hdf5_install}/include/H5pubconf.h)
    message(FATAL_ERROR "H5AD_SIZER_HDF5_PREFIX=${hdf5_install} holds no built HDF5 "
                        "(lib/libhdf5.a, include/H5pubconf.h)")
  endif()
else()
  include(ExternalProject)
  set(hdf5_root ${CMAKE_BINARY_DIR}/hdf5)
  set(hdf5_install ${hdf5_root}/install)
  ExternalProject_Add(hdf5_from_source
    PREFIX ${hdf5_root}
    DOWNLOAD_DIR ${hdf5_root}/download
    SOURCE_DIR ${hdf5_root}/download/${H5AD_SIZER_HDF5_SOURCE_DIRNAME}
    INSTALL_DIR ${hdf5_install}
    DOWNLOAD_COMMAND
      ${CMAKE_CURRENT_LIST_DIR}/fetch-debian-source hdf5 ${H5AD_SIZER_HDF5_DEBIAN_VERSION} trixie <DOWNLOAD_DIR>
      COMMAND ${CMAKE_COMMAND} -E chdir <DOWNLOAD_DIR> ${CMAKE_COMMAND} -E tar xzf hdf5_1.14.5+repack.orig.tar.gz
    PATCH_COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=<SOURCE_DIR> -P ${CMAKE_CURRENT_LIST_DIR}/patch-source.cmake
    CMAKE_ARGS
      -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
      -DCMAKE_BUILD_TYPE=Release
      -DCMAKE_INSTALL_PREFIX=<INSTALL_DIR>
      -DCMAKE_INSTALL_LIBDIR=lib
      -DCMAKE_POSITION_INDEPENDENT_CODE=ON
      -DBUILD_SHARED_LIBS=OFF
      -DBUILD_STATIC_LIBS=ON
      -DBUILD_TESTING=OFF
      -DHDF5_BUILD_CPP_LIB=OFF
      -DHDF5_BUILD_FORTRAN=OFF
      -DHDF5_BUILD_JAVA=OFF
      -DHDF5_BUILD_HL_LIB=OFF
      -DHDF5_BUILD_TOOLS=OFF
      -DHDF5_BUILD_UTILS=OFF
      -DHDF5_BUILD_EXAMPLES=OFF
      -DHDF5_BUILD_DOC=OFF
      -DHDF5_ENABLE_DEPRECATED_SYMBOLS=OFF
      -DHDF5_ENABLE_Z_LIB_SUPPORT=ON
      -DHDF5_ENABLE_SZIP_SUPPORT=OFF
      -DHDF5_ALLOW_EXTERNAL_SUPPORT=NO
    BUILD_BYPRODUCTS ${hdf5_install}/lib/libhdf5.a
    LOG_DOWNLOAD ON
    LOG_CONFIGURE ON
    LOG_BUILD ON
    LOG_INSTALL ON
    LOG_OUTPUT_ON_FAILURE ON
  )
  file(MAKE_DIRECTORY ${hdf5_install}/include)
endif()

add_library(h5ad_sizer::hdf5 STATIC IMPORTED GLOBAL)
set_target_properties(h5ad_sizer::hdf5 PROPERTIES
  IMPORTED_LOCATION ${hdf5_install}/lib/libhdf5.a
  INTERFACE_INCLUDE_DIRECTORIES ${hdf5_install}/include
  INTERFACE_LINK_LIBRARIES "ZLIB::ZLIB;m;${CMAKE_DL_LIBS}")
if(TARGET hdf5_from_source)
  add_dependencies(h5ad_sizer::hdf5 hdf5_from_source)
endif()
