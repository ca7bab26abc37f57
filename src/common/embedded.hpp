#pragma once
// A file compiled into the binary by cmake/Embed.cmake (Lua scripts, SQL migrations, the
// browser front end's bundles).
#include <span>
#include <string_view>

namespace plaudit {

struct EmbeddedFile {
  std::string_view name;     // file name without directory, e.g. "001_init.sql"
  std::string_view content;  // the bytes of the file
};

}  // namespace plaudit

namespace plaudit::redis::lua {
std::span<const plaudit::EmbeddedFile> Files();  // src/redis/lua/*.lua, sorted by name
}
namespace plaudit::sql::migrations {
std::span<const plaudit::EmbeddedFile> Files();  // src/sql/migrations/*.sql, sorted by name
}
namespace plaudit::web {
std::span<const plaudit::EmbeddedFile> Files();  // web/build.mjs's output (embed.js, ...), by name
}
namespace plaudit::api::openapi {
std::span<const plaudit::EmbeddedFile> Files();  // docs/openapi.json
}
