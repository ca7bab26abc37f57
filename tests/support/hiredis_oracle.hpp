#pragma once
// The oracle of the RESP reply reader's tests (tests/unit/reply_reader_test.cpp) and its fuzzer
// (fuzz/resp.cpp): hiredis's own redisReply tree, converted to a Reply as the client did
// before it had its own reader callbacks.
#include <hiredis/hiredis.h>

#include "redis/client/reply.hpp"

namespace plaudit::testing_redis {

using redis::Reply;

inline Reply FromHiredis(const redisReply* r) {
  Reply out;
  switch (r->type) {
    case REDIS_REPLY_STRING:
      out.type = Reply::Type::kString;
      break;
    case REDIS_REPLY_STATUS:
      out.type = Reply::Type::kStatus;
      break;
    case REDIS_REPLY_ERROR:
      out.type = Reply::Type::kError;
      break;
    case REDIS_REPLY_INTEGER:
      out.type = Reply::Type::kInteger;
      break;
    case REDIS_REPLY_ARRAY:
      out.type = Reply::Type::kArray;
      break;
    default:
      out.type = Reply::Type::kNil;
      break;
  }
  if (r->type == REDIS_REPLY_INTEGER) {
    out.integer = r->integer;
  }
  if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS ||
      r->type == REDIS_REPLY_ERROR) {
    out.str.assign(r->str, r->len);
  }
  for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; ++i) {
    out.elements.push_back(FromHiredis(r->element[i]));
  }
  return out;
}

// Whether two replies are the same tree.
inline bool SameReply(const Reply& a, const Reply& b) {
  if (a.type != b.type || a.integer != b.integer || a.str != b.str ||
      a.elements.size() != b.elements.size()) {
    return false;
  }
  for (size_t i = 0; i < a.elements.size(); ++i) {
    if (!SameReply(a.elements[i], b.elements[i])) {
      return false;
    }
  }
  return true;
}

}  // namespace plaudit::testing_redis
