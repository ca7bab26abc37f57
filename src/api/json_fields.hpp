#pragma once
// Typed access to JSON body fields with API.md's 400 errors (kInvalidArgument naming the
// field). Absent and null fields are both "not given".
#include <boost/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace plaudit::api {

Result<std::optional<std::string>> OptionalString(const boost::json::object& o,
                                                  std::string_view field);
Result<std::string> RequiredString(const boost::json::object& o, std::string_view field);
Result<std::optional<bool>> OptionalBool(const boost::json::object& o, std::string_view field);
Result<std::optional<int64_t>> OptionalId(const boost::json::object& o, std::string_view field);
// Refuses every field not in `allowed` (400 "field 'x' <refusal>"), the first in the body's
// order: nothing a client sends that the handler does not read is silently dropped.
Status OnlyFields(const boost::json::object& o, std::initializer_list<std::string_view> allowed,
                  std::string_view refusal = "cannot be set");
// Refuses fields a client may never set (identity and authority come from the session).
Status RefuseFields(const boost::json::object& o, std::initializer_list<std::string_view> fields);

}  // namespace plaudit::api
