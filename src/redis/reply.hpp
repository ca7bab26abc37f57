#pragma once
// A Redis reply, built while hiredis parses it (redis/reply_reader.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace plaudit::redis {

struct Reply {
  enum class Type { kNil, kInteger, kString, kStatus, kError, kArray };
  Type type = Type::kNil;
  int64_t integer = 0;
  std::string str;  // kString, kStatus, kError
  std::vector<Reply> elements;

  bool is_nil() const { return type == Type::kNil; }
  bool is_error() const { return type == Type::kError; }
  // The integer of an integer reply, or of a string reply holding a decimal number.
  std::optional<int64_t> AsInt() const;
};

// A transport failure stays as it is; a Redis error reply (e.g. WRONGTYPE, a script error)
// becomes kInternal naming it.
Status ReplyOk(const Result<Reply>& r);
// The same for every reply of a pipeline.
Status AllOk(const Result<std::vector<Reply>>& r);

}  // namespace plaudit::redis
