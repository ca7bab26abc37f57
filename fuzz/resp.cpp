// The RESP reply reader (redis/client/reply_reader.hpp: our callbacks inside hiredis's parser)
// against hiredis's own reader, on any bytes a server could send: both must read the same
// replies, in the same order, and stop at the same protocol error. Ours is fed in pieces of
// the size the first byte gives (a reply split across reads), hiredis's all at once. Any
// difference aborts.
#include <hiredis/hiredis.h>
#include <hiredis/read.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "redis/client/reply_reader.hpp"
#include "support/hiredis_oracle.hpp"

namespace {

using plaudit::redis::Reply;
using plaudit::testing_redis::FromHiredis;

struct Read {
  std::vector<Reply> replies;
  bool error = false;
};

// Takes every reply the reader has; false on a protocol error.
template <class Take>
bool Drain(redisReader* reader, Read& out, Take take) {
  void* reply = nullptr;
  while (true) {
    if (redisReaderGetReply(reader, &reply) != REDIS_OK) {
      return false;
    }
    if (reply == nullptr) {
      return true;
    }
    out.replies.push_back(take(reply));
    reply = nullptr;
  }
}

Read ReadHiredis(const std::string& bytes) {
  Read out;
  redisReader* reader = redisReaderCreate();
  out.error = redisReaderFeed(reader, bytes.data(), bytes.size()) != REDIS_OK ||
              !Drain(reader, out, [](void* r) {
                Reply value = FromHiredis(static_cast<redisReply*>(r));
                freeReplyObject(r);
                return value;
              });
  redisReaderFree(reader);
  return out;
}

Read ReadOurs(const std::string& bytes, size_t piece) {
  Read out;
  redisReader* reader = redisReaderCreateWithFunctions(plaudit::redis::ReplyReaderFunctions());
  auto take = [](void* r) {
    Reply value = plaudit::redis::TakeReply(r);
    plaudit::redis::ReplyReaderFunctions()->freeObject(r);
    return value;
  };
  for (size_t pos = 0; pos < bytes.size() && !out.error; pos += piece) {
    const size_t n = std::min(piece, bytes.size() - pos);
    out.error =
        redisReaderFeed(reader, bytes.data() + pos, n) != REDIS_OK || !Drain(reader, out, take);
  }
  redisReaderFree(reader);
  return out;
}

// Whether some "*<count>" in the bytes declares more elements than hiredis's own reader can
// be asked to make (it callocs the count at once: 2^31 of them are 16 GB, past the fuzzer's
// memory limit). Such bytes are read by ours alone, which must still not fail.
bool DeclaresHugeArray(const std::string& bytes) {
  constexpr long long kAtMost = 1 << 20;
  for (size_t i = bytes.find('*'); i != std::string::npos; i = bytes.find('*', i + 1)) {
    long long count = 0;
    for (size_t j = i + 1; j < bytes.size() && j < i + 12 && bytes[j] >= '0' && bytes[j] <= '9';
         ++j) {
      count = count * 10 + (bytes[j] - '0');
    }
    if (count > kAtMost) {
      return true;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) {
    return 0;
  }
  const size_t piece = size_t{data[0]} + 1;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Read ours = ReadOurs(bytes, piece);
  if (DeclaresHugeArray(bytes)) {
    return 0;
  }
  const Read theirs = ReadHiredis(bytes);
  bool same = theirs.error == ours.error && theirs.replies.size() == ours.replies.size();
  for (size_t i = 0; same && i < ours.replies.size(); ++i) {
    same = plaudit::testing_redis::SameReply(ours.replies[i], theirs.replies[i]);
  }
  if (!same) {
    std::fprintf(stderr, "hiredis read %zu replies%s, ours %zu%s (pieces of %zu bytes)\n",
                 theirs.replies.size(), theirs.error ? " then an error" : "", ours.replies.size(),
                 ours.error ? " then an error" : "", piece);
    std::abort();
  }
  return 0;
}
