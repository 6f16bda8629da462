# tempo_install(<target> COMPONENT <name> [DEPENDS <component>...] [NEEDS_CUDA]
#               [FIND <find_package arguments>...] [PC_REQUIRES <pkg-config module>...])
#
# Installs a library as one component of the tempo package: its own export set
# (tempo-<name>-targets.cmake), a pkg-config file (tempo-<name>.pc, or tempo.pc for
# the runtime), and an entry in the component table that tempoConfig.cmake reads, so
# that find_package(tempo CONFIG REQUIRED COMPONENTS ntt) loads ntt and what it
# depends on, and nothing else (the runtime alone needs no CUDA toolkit).
include(GNUInstallDirs)

function(tempo_install target)
  cmake_parse_arguments(arg "NEEDS_CUDA" "COMPONENT" "DEPENDS;FIND;PC_REQUIRES" ${ARGN})
  set(comp ${arg_COMPONENT})
  install(TARGETS ${target} EXPORT tempo-${comp}-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT tempo-${comp}-targets NAMESPACE tempo:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tempo)
  set(cuda OFF)
  if(arg_NEEDS_CUDA AND TEMPO_HAVE_CUDA)
    set(cuda ON)
  endif()
  set_property(GLOBAL APPEND PROPERTY TEMPO_COMPONENTS ${comp})
  set_property(GLOBAL PROPERTY TEMPO_COMPONENT_${comp}_DEPENDS "${arg_DEPENDS}")
  set_property(GLOBAL PROPERTY TEMPO_COMPONENT_${comp}_CUDA ${cuda})
  set_property(GLOBAL PROPERTY TEMPO_COMPONENT_${comp}_FIND "${arg_FIND}")

  # pkg-config: Requires lists the components it depends on.
  get_target_property(out ${target} OUTPUT_NAME)
  if(NOT out)
    set(out ${target})
  endif()
  set(pc_name tempo-${comp})
  if(comp STREQUAL "tempo")
    set(pc_name tempo)
  endif()
  set(requires "")
  foreach(d ${arg_DEPENDS})
    if(d STREQUAL "tempo")
      list(APPEND requires tempo)
    else()
      list(APPEND requires tempo-${d})
    endif()
  endforeach()
  list(APPEND requires ${arg_PC_REQUIRES})
  list(JOIN requires ", " requires)
  set(cuda_libs "")
  if(cuda)
    set(cuda_libs " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt")
  endif()
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/pkgconfig/${pc_name}.pc CONTENT
"prefix=\${pcfiledir}/../..
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}

Name: ${pc_name}
Description: tempo ${comp} (heartbeat-scheduled fork/join runtime and workloads)
Version: ${PROJECT_VERSION}
Requires: ${requires}
Cflags: -I\${includedir} -std=c++20
Libs: -L\${libdir} -l${out}${cuda_libs}
Libs.private: -pthread
")
  install(FILES ${CMAKE_BINARY_DIR}/pkgconfig/${pc_name}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()

# Writes tempoConfig.cmake and its version file from the components installed so far.
function(tempo_install_package)
  include(CMakePackageConfigHelpers)
  get_property(comps GLOBAL PROPERTY TEMPO_COMPONENTS)
  set(table "")
  foreach(c ${comps})
    get_property(deps GLOBAL PROPERTY TEMPO_COMPONENT_${c}_DEPENDS)
    get_property(cuda GLOBAL PROPERTY TEMPO_COMPONENT_${c}_CUDA)
    get_property(find GLOBAL PROPERTY TEMPO_COMPONENT_${c}_FIND)
    string(APPEND table "set(_tempo_${c}_depends \"${deps}\")\nset(_tempo_${c}_cuda ${cuda})\n"
                        "set(_tempo_${c}_find \"${find}\")\n")
  endforeach()
  set(TEMPO_COMPONENT_LIST "${comps}")
  set(TEMPO_COMPONENT_TABLE "${table}")
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tempoConfig.cmake.in
    ${CMAKE_BINARY_DIR}/tempoConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tempo)
  write_basic_package_version_file(${CMAKE_BINARY_DIR}/tempoConfigVersion.cmake COMPATIBILITY SameMinorVersion)
  install(FILES ${CMAKE_BINARY_DIR}/tempoConfig.cmake ${CMAKE_BINARY_DIR}/tempoConfigVersion.cmake
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tempo)
endfunction()
