# The browser front end (web/): `npm ci` when web/node_modules is missing or older than the
# lock file, then web/build.mjs bundles and minifies web/src/*.ts with esbuild into
# ${PLAUDIT_WEB_OUT}; the bundles are embedded into plauditd (plaudit::web::Files()), so the
# binary alone serves /embed.js, /count.js and the blog pages. Node and npm are build dependencies only.
find_program(PLAUDIT_NODE node REQUIRED)
find_program(PLAUDIT_NPM npm REQUIRED)
set(PLAUDIT_WEB_DIR ${CMAKE_SOURCE_DIR}/web)
set(PLAUDIT_WEB_OUT ${CMAKE_BINARY_DIR}/web)
set(PLAUDIT_WEB_BUNDLES ${PLAUDIT_WEB_OUT}/count.js ${PLAUDIT_WEB_OUT}/count.js.gz
                        ${PLAUDIT_WEB_OUT}/embed.js ${PLAUDIT_WEB_OUT}/embed.js.gz
                        ${PLAUDIT_WEB_OUT}/site.js ${PLAUDIT_WEB_OUT}/site.js.gz
                        ${PLAUDIT_WEB_OUT}/site.css ${PLAUDIT_WEB_OUT}/site.css.gz
                        ${PLAUDIT_WEB_OUT}/site.html)

set(web_deps_stamp ${CMAKE_BINARY_DIR}/web-deps.stamp)
add_custom_command(
  OUTPUT ${web_deps_stamp}
  COMMAND ${CMAKE_COMMAND} -DWEB_DIR=${PLAUDIT_WEB_DIR} -DNPM=${PLAUDIT_NPM}
          -P ${CMAKE_SOURCE_DIR}/cmake/NpmCi.cmake
  COMMAND ${CMAKE_COMMAND} -E touch ${web_deps_stamp}
  DEPENDS ${PLAUDIT_WEB_DIR}/package.json ${PLAUDIT_WEB_DIR}/package-lock.json
          ${CMAKE_SOURCE_DIR}/cmake/NpmCi.cmake
  COMMENT "web: npm ci (when node_modules is missing or stale)"
  VERBATIM)

file(GLOB_RECURSE web_srcs CONFIGURE_DEPENDS ${PLAUDIT_WEB_DIR}/src/* ${PLAUDIT_WEB_DIR}/site/*)
add_custom_command(
  OUTPUT ${PLAUDIT_WEB_BUNDLES}
  COMMAND ${PLAUDIT_NODE} ${PLAUDIT_WEB_DIR}/build.mjs --out ${PLAUDIT_WEB_OUT}
  DEPENDS ${web_deps_stamp} ${web_srcs} ${PLAUDIT_WEB_DIR}/build.mjs
  WORKING_DIRECTORY ${PLAUDIT_WEB_DIR}
  COMMENT "web: bundling embed.js, count.js and the site (site.js, site.css, site.html)"
  VERBATIM)

plaudit_embed_files(plaudit_web_files plaudit::web FILES ${PLAUDIT_WEB_BUNDLES}
                    COMMENT "Embedding the web bundles")
