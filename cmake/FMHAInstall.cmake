# fmha as a CMake package: `cmake --install build --prefix P` installs the
# headers (with the generated .h.inc), the static FMHA* libraries, the tools,
# the docs and P/lib/cmake/fmha/FMHAConfig.cmake, so that another project can
#
#   find_package(FMHA REQUIRED CONFIG)   # -DFMHA_DIR=P/lib/cmake/fmha
#   target_link_libraries(my-tool PRIVATE FMHA::FMHARegistration)
#
# (examples/embedding shows a whole consumer). fmha's libraries are made with
# add_fmha_library, which is add_mlir_library with fmha's own export set
# (FMHATargets) instead of MLIR's: add_mlir_library would put them into
# MLIRTargets, which fmha never installs.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(FMHA_INSTALL_LIBDIR "lib${LLVM_LIBDIR_SUFFIX}")
set(FMHA_INSTALL_PACKAGEDIR "${FMHA_INSTALL_LIBDIR}/cmake/fmha")

# Usage requirements every fmha library passes on: fmha's installed include
# directory and C++17. MLIR's exported targets carry no include directories,
# so FMHAConfig.cmake adds those of the MLIR it finds to this target.
add_library(FMHAHeaders INTERFACE)
target_include_directories(FMHAHeaders INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(FMHAHeaders INTERFACE cxx_std_17)
install(TARGETS FMHAHeaders EXPORT FMHATargets)

# add_mlir_library(name ...) whose library is installed and exported as
# FMHA::name. Only the library itself is exported; the obj.name object
# library that add_mlir_library builds it from stays in the build tree.
function(add_fmha_library name)
  add_mlir_library(${name} DISABLE_INSTALL ${ARGN})
  target_link_libraries(${name} PUBLIC FMHAHeaders)
  install(TARGETS ${name} EXPORT FMHATargets
    ARCHIVE DESTINATION ${FMHA_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${FMHA_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()

# Installs a tool and exports it as FMHA::name (an imported executable). The
# installed tool keeps finding libMLIR.so / libLLVM.so where they are
# (add_llvm_executable's install RPATH has only $ORIGIN/../lib).
function(install_fmha_tool name)
  set_property(TARGET ${name} APPEND PROPERTY INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
  install(TARGETS ${name} EXPORT FMHATargets
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()

# Headers: the sources' .h (and .td, for projects that build on fmha's ODS)
# and the build's generated .h.inc.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/fmha ${PROJECT_SOURCE_DIR}/include/fmha-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/fmha
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h.inc"
  PATTERN "CMakeFiles" EXCLUDE)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/
  DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/fmha
  PATTERN "CMakeLists.txt" EXCLUDE
  PATTERN "*.cmake" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/README.md
  DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/fmha)

install(EXPORT FMHATargets
  NAMESPACE FMHA::
  DESTINATION ${FMHA_INSTALL_PACKAGEDIR})
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/FMHAConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/FMHAConfig.cmake
  INSTALL_DESTINATION ${FMHA_INSTALL_PACKAGEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
# 0.x: a minor version may break the API.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/FMHAConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/FMHAConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/FMHAConfigVersion.cmake
  DESTINATION ${FMHA_INSTALL_PACKAGEDIR})
