#pragma once
// Live updates of threads (API.md "Live updates"), the services' side: what a comment write
// announces, and every instance's announcements as they arrive. The Redis channel carries
// only "what happened to which comment" (redis/live_channel.hpp); each instance reads the
// comment itself, as an anonymous reader would, before it tells its readers anything
// (render/live_streams.hpp): so what a stream sends is what a page read would show, and a held
// comment is never sent.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/net.hpp"
#include "model/comment.hpp"
#include "redis/live_channel.hpp"

namespace plaudit::domain {

// What readers of a thread see change about one comment.
enum class LiveKind {
  kShown,    // newly visible: a new approved comment, an approval, a restore
  kUpdated,  // still visible, changed: an edit, a new reply count
  kGone,     // no longer visible: deleted, marked spam, held again (a placeholder may stay)
  kLikes,    // like counts changed: of the article and/or of some of its comments
};
std::string_view LiveKindName(LiveKind kind);  // "comment", "updated", "deleted", "likes"
std::optional<LiveKind> ParseLiveKind(std::string_view name);

struct LiveEvent {
  int64_t article_id = 0;
  uint64_t seq = 0;  // the thread's, from 1, gapless while nothing is lost
  LiveKind kind = LiveKind::kShown;
  int64_t comment_id = 0;  // the comment (not kLikes)
  // kLikes: whose counts changed: 0 the article itself, else its comments' ids.
  std::vector<int64_t> liked;
};

// How a comment's write reads to the thread's readers: `before` (nullopt: it is new) and
// `after` as stored; nullopt when they neither see it now nor ever did (a held comment, new,
// edited, approved away as spam or deleted: not even its id is told). A comment not shown
// after the write is `updated` while it stays listed as a placeholder, else `deleted` unless
// `before` is exactly the version before the write and shows it held.
std::optional<LiveKind> LiveKindOf(const std::optional<model::Comment>& before,
                                   const model::Comment& after);

class LiveFeed {
 public:
  LiveFeed(net::any_io_executor ex, redis::LiveChannel& channel)
      : ex_(std::move(ex)), channel_(channel) {}
  ~LiveFeed() { *alive_ = false; }
  LiveFeed(const LiveFeed&) = delete;
  LiveFeed& operator=(const LiveFeed&) = delete;

  // At most one `likes` event a second per thread, from all instances together.
  static constexpr std::chrono::milliseconds kLikesGap{1000};

  // Sends it to every instance, this one too, without holding up the write that caused it: a
  // failure is logged (the thread's readers miss it until they reload; nothing else is lost).
  void Publish(int64_t article_id, LiveKind kind, int64_t comment_id);
  // A like or unlike of the article (`comment_id` 0) or of one of its comments was taken.
  // Coalesced: the first goes out at once, the ones after it together once the thread's gate
  // (kLikesGap, held in Redis for every instance) opens — at most one publish a second per
  // thread from this instance, and one refused at the gate only when another instance holds
  // it; this instance keeps what it has to
  // tell until then (at most kMaxPendingLikes targets a thread: beyond, the highest comment
  // ids wait for their next like). Lost if this process dies before the gate opens, or after
  // kMaxLikeAttempts failed publishes (readers' counts then wait for the thread's next like,
  // or a reload).
  void Liked(int64_t article_id, int64_t comment_id);

  // Where this instance's announcements go (render/live_streams.hpp; one listener).
  void Listen(std::function<void(const LiveEvent&)> on_event, std::function<void(bool)> on_state) {
    on_event_ = std::move(on_event);
    on_state_ = std::move(on_state);
  }
  // From the subscription to the channel (the wiring's redis::Subscriber).
  void Received(std::string_view payload);
  void SubscriptionChanged(bool subscribed);

  uint64_t publish_failures() const { return publish_failures_; }
  // No publish on its way to Redis (tests that count Redis commands wait for it).
  bool idle() const { return in_flight_ == 0; }

 private:
  // One thread's like news not yet published, and whether its publishing coroutine runs.
  struct PendingLikes {
    std::vector<int64_t> targets;  // sorted, unique; at most kMaxPendingLikes
    bool running = false;
    int failures = 0;  // publishes failed in a row
  };
  static constexpr size_t kMaxPendingLikes = 1024;
  static constexpr int kMaxLikeAttempts = 5;

  Awaitable<void> PublishNow(int64_t article_id, LiveKind kind, int64_t comment_id);
  Awaitable<void> PublishLikes(int64_t article_id);

  net::any_io_executor ex_;
  redis::LiveChannel& channel_;
  std::function<void(const LiveEvent&)> on_event_;
  std::function<void(bool)> on_state_;
  uint64_t publish_failures_ = 0;
  int64_t in_flight_ = 0;
  std::unordered_map<int64_t, PendingLikes> likes_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // for PublishLikes after us
};

}  // namespace plaudit::domain
