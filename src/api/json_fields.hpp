#pragma once
// Typed access to JSON body fields with API.md's 400 errors (kInvalidArgument naming the
// field). Absent and null fields are both "not given".
#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "common/result.hpp"

namespace plaudit::api {

Result<std::optional<std::string>> OptionalString(const boost::json::object& o,
                                                  std::string_view field);
Result<std::string> RequiredString(const boost::json::object& o, std::string_view field);
Result<std::optional<bool>> OptionalBool(const boost::json::object& o, std::string_view field);
Result<std::optional<int64_t>> OptionalId(const boost::json::object& o, std::string_view field);
// Refuses fields a client may never set (identity and authority come from the session).
Status RefuseFields(const boost::json::object& o,
                    std::initializer_list<std::string_view> fields);

}  // namespace plaudit::api
