# The Debian package (issue 49; `make deb`): CPack's DEB generator over these install rules.
#   /usr/bin/plauditd
#   /lib/systemd/system/plauditd.service    packaging/plauditd.service (DynamicUser, hardened)
#   /etc/plaudit/plaudit.toml               every key, commented (`plauditd config-example`),
#                                           a conffile: an upgrade keeps the operator's edits
#   /usr/share/man/man8/plauditd.8.gz       help2man over `plauditd --help` and `--version`
#   /usr/share/doc/plaudit/                 README.md, docs/operations.md, copyright
# The package's shared-library dependencies come from dpkg-shlibdeps; redis-server is
# recommended (the embedded mode runs it as a child; an external Redis needs none).
include(GNUInstallDirs)

set(PLAUDIT_PKG_DIR ${CMAKE_BINARY_DIR}/packaging)
add_custom_command(
  OUTPUT ${PLAUDIT_PKG_DIR}/plaudit.toml
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PLAUDIT_PKG_DIR}
  COMMAND sh -c "'$<TARGET_FILE:plauditd>' config-example > '${PLAUDIT_PKG_DIR}/plaudit.toml'"
  DEPENDS plauditd $<TARGET_FILE:plauditd>
  COMMENT "packaging: plaudit.toml (plauditd config-example)"
  VERBATIM)
find_program(PLAUDIT_HELP2MAN help2man)
if(PLAUDIT_HELP2MAN)
  add_custom_command(
    OUTPUT ${PLAUDIT_PKG_DIR}/plauditd.8.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PLAUDIT_PKG_DIR}
    COMMAND sh -c "'${PLAUDIT_HELP2MAN}' --no-info --section 8 --name 'comments, likes and view counts for blogs and forums' '$<TARGET_FILE:plauditd>' | gzip -9n > '${PLAUDIT_PKG_DIR}/plauditd.8.gz'"
    DEPENDS plauditd $<TARGET_FILE:plauditd>
    COMMENT "packaging: plauditd.8 (help2man)"
    VERBATIM)
  set(PLAUDIT_MAN_PAGE ${PLAUDIT_PKG_DIR}/plauditd.8.gz)
endif()
add_custom_target(package_files ALL DEPENDS ${PLAUDIT_PKG_DIR}/plaudit.toml ${PLAUDIT_MAN_PAGE})

install(TARGETS plauditd RUNTIME DESTINATION usr/bin)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/plauditd.service DESTINATION lib/systemd/system)
install(FILES ${PLAUDIT_PKG_DIR}/plaudit.toml DESTINATION etc/plaudit)
if(PLAUDIT_MAN_PAGE)
  install(FILES ${PLAUDIT_MAN_PAGE} DESTINATION usr/share/man/man8)
endif()
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/docs/operations.md
              ${CMAKE_SOURCE_DIR}/packaging/copyright
        DESTINATION usr/share/doc/plaudit)
# The Prometheus alert rules docs/operations.md "Monitoring" describes, to copy into a rules dir.
install(FILES ${CMAKE_SOURCE_DIR}/packaging/prometheus/plaudit-alerts.yml
        DESTINATION usr/share/doc/plaudit/examples)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME plaudit)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "comments, likes and view counts for blogs and forums")
set(CPACK_PACKAGE_CONTACT "Plaudit maintainers <plaudit@localhost>")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION web)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "redis-server (>= 5:7.0)")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "postgresql, mariadb-server, nginx")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_SOURCE_DIR}/packaging/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
