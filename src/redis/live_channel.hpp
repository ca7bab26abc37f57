#pragma once
// Live updates between instances (API.md "Live updates"): one pub/sub channel, keys::kLiveEvents,
// that every plauditd listens to on a connection of its own (client/subscriber.hpp), carrying
// "<article> <seq> <kind> <id>[,<id>...]" messages; each thread's sequence numbers come from
// its own counter (keys::LiveSeq) in the step that publishes (live_publish.lua). This store
// owns that encoding; the services speak LiveMessage.
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "redis/client/client.hpp"

namespace plaudit::redis {

struct LiveMessage {
  int64_t article_id = 0;
  uint64_t seq = 0;
  std::string kind;          // [a-z]{1,16}: what happened (the services name it)
  std::vector<int64_t> ids;  // 1..kMaxIds, each >= 0: what it happened to
};

// A gated publish (PublishGated): its sequence number, or 0 and how long the gate stays held.
struct GatedPublish {
  uint64_t seq = 0;
  std::chrono::milliseconds wait{0};
};

class LiveChannel {
 public:
  explicit LiveChannel(Client& client) : client_(client) {}

  static constexpr size_t kMaxIds = 64;

  // The channel's name, for the subscriber.
  static std::string Channel();
  // Publishes `kind` about `ids` (1..kMaxIds, each >= 0) in the article's thread; its
  // sequence number.
  Awaitable<Result<uint64_t>> Publish(int64_t article_id, std::string_view kind,
                                      std::span<const int64_t> ids);
  // The same, unless a gated publish of the thread happened less than `gap` ago (from any
  // instance): then nothing is published, and the answer says how long until it may be.
  Awaitable<Result<GatedPublish>> PublishGated(int64_t article_id, std::string_view kind,
                                               std::span<const int64_t> ids,
                                               std::chrono::milliseconds gap);
  // A message as published; nullopt for anything else (it is skipped).
  static std::optional<LiveMessage> Decode(std::string_view payload);

 private:
  Awaitable<Result<int64_t>> Run(int64_t article_id, std::string_view kind,
                                 std::span<const int64_t> ids,
                                 std::optional<std::chrono::milliseconds> gap);

  Client& client_;
};

}  // namespace plaudit::redis
