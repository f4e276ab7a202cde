# Message catalogues (po/*.po) compiled with msgfmt into locale/LANG/LC_MESSAGES/gpuvet.mo beside the
# binary in the build tree, installed under share/locale (util/i18n.c finds both). --check fails the
# build on a translated format string whose conversions differ from the English (c-format).
find_program(GPUVET_MSGFMT msgfmt REQUIRED)
file(GLOB GPUVET_PO_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/po/*.po)
set(GPUVET_MO_FILES "")
foreach(po ${GPUVET_PO_FILES})
  get_filename_component(lang ${po} NAME_WE)
  set(mo ${CMAKE_BINARY_DIR}/locale/${lang}/LC_MESSAGES/gpuvet.mo)
  add_custom_command(OUTPUT ${mo}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/locale/${lang}/LC_MESSAGES
    COMMAND ${GPUVET_MSGFMT} --check -o ${mo} ${po}
    DEPENDS ${po} COMMENT "Compiling the ${lang} message catalogue" VERBATIM)
  list(APPEND GPUVET_MO_FILES ${mo})
  install(FILES ${mo} DESTINATION ${CMAKE_INSTALL_LOCALEDIR}/${lang}/LC_MESSAGES)
endforeach()
add_custom_target(gpuvet_catalogues ALL DEPENDS ${GPUVET_MO_FILES})
add_dependencies(gpuvet gpuvet_catalogues)
target_compile_definitions(gpuvet_core PRIVATE GPUVET_LOCALEDIR="${CMAKE_INSTALL_FULL_LOCALEDIR}")
