#include "domain/live_feed.hpp"

#include <spdlog/spdlog.h>

#include <array>
#include <string>

namespace plaudit::domain {
namespace {

constexpr std::array<std::string_view, 3> kNames{"comment", "updated", "deleted"};

// What readers see of it: a comment they read, apart from a placeholder (listed for its
// replies, its own text gone), which reads to them as gone.
bool Shown(const model::Comment& c) { return c.Listed() && !c.Placeholder(); }

}  // namespace

std::string_view LiveKindName(LiveKind kind) { return kNames.at(static_cast<size_t>(kind)); }

std::optional<LiveKind> ParseLiveKind(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) {
      return static_cast<LiveKind>(i);
    }
  }
  return std::nullopt;
}

std::optional<LiveKind> LiveKindOf(const std::optional<model::Comment>& before,
                                   const model::Comment& after) {
  if (!before) {
    // New: readers hear of it only if they see it (a held one announces nothing).
    return Shown(after) ? std::optional<LiveKind>(LiveKind::kShown) : std::nullopt;
  }
  if (Shown(after)) {
    return Shown(*before) ? LiveKind::kUpdated : LiveKind::kShown;
  }
  // Not shown now: a placeholder still listed is an update (it carries no text); anything
  // else is gone, whatever `before` says (it was read before the write queued: two moderators
  // acting at once may both have read "pending", and the first may have shown it).
  return after.Listed() ? LiveKind::kUpdated : LiveKind::kGone;
}

void LiveFeed::Publish(int64_t article_id, LiveKind kind, int64_t comment_id) {
  net::co_spawn(ex_, PublishNow(article_id, kind, comment_id), net::detached);
}

Awaitable<void> LiveFeed::PublishNow(int64_t article_id, LiveKind kind, int64_t comment_id) {
  auto seq = co_await channel_.Publish(article_id, LiveKindName(kind), comment_id);
  if (!seq) {
    ++publish_failures_;
    spdlog::warn("live update of comment {} (article {}) not published: {}", comment_id, article_id,
                 seq.error().message);
  }
}

void LiveFeed::Received(std::string_view payload) {
  const std::optional<redis::LiveMessage> m = redis::LiveChannel::Decode(payload);
  if (!m) {
    return;
  }
  const std::optional<LiveKind> kind = ParseLiveKind(m->kind);
  if (!kind || !on_event_) {
    return;
  }
  on_event_(LiveEvent{m->article_id, m->seq, *kind, m->comment_id});
}

void LiveFeed::SubscriptionChanged(bool subscribed) {
  if (on_state_) {
    on_state_(subscribed);
  }
}

}  // namespace plaudit::domain
