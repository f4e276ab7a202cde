# Message catalogues (po/*.po) compiled with msgfmt into locale/LANG/LC_MESSAGES/gpuvet.mo beside the
# binary in the build tree, installed under share/locale, and zh_CN's also compiled into the binary,
# so a binary copied alone speaks Chinese (util/i18n.c: an installed one overrides it). msgfmt is
# required (scripts/setup.sh): without it there would be no built-in catalogue.
find_program(GPUVET_MSGFMT msgfmt REQUIRED)
set(GPUVET_ROOT ${CMAKE_SOURCE_DIR})
include(${CMAKE_SOURCE_DIR}/cmake/catalogue_rules.cmake)
file(GLOB GPUVET_PO_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/po/*.po)
set(GPUVET_MO_FILES "")
foreach(po ${GPUVET_PO_FILES})
  get_filename_component(lang ${po} NAME_WE)
  set(mo ${CMAKE_BINARY_DIR}/locale/${lang}/LC_MESSAGES/gpuvet.mo)
  gpuvet_catalogue_mo(${po} ${mo})
  list(APPEND GPUVET_MO_FILES ${mo})
  install(FILES ${mo} DESTINATION ${CMAKE_INSTALL_LOCALEDIR}/${lang}/LC_MESSAGES)
endforeach()
add_custom_target(gpuvet_catalogues ALL DEPENDS ${GPUVET_MO_FILES})
add_dependencies(gpuvet gpuvet_catalogues)
target_compile_definitions(gpuvet_core PRIVATE GPUVET_LOCALEDIR="${CMAKE_INSTALL_FULL_LOCALEDIR}")

set(GPUVET_EMBEDDED_CATALOGUE ${CMAKE_BINARY_DIR}/generated/embedded_catalogue.c)
gpuvet_catalogue_embedded(${CMAKE_BINARY_DIR}/locale/zh_CN/LC_MESSAGES/gpuvet.mo ${GPUVET_EMBEDDED_CATALOGUE})
target_sources(gpuvet_core PRIVATE ${GPUVET_EMBEDDED_CATALOGUE})
# The .mo is made once, by gpuvet_catalogues, before gpuvet_core embeds it (not twice in parallel).
add_dependencies(gpuvet_core gpuvet_catalogues)
