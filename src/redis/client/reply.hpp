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

// An error reply that says the server cannot serve now, not that the command is wrong:
// LOADING (a restarted Redis reads its AOF), BUSY (a script runs past its time limit) and
// MASTERDOWN (a replica lost its primary). kUnavailable (503, retry), with a message fit for
// clients; nullopt for any other reply. The client fails such a call as it fails one whose
// connection dropped (client.cpp), so no caller sees these replies (issue 41, item 8: they
// were 500 `internal` with the reply in the body).
std::optional<Error> UnavailableReply(const Reply& r);

// A transport failure stays as it is; a Redis error reply (e.g. WRONGTYPE, a script error)
// becomes kInternal naming it (UnavailableReply's kUnavailable).
Status ReplyOk(const Result<Reply>& r);
// The same for every reply of a pipeline.
Status AllOk(const Result<std::vector<Reply>>& r);

}  // namespace plaudit::redis
