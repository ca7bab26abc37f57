# Script mode: runs `npm ci` in WEB_DIR unless node_modules was installed from this very lock
# file (a copy of it is kept in node_modules after each successful install).
set(lock ${WEB_DIR}/package-lock.json)
set(marker ${WEB_DIR}/node_modules/.plaudit-installed-lock.json)
if(EXISTS ${marker})
  file(SHA256 ${lock} want)
  file(SHA256 ${marker} have)
  if(want STREQUAL have)
    return()
  endif()
endif()
execute_process(COMMAND ${NPM} ci --no-audit --no-fund --loglevel=error
                WORKING_DIRECTORY ${WEB_DIR} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "npm ci failed in ${WEB_DIR} (${rc})")
endif()
file(COPY_FILE ${lock} ${marker})
