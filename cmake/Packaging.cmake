# Installing and packaging: what `cmake --install` puts where, and the four Debian packages CPack
# makes from it (scripts/package.sh; docs/PACKAGING.md). The programs install themselves in
# app/*/CMakeLists.txt; this file adds the system files around them.
#
#   component   package        contents
#   console     shardmap       the console, its launcher, AppStream metainfo, icons
#   node        shardmap-node  the node, its unit and /etc/shardmap/node.conf
#   controller  shardmapd      the controller, its unit and /etc/shardmap/shardmapd.conf
#   ctl         shardmapctl    the CLI and its bash completion
#
# Every package gets its man page(s) gzipped, /usr/share/doc/<package>/{copyright,changelog.Debian.gz}.
# With the prefix /usr (packages) the configuration goes to /etc/shardmap and the units to
# /lib/systemd/system (Debian 12's place); with another prefix, under it.

include(GNUInstallDirs)
set(SHARDMAP_CONFIG_DIR "${CMAKE_INSTALL_FULL_SYSCONFDIR}/shardmap")
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(SHARDMAP_UNIT_DIR "/lib/systemd/system")
else()
  set(SHARDMAP_UNIT_DIR "lib/systemd/system")
endif()

set(SHARDMAP_PACKAGE_MAINTAINER "Shardmap developers <shardmap@users.noreply.github.com>"
  CACHE STRING "Maintainer field of the Debian packages")
set(SHARDMAP_DEBIAN_REVISION 1 CACHE STRING "Debian revision of the packages (VERSION-REVISION)")
set(packaging ${PROJECT_SOURCE_DIR}/packaging)
set(generated ${PROJECT_BINARY_DIR}/packaging)
find_program(SHARDMAP_GZIP gzip REQUIRED)

# component -> package
set(SHARDMAP_PACKAGE_console shardmap)
set(SHARDMAP_PACKAGE_node shardmap-node)
set(SHARDMAP_PACKAGE_controller shardmapd)
set(SHARDMAP_PACKAGE_ctl shardmapctl)
set(SHARDMAP_COMPONENTS node controller ctl)
if(NOT SHARDMAP_CORE_ONLY)
  list(APPEND SHARDMAP_COMPONENTS console)
endif()

# Man pages, gzipped without a timestamp (reproducible, as Debian wants them).
set(man_gz)
foreach(page shardmap.1:console shardmap-node.1:node shardmapd.8:controller shardmapctl.1:ctl)
  string(REPLACE ":" ";" parts ${page})
  list(GET parts 0 name)
  list(GET parts 1 component)
  if(NOT component IN_LIST SHARDMAP_COMPONENTS)
    continue()
  endif()
  string(REGEX REPLACE ".*\\.([0-9])$" "\\1" section ${name})
  add_custom_command(OUTPUT ${generated}/man/${name}.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${generated}/man
    COMMAND ${SHARDMAP_GZIP} -9nc ${packaging}/man/${name} > ${generated}/man/${name}.gz
    DEPENDS ${packaging}/man/${name} VERBATIM)
  list(APPEND man_gz ${generated}/man/${name}.gz)
  install(FILES ${generated}/man/${name}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section} COMPONENT ${component})
endforeach()

# Per package: copyright and changelog.
string(TIMESTAMP changelog_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(changelogs)
foreach(component IN LISTS SHARDMAP_COMPONENTS)
  set(package ${SHARDMAP_PACKAGE_${component}})
  set(PACKAGE_NAME ${package})
  configure_file(${packaging}/debian/changelog.in ${generated}/${package}/changelog.Debian @ONLY)
  add_custom_command(OUTPUT ${generated}/${package}/changelog.Debian.gz
    COMMAND ${SHARDMAP_GZIP} -9nc ${generated}/${package}/changelog.Debian > ${generated}/${package}/changelog.Debian.gz
    DEPENDS ${generated}/${package}/changelog.Debian VERBATIM)
  list(APPEND changelogs ${generated}/${package}/changelog.Debian.gz)
  install(FILES ${packaging}/debian/copyright ${generated}/${package}/changelog.Debian.gz
    DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package} COMPONENT ${component})
endforeach()
add_custom_target(shardmap_package_files ALL DEPENDS ${man_gz} ${changelogs})

# The servers: configuration (conffiles) and units.
install(FILES ${packaging}/etc/node.conf DESTINATION ${SHARDMAP_CONFIG_DIR} COMPONENT node)
install(FILES ${packaging}/systemd/shardmap-node.service DESTINATION ${SHARDMAP_UNIT_DIR} COMPONENT node)
install(FILES ${packaging}/etc/shardmapd.conf DESTINATION ${SHARDMAP_CONFIG_DIR} COMPONENT controller)
install(FILES ${packaging}/systemd/shardmapd.service DESTINATION ${SHARDMAP_UNIT_DIR} COMPONENT controller)
# Monitoring: a Prometheus scrape configuration, alert rules and a Grafana dashboard.
install(FILES ${packaging}/prometheus/prometheus.yml ${packaging}/prometheus/alerts.yml
  ${packaging}/prometheus/grafana-dashboard.json
  DESTINATION ${CMAKE_INSTALL_DATADIR}/shardmap/prometheus COMPONENT controller)

# The console's icons: the SVG, and PNGs rendered from it for the hicolor sizes.
if(NOT SHARDMAP_CORE_ONLY)
  find_program(SHARDMAP_RSVG_CONVERT rsvg-convert REQUIRED)
  set(pngs)
  foreach(size 16 22 24 32 48 64 128 256)
    set(png ${generated}/icons/${size}x${size}/io.github.shardmap.Console.png)
    add_custom_command(OUTPUT ${png}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${generated}/icons/${size}x${size}
      COMMAND ${SHARDMAP_RSVG_CONVERT} -w ${size} -h ${size} -o ${png} ${PROJECT_SOURCE_DIR}/resources/shardmap.svg
      DEPENDS ${PROJECT_SOURCE_DIR}/resources/shardmap.svg VERBATIM)
    list(APPEND pngs ${png})
    install(FILES ${png} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps COMPONENT console)
  endforeach()
  add_custom_target(shardmap_icons ALL DEPENDS ${pngs})
endif()

# The programs resolve every symbol at start and map their relocations read-only (lintian's
# hardening-no-bindnow, -no-relro): link flags only, so that every build has them without
# compiling anything again. The compile-time hardening (fortify, stack protector) comes with
# Debian's flags, which scripts/package.sh passes (dpkg-buildflags).
foreach(program shardmap shardmap-node shardmapd shardmapctl)
  if(TARGET ${program})
    target_link_options(${program} PRIVATE LINKER:-z,relro LINKER:-z,now)
  endif()
endforeach()

# ---- CPack: one .deb per component ----------------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME shardmap)
set(CPACK_PACKAGE_VENDOR "Shardmap developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${SHARDMAP_PACKAGE_MAINTAINER})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL ${SHARDMAP_COMPONENTS})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${SHARDMAP_DEBIAN_REVISION})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${SHARDMAP_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/shardmap/shardmap")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_CONSOLE_PACKAGE_NAME shardmap)
set(CPACK_DEBIAN_CONSOLE_PACKAGE_SECTION admin)
# What the console loads at run time without linking it, which dpkg-shlibdeps cannot see: the
# SVG icon engine and image format plugins draw every icon (the platform plugins come with
# libqt6gui6, which it links); Qt's own translations (qtbase_de.qm) are optional.
set(CPACK_DEBIAN_CONSOLE_PACKAGE_DEPENDS "libqt6svg6 (>= 6.4)")
set(CPACK_DEBIAN_CONSOLE_PACKAGE_RECOMMENDS "qt6-translations-l10n")
set(CPACK_COMPONENT_CONSOLE_DESCRIPTION "desktop console for Shardmap search fleets
Shardmap routes the spaces (tenants) of a full-text search service to index
shards by a shard map and moves them between shards live. The console shows
shard load, heap, disk, CPU and IO over time, moves spaces by drag and drop,
runs rebalance, add, drain, split and merge wizards, watches migrations and
exports migration reports.")

set(CPACK_DEBIAN_NODE_PACKAGE_NAME shardmap-node)
set(CPACK_DEBIAN_NODE_PACKAGE_SECTION net)
set(CPACK_DEBIAN_NODE_PACKAGE_DEPENDS "adduser")
set(CPACK_COMPONENT_NODE_DESCRIPTION "Shardmap shard node (SQLite FTS5 search shards over gRPC)
The node hosts the index shards of a Shardmap fleet: SQLite FTS5 databases
that take writes, searches and the copy, fence and drop calls of live
migrations over gRPC. Runs as the systemd service shardmap-node, configured
in /etc/shardmap/node.conf.")

set(CPACK_DEBIAN_CONTROLLER_PACKAGE_NAME shardmapd)
set(CPACK_DEBIAN_CONTROLLER_PACKAGE_SECTION net)
set(CPACK_DEBIAN_CONTROLLER_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_CONTROLLER_PACKAGE_SUGGESTS "etcd-server, shardmapctl")
set(CPACK_COMPONENT_CONTROLLER_DESCRIPTION "Shardmap controller: routing and live migrations
shardmapd routes application writes and queries by the shard map and runs
live dual-write migrations of spaces between shards (backfill, verify,
cutover, cleanup), resumable after a crash; replicas share the map in etcd.
Runs as the systemd service shardmapd, configured in
/etc/shardmap/shardmapd.conf.")

set(CPACK_DEBIAN_CTL_PACKAGE_NAME shardmapctl)
set(CPACK_DEBIAN_CTL_PACKAGE_SECTION admin)
set(CPACK_COMPONENT_CTL_DESCRIPTION "command line tool for Shardmap search fleets
shardmapctl does from scripts what the Shardmap console does: edits the shard
map, queues, pauses, cancels and rolls back migrations, drains, splits and
retires, plans rebalances and writes migration reports.")

# Maintainer scripts (the service user, systemd) and conffiles of the two services.
foreach(component node controller)
  string(TOUPPER ${component} upper)
  set(PACKAGE_NAME ${SHARDMAP_PACKAGE_${component}})
  if(component STREQUAL node)
    set(UNIT shardmap-node.service)
    set(CONFFILE ${SHARDMAP_CONFIG_DIR}/node.conf)
  else()
    set(UNIT shardmapd.service)
    set(CONFFILE ${SHARDMAP_CONFIG_DIR}/shardmapd.conf)
  endif()
  foreach(script postinst prerm postrm)
    configure_file(${packaging}/debian/${script}.in ${generated}/${PACKAGE_NAME}/control/${script} @ONLY)
  endforeach()
  file(WRITE ${generated}/${PACKAGE_NAME}/control/conffiles "${CONFFILE}\n")
  set(CPACK_DEBIAN_${upper}_PACKAGE_CONTROL_EXTRA
    ${generated}/${PACKAGE_NAME}/control/postinst ${generated}/${PACKAGE_NAME}/control/prerm
    ${generated}/${PACKAGE_NAME}/control/postrm ${generated}/${PACKAGE_NAME}/control/conffiles)
endforeach()

include(CPack)
