#pragma once
// Live updates between instances (API.md "Live updates"): one pub/sub channel, keys::kLiveEvents,
// that every plauditd listens to on a connection of its own (client/subscriber.hpp), carrying
// "<article> <seq> <kind> <comment>" messages; each thread's sequence numbers come from its
// own counter (keys::LiveSeq) in the step that publishes (live_publish.lua). This store owns
// that encoding; the services speak LiveMessage.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "redis/client/client.hpp"

namespace plaudit::redis {

struct LiveMessage {
  int64_t article_id = 0;
  uint64_t seq = 0;
  std::string kind;  // [a-z]{1,16}: what happened (the services name it)
  int64_t comment_id = 0;
};

class LiveChannel {
 public:
  explicit LiveChannel(Client& client) : client_(client) {}

  // The channel's name, for the subscriber.
  static std::string Channel();
  // Publishes `kind` about `comment_id` in the article's thread; its sequence number.
  Awaitable<Result<uint64_t>> Publish(int64_t article_id, std::string_view kind,
                                      int64_t comment_id);
  // A message as published; nullopt for anything else (it is skipped).
  static std::optional<LiveMessage> Decode(std::string_view payload);

 private:
  Client& client_;
};

}  // namespace plaudit::redis
