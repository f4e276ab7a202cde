# The documents Debian policy wants in every package's share/doc/PACKAGE (12.5 copyright, 12.7
# changelog), installed by `cmake --install` as well, so the package is the install as it is:
#  - copyright: packaging/copyright, machine-readable (DEP-5);
#  - changelog.gz: a Debian-format changelog whose one entry is generated from project()'s
#    version, the version CPack gives the package, so the two cannot drift; dated by the build,
#    or by SOURCE_DATE_EPOCH for a reproducible one. Native package (no Debian revision): lintian
#    wants changelog.gz, not changelog.Debian.gz. Needs CPACK_PACKAGE_NAME and _CONTACT set.
string(TIMESTAMP GPUVET_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(GPUVET_CHANGELOG ${CMAKE_BINARY_DIR}/packaging/changelog)
configure_file(${CMAKE_SOURCE_DIR}/packaging/changelog.in ${GPUVET_CHANGELOG} @ONLY)
add_custom_command(OUTPUT ${GPUVET_CHANGELOG}.gz
  COMMAND sh -c "gzip -9n < '${GPUVET_CHANGELOG}' > '${GPUVET_CHANGELOG}.gz'"
  DEPENDS ${GPUVET_CHANGELOG} VERBATIM)
add_custom_target(debian_changelog ALL DEPENDS ${GPUVET_CHANGELOG}.gz)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/copyright ${GPUVET_CHANGELOG}.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})
