#include "api/json_fields.hpp"

#include <algorithm>

namespace plaudit::api {

Result<std::optional<std::string>> OptionalString(const boost::json::object& o,
                                                  std::string_view field) {
  const auto* v = o.if_contains(field);
  if (!v || v->is_null()) {
    return std::optional<std::string>{};
  }
  if (!v->is_string()) {
    return Fail(ErrorCode::kInvalidArgument, "field '" + std::string(field) + "' must be a string");
  }
  return std::optional<std::string>(std::string(v->as_string()));
}

Result<std::string> RequiredString(const boost::json::object& o, std::string_view field) {
  PL_TRY(auto s, OptionalString(o, field));
  if (!s) {
    return Fail(ErrorCode::kInvalidArgument, "field '" + std::string(field) + "' is required");
  }
  return std::move(*s);
}

Result<std::optional<bool>> OptionalBool(const boost::json::object& o, std::string_view field) {
  const auto* v = o.if_contains(field);
  if (!v || v->is_null()) {
    return std::optional<bool>{};
  }
  if (!v->is_bool()) {
    return Fail(ErrorCode::kInvalidArgument,
                "field '" + std::string(field) + "' must be a boolean");
  }
  return std::optional<bool>(v->as_bool());
}

Result<std::optional<int64_t>> OptionalId(const boost::json::object& o, std::string_view field) {
  const auto* v = o.if_contains(field);
  if (!v || v->is_null()) {
    return std::optional<int64_t>{};
  }
  int64_t id = 0;
  if (v->is_int64()) {
    id = v->as_int64();
  } else if (v->is_uint64() && v->as_uint64() <= static_cast<uint64_t>(INT64_MAX)) {
    id = static_cast<int64_t>(v->as_uint64());
  } else {
    id = 0;
  }
  if (id <= 0) {
    return Fail(ErrorCode::kInvalidArgument,
                "field '" + std::string(field) + "' must be a positive integer id");
  }
  return std::optional<int64_t>(id);
}

Status OnlyFields(const boost::json::object& o, std::initializer_list<std::string_view> allowed,
                  std::string_view refusal) {
  for (const auto& field : o) {
    if (std::find(allowed.begin(), allowed.end(), field.key()) == allowed.end()) {
      return Fail(ErrorCode::kInvalidArgument,
                  "field '" + std::string(field.key()) + "' " + std::string(refusal));
    }
  }
  return {};
}

Status RefuseFields(const boost::json::object& o, std::initializer_list<std::string_view> fields) {
  for (auto f : fields) {
    if (o.contains(f)) {
      return Fail(ErrorCode::kInvalidArgument,
                  "field '" + std::string(f) + "' may not be set by the client");
    }
  }
  return {};
}

}  // namespace plaudit::api
